"""From a printed spread to an sd, a standard error and n, by the source tool's convention.

Each tool prints its spread differently: an sd (hyperfine, pyperf, BenchmarkTools,
pytest-benchmark, ``%timeit``), the largest deviation from the mean (Go benchstat v1),
max − min of its samples (Rust libtest), or a CI half-width (benchstat v2's median CI,
JMH's 99.9% CI, criterion's bootstrap CI of the mean). Where a tool omits the spread or
``n``, they are bounded from what it does print (min, max, mean). Bounds are always taken
in the conservative direction -- an upper bound on the sd, a lower bound on n -- so that
a test on them can only err towards "cannot be confirmed".
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import special, stats

from tsanalyze.analysis.audit._printed import Printed

__all__ = [
    "MEDIAN_SE_FACTOR",
    "Spread",
    "derive_spread",
    "median_ci_coverage",
    "t_quantile",
    "t_sf",
]

#: normal-theory efficiency of the median: se(median) ~ sqrt(pi/2) sd / sqrt(n)
MEDIAN_SE_FACTOR = math.sqrt(math.pi / 2.0)


@dataclasses.dataclass(frozen=True, slots=True)
class Spread:
    """What the printed spread says about the row.

    ``sd`` is the sd of the samples at the printed values (an upper bound when
    ``source`` ends in ``-bound``); ``sd_high`` its largest value the printed digits
    allow. ``se``/``se_high`` are the standard error of the location; ``df`` the degrees
    of freedom behind it (inf when a CI was read without n).
    """

    sd: float | None = None
    sd_high: float | None = None
    source: str = "none"  # sd, range-bound, span-bound, minmax-bound, ci, none
    se: float | None = None
    se_high: float | None = None
    df: float = math.inf
    n: int | None = None
    n_source: str = "none"  # given, bound, none
    ci: tuple[float, float] | None = None
    zero_rounded: bool = False
    error: tuple[str, str] | None = None

    @property
    def bounded(self) -> bool:
        """True when the sd is only an upper bound, or n only a lower bound."""
        return self.source.endswith("-bound") or self.n_source == "bound"


def t_quantile(q: float, df: float) -> float:
    """Student-t quantile (normal for infinite df): ``scipy.special.stdtrit``/``ndtri``,
    the functions behind ``scipy.stats.t.ppf``, without its per-call overhead."""
    return float(special.ndtri(q) if math.isinf(df) else special.stdtrit(df, q))


def t_sf(x: float, df: float) -> float:
    """Student-t survival function (normal for infinite df), as ``scipy.stats.t.sf``."""
    return float(special.ndtr(-x) if math.isinf(df) else special.stdtr(df, -x))


def median_ci_coverage(n: int, level: float) -> float:
    """Actual coverage of the narrowest order-statistic CI ``[x(k), x(n−k+1)]`` of the
    median whose coverage is at least ``level`` (``[min, max]`` when none reaches it).

    Coverage is ``P(k <= B <= n − k)`` for ``B ~ Binomial(n, 1/2)``. This is the interval
    benchstat v2 prints as "± x%" (for n = 10 at 95%: k = 2, coverage 0.978515625). For
    large n the search starts at the normal approximation, so n up to 2**53 is fine.
    """
    n = int(n)
    if n < 2:
        return 0.0
    z = t_quantile(0.5 + level / 2.0, math.inf)
    # candidate k near the normal approximation, searched a few steps either way
    k0 = max(1, math.floor(n / 2.0 - z * math.sqrt(n) / 2.0))
    ks = np.arange(max(1, k0 - 3), min(n // 2, k0 + 4) + 1)
    if n <= 4096:
        ks = np.arange(n // 2, 0, -1)
    else:
        ks = ks[::-1]
    cover = 1.0 - 2.0 * stats.binom.cdf(ks - 1, n, 0.5)
    ok = np.flatnonzero(cover >= level)
    return float(cover[ok[0]]) if ok.size else float(cover[-1])


def _n_factor(n: int | None) -> float:
    """sqrt(n / (n − 1)): population-to-sample sd; n unknown is taken as 2 (the largest)."""
    m = n if n is not None and n > 1 else 2
    return math.sqrt(m / (m - 1.0))


def _n_lower_bound(estimators: dict[str, Printed], sd_high: float | None) -> float:
    """The smallest n consistent with the printed min, max, mean and sd.

    With range R = max − min: (n − 1) s² >= R² / 2 (the two extremes alone), so
    n >= R² / (2 s²) for either sd convention; and n (mean − min) >= R, n (max − mean) >= R
    (one sample sits at each extreme). Worst-case printed values give the smallest bound.
    """
    lo, hi, mean = estimators.get("min"), estimators.get("max"), estimators.get("mean")
    if lo is None or hi is None:
        return 0.0
    r = hi.low - lo.high
    if r <= 0:
        return 0.0
    bounds = [0.0]
    if sd_high is not None and sd_high > 0:
        bounds.append(r * r / (2.0 * sd_high * sd_high))
    if mean is not None:
        if mean.high - lo.low > 0:
            bounds.append(r / (mean.high - lo.low))
        if hi.high - mean.low > 0:
            bounds.append(r / (hi.high - mean.low))
    return max(bounds)


def _se_from_half(half: float, n: int | None, kind: str, level: float) -> float:
    if n is None or n < 2:
        return half / t_quantile(0.5 + level / 2.0, math.inf)
    if kind == "median":
        # a distribution-free CI of the median [x(k), x(n-k+1)] covers more than the
        # nominal level for small n (n = 10 at 95%: 97.85%); use its actual coverage
        cover = median_ci_coverage(n, level)
        return half / t_quantile(0.5 + cover / 2.0, math.inf)
    return half / t_quantile(0.5 + level / 2.0, n - 1)


def derive_spread(
    *,
    spread: tuple[str, Printed] | None,
    location: Printed,
    location_kind: str,
    n: int | None,
    n_min: int | None,
    estimators: dict[str, Printed],
    ci: tuple[Printed, Printed] | None,
    ci_level: float,
) -> Spread:
    """The sd, se and n a row's printed numbers support (see the module docstring).

    * ``sd``: as printed.
    * ``range`` (benchstat v1, the largest |x − mean|): ``sd <= maxdev √(n/(n−1))``.
    * ``span`` (libtest, max − min): ``sd <= span/2 · √(n/(n−1))`` (Popoviciu).
    * ``ci`` (half-width h at ``ci_level``): ``se = h / t`` (mean; ``z`` when n is
      unknown) or ``h / z_c`` with the order-statistic coverage ``c`` (median);
      ``sd = se √n`` (divided by √(π/2) for a median).
    * no spread but min, max and mean: ``sd <= √(n/(n−1)) √((max − mean)(mean − min))``
      (Bhatia & Davis 2000).
    * n not printed: the lower bound of :func:`_n_lower_bound`, or ``n_min``.
    """
    sd = sd_high = None
    source = "none"
    half: Printed | None = None
    zero_rounded = False
    if spread is not None:
        kind, s = spread
        zero_rounded = s.value == 0.0 and s.high > 0.0
        if kind == "sd":
            sd, sd_high, source = s.value, s.high, "sd"
        elif kind == "ci":
            half = s
        else:
            n_for = n if n is not None else n_min
            f = _n_factor(n_for) * (0.5 if kind == "span" else 1.0)
            sd, sd_high = s.value * f, s.high * f
            source = "span-bound" if kind == "span" else "range-bound"
    out_ci: tuple[float, float] | None = None
    if ci is not None:
        lo, hi = ci
        out_ci = (lo.value, hi.value)
        if half is None and source == "none":
            half = Printed(
                (hi.value - lo.value) / 2.0,
                max(0.0, (hi.low - lo.high) / 2.0),
                (hi.high - lo.low) / 2.0,
            )
        if not (lo.low <= location.high and location.low <= hi.high):
            pass  # ci_consistency reports a CI that misses its location
    elif half is not None:
        out_ci = (location.value - half.value, location.value + half.value)
    # n: as printed, else bounded from min/max/mean/sd (conservative: the smallest n)
    n_source = "given" if n is not None else "none"
    if n is None:
        bound = max(float(n_min or 0), _n_lower_bound(estimators, sd_high))
        if bound >= 2.0:
            n = min(math.ceil(bound - 1e-9), 2**53)
            n_source = "bound"
    se = se_high = None
    df = math.inf
    if half is not None:
        se = _se_from_half(half.value, n, location_kind, ci_level)
        se_high = _se_from_half(half.high, n, location_kind, ci_level)
        source = "ci"
        if n is not None and n >= 2:
            factor = math.sqrt(n) / (MEDIAN_SE_FACTOR if location_kind == "median" else 1.0)
            sd, sd_high = se * factor, se_high * factor
            df = float(n - 1)
    elif sd is None and {"mean", "min", "max"} <= set(estimators):
        lo_, hi_, mean = estimators["min"], estimators["max"], estimators["mean"]
        f = _n_factor(n)
        sd = f * math.sqrt(max(0.0, (hi_.value - mean.value) * (mean.value - lo_.value)))
        sd_high = f * math.sqrt(max(0.0, (hi_.high - mean.low) * (mean.high - lo_.low)))
        source = "minmax-bound"
    if sd is not None and se is None and n is not None and n >= 2:
        se, se_high = sd / math.sqrt(n), (sd_high or sd) / math.sqrt(n)
        df = float(n - 1)
    return Spread(
        sd=sd,
        sd_high=sd_high,
        source=source,
        se=se,
        se_high=se_high,
        df=df,
        n=n,
        n_source=n_source,
        ci=out_ci,
        zero_rounded=zero_rounded,
    )
