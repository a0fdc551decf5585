"""numba acceleration of the kernels that cannot be vectorised (shared by every compiled
kernel of ``stats``).

numba is a core dependency: the BreakoutDetection-compatible EDM and E-Divisive walk a
linked list of samples one step at a time inside an O(n²) dynamic programme, which no
NumPy formulation gets within 3x of (the pure-Python twin is about 60x slower: 1 s
instead of 17 ms for ``edm-multi`` on 1000 samples). ``jit(f)`` returns a compiled twin
of ``f`` when numba imports and ``f`` itself otherwise (a platform numba does not support
yet keeps working, slowly), so every compiled kernel has a pure-Python twin with the same
source; tests run both and require identical output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["HAVE_NUMBA", "jit", "jitable"]

F = TypeVar("F", bound=Callable[..., Any])

try:  # pragma: no cover - depends on the environment
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    numba = None  # type: ignore[assignment]
    HAVE_NUMBA = False


def jit(func: F) -> F:
    """Compile ``func`` with ``numba.njit`` when available, else return it unchanged."""
    if not HAVE_NUMBA:
        return func
    compiled = numba.njit(cache=True, nogil=True)(func)
    return cast(F, compiled)


def jitable(func: F) -> F:
    """Let the kernels :func:`jit` compiles call ``func`` (compiled into them, inlined
    where LLVM sees fit) while it stays plain Python for the pure-Python twins."""
    if not HAVE_NUMBA:
        return func
    from numba.extending import register_jitable

    return cast(F, register_jitable(func))
