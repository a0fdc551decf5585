"""The root seed of a run-set analysis: reproducible unless a fresh one is asked for.

The same input gives the same report: without a seed the analyses of a run set
(:func:`tsanalyze.analyze`, :func:`tsanalyze.compare_runs`, ``df.tsa.compare`` and the
``report``/``compare`` commands) use :data:`DEFAULT_SEED`. A fresh seed is asked for with
a :class:`numpy.random.Generator` (``--seed random`` on the command line); the seed drawn
from it is recorded on the result, so that run can be replayed too.
"""

from __future__ import annotations

import numpy as np

from tsanalyze._typing import RNGType
from tsanalyze._validation import check_rng

__all__ = ["DEFAULT_SEED", "family_seeds", "root_seed"]

#: the root seed used when none is given
DEFAULT_SEED = 0


def root_seed(rng: RNGType) -> int:
    """The integer root seed for ``rng``: itself when an int, :data:`DEFAULT_SEED` when
    None, and a seed drawn from it when a Generator (to ask for a fresh analysis)."""
    if rng is None:
        return DEFAULT_SEED
    gen, seed = check_rng(rng)
    if seed is None:  # a Generator: draw the root seed from it, and record that
        seed = int(gen.integers(0, 2**32))
    return seed


def family_seeds(root: int, k: int) -> list[int]:
    """The seeds of the ``k`` comparisons of one family (in their order), from the root
    seed: the same in :func:`tsanalyze.compare_runs`, ``df.tsa.compare`` and the
    ``report``/``compare`` commands, so that they give the same intervals."""
    return [int(v) for v in np.random.default_rng(root).integers(0, 2**31 - 1, size=k)]
