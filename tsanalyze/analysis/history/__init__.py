"""History: which commit changed a benchmark's performance, with honest uncertainty
(issue 25). :func:`history` is the entry point; see :mod:`.api`."""

from tsanalyze.analysis.history.api import History, history

__all__ = ["History", "history"]
