"""Change points: cost × search, like ruptures.

``changepoints(x, method=...)`` (in :mod:`.api`) is the one entry point; the methods are
the BreakoutDetection-compatible EDM variants (:mod:`._edm_compat`), the robust default
EDM (:mod:`.edm`), E-Divisive with energy distance (:mod:`.energy`) and PELT / binary
segmentation through ruptures (:mod:`.ruptures_search`).
"""

from tsanalyze.stats.changepoints._base import (
    ChangePoints,
    Drift,
    ModeSwitching,
    segment_arrays,
    segment_table,
)

__all__ = ["ChangePoints", "Drift", "ModeSwitching", "changepoints", "segment_arrays", "segment_table"]


def __getattr__(name: str) -> object:
    if name == "changepoints":  # lazy, so that importing the result type stays light
        from tsanalyze.stats.changepoints.api import changepoints

        return changepoints
    raise AttributeError(name)
