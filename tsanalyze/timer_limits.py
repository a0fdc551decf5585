"""How long a sample must be for the clock not to dominate it: the timer limits, declared once.

The analysis side flags samples that break these limits
(:func:`tsanalyze.stats.timer.timer_check` on one array, :func:`tsanalyze.timer_checks` per
series of a run); the collector chooses samples long enough to pass them
(:func:`tsanalyze.collector.calibration.default_min_sample_ns`). Both import them from here.
Standard library only (no imports at all), so that the collector may depend on it (an
import-linter contract).

References
----------
.. [1] Ou, C. (2020). Eliminating a source of measurement errors in benchmarks (subtract the
   cost of reading the clock, and keep it a small share of the measured time).
   https://changkun.de/blog/posts/eliminating-a-source-of-measurement-errors-in-benchmarks
.. [2] Chen, J., Revels, J., & Edelman, A. (2016). Robust benchmarking in noisy
   environments. IEEE High Performance Extreme Computing Conference (HPEC 2016), §II, timer
   accuracy τ_acc and precision τ_prec. arXiv:1608.04295.
"""

from __future__ import annotations

__all__ = ["ACCURACY_SHARE_LIMIT", "OVERHEAD_SHARE_LIMIT", "PRECISION_FACTOR"]

#: Largest share of a sample's raw time that reading the clock may take (overhead / time) [1]_.
OVERHEAD_SHARE_LIMIT = 0.01
#: Largest relative error the timer's accuracy may put on one sample (τ_acc / time) [2]_.
ACCURACY_SHARE_LIMIT = 0.01
#: A sample should last at least this many timer precisions (τ_prec) [2]_.
PRECISION_FACTOR = 1000.0
