"""Optional numba acceleration: see :mod:`tsanalyze.stats._numba` (shared by every
compiled kernel of ``stats``)."""

from tsanalyze.stats._numba import HAVE_NUMBA, jit, jitable

__all__ = ["HAVE_NUMBA", "jit", "jitable"]
