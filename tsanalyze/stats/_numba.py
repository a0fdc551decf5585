"""Optional numba acceleration (the ``fast`` extra).

``jit(f)`` returns a compiled twin of ``f`` when numba is installed and ``f`` itself
otherwise, so every compiled kernel has a pure-Python twin with the same source; tests
run both and require identical output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["HAVE_NUMBA", "jit"]

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
