"""tsanalyze: what do these recorded benchmark timings really say?

The public API is imported lazily (``_API`` maps each public name to the module that
defines it), so ``import tsanalyze`` and the CLI start fast.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from tsanalyze._version import __version__
from tsanalyze import errors as _errors
from tsanalyze.errors import *  # noqa: F403 - the error types are public: errors.__all__

# public name -> module that defines it (add one line per public function)
_API: dict[str, str] = {
    "compare": "tsanalyze.analysis.compare.comparison",
    "compare_runs": "tsanalyze.analysis.compare.suite",
    "judge": "tsanalyze.analysis.compare.judgement",
    "read_runs": "tsanalyze.io.runs",
    "write_run": "tsanalyze.io.runs",
    "autocorrelation": "tsanalyze.stats.autocorrelation",
    "assess_dependence": "tsanalyze.stats.dependence",
    "estimate": "tsanalyze.stats.estimators",
    "estimate_trials": "tsanalyze.analysis.trials",
    "multimodality": "tsanalyze.stats.multimodality",
    "plan_samples": "tsanalyze.stats.planning",
    "wps_fit": "tsanalyze.stats.regression",
    "evals_fit": "tsanalyze.stats.regression",
    "changepoints": "tsanalyze.stats.changepoints.api",
    "steady_state": "tsanalyze.analysis.steady_state",
    "steady_state_trials": "tsanalyze.analysis.steady_state",
    "outlier_variance": "tsanalyze.stats.outliers",
    "tukey_fences": "tsanalyze.stats.outliers",
    "audit": "tsanalyze.analysis.audit",
    "timer_checks_per_series": "tsanalyze.analysis.noise",
    "noise_floor": "tsanalyze.analysis.noise",
    "analyze": "tsanalyze.analysis.runset.analysis",
    "history": "tsanalyze.analysis.history.api",
}

# old public name -> new public name (each still works, with a DeprecationWarning)
_DEPRECATED: dict[str, str] = {
    "modes": "multimodality",
    "timer_checks": "timer_checks_per_series",
}

__all__ = [*_errors.__all__, "__version__", *sorted(_API)]

if TYPE_CHECKING:  # pragma: no cover
    from tsanalyze.analysis.runset.analysis import analyze
    from tsanalyze.analysis.steady_state import steady_state, steady_state_trials
    from tsanalyze.analysis.audit import audit
    from tsanalyze.analysis.history.api import history
    from tsanalyze.analysis.compare.comparison import compare
    from tsanalyze.analysis.compare.judgement import judge
    from tsanalyze.analysis.compare.suite import compare_runs
    from tsanalyze.analysis.noise import noise_floor, timer_checks_per_series
    from tsanalyze.io.runs import read_runs, write_run
    from tsanalyze.stats.autocorrelation import autocorrelation
    from tsanalyze.stats.dependence import assess_dependence
    from tsanalyze.analysis.trials import estimate_trials
    from tsanalyze.stats.estimators import estimate
    from tsanalyze.stats.multimodality import multimodality
    from tsanalyze.stats.planning import plan_samples
    from tsanalyze.stats.regression import evals_fit, wps_fit
    from tsanalyze.stats.changepoints.api import changepoints
    from tsanalyze.stats.outliers import outlier_variance, tukey_fences


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(
            f"tsanalyze.{name} is deprecated; use tsanalyze.{new}", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(_API[new]), new)
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'tsanalyze' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))


# registers the pandas accessor `.tsa` on Series and DataFrames: at once when pandas is
# imported, else when it gets imported (pandas alone takes ~0.3 s: `import tsanalyze`
# and the CLI's start-up do not pay for it)
from tsanalyze import _pandas_hook  # noqa: E402

_pandas_hook.install()
