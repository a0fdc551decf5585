"""Register the ``.tsa`` accessor when pandas is imported, not when tsanalyze is.

``import tsanalyze`` must stay fast (the CLI's ``--help`` and ``--version`` load nothing
else), and pandas alone takes about 0.3 s to import. So the accessor module, which needs
pandas, is imported:

- at once, when pandas is already imported;
- otherwise right after pandas finishes importing, by a finder on ``sys.meta_path`` that
  wraps the loader of the ``pandas`` module and removes itself once it has fired.

Either way ``import tsanalyze`` followed by ``pd.Series(...).tsa`` works, in either
import order.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from importlib.machinery import ModuleSpec

__all__ = ["install"]

_ACCESSOR = "tsanalyze.accessor"


def _register() -> None:
    importlib.import_module(_ACCESSOR)


def _register_safely() -> None:
    """Register; a failure must never make ``import pandas`` itself fail."""
    try:
        _register()
    except Exception as exc:  # pragma: no cover - a broken installation
        warnings.warn(
            f"tsanalyze: the pandas accessor .tsa could not be registered ({exc!r})",
            RuntimeWarning,
            stacklevel=2,
        )


class _ThenRegister:
    """The real loader of ``pandas``, followed by the registration of the accessor."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        # pandas sees its own loader (importlib.resources and friends look at it)
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        _register_safely()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


class _PandasFinder:
    """Finds ``pandas`` with the other finders and wraps its loader; then steps aside."""

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "pandas":
            return None
        uninstall()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _ThenRegister(spec.loader)
                return spec  # type: ignore[no-any-return]
        return None


_FINDER = _PandasFinder()


def install() -> None:
    """Register the accessor now if pandas is imported, else when it is."""
    if "pandas" in sys.modules:
        _register()
    elif _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Remove the finder (it fires once)."""
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
