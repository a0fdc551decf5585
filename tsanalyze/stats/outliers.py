"""Outlier models: Tukey fences and Boyer's standard-deviation-blowup model.

Two questions, two tools:

* :func:`tukey_fences` -- which *samples* lie outside the quartiles by more than 1.5 IQR
  (mild) or 3 IQR (severe), below or above, as criterion.rs classifies them;
  :func:`tukey_filter` keeps those inside the mild fences (zenbench's filter of paired
  differences).
* :func:`outlier_variance` -- from summary statistics alone (sample mean, sd, evaluations
  per sample), is the reported sd credible as the code's own variation, or can it only be
  explained by a few huge outliers (Boyer's "standard deviation blowup")?
"""

from __future__ import annotations

import math
from typing import ClassVar, Literal

import numpy as np
import pandas as pd

from tsanalyze._result import Finding, Result, result
from tsanalyze._typing import ArrayLike, Float64Array, Int64Array
from tsanalyze._validation import as_series_array
from tsanalyze.errors import InvalidArgumentError

__all__ = [
    "OutlierEffect",
    "OutlierVariance",
    "TukeyFences",
    "TukeyFilter",
    "classify_outlier_fraction",
    "outlier_variance",
    "tukey_fences",
    "tukey_filter",
]

OutlierEffect = Literal["unaffected", "slight", "moderate", "severe", "not-applicable"]

#: criterion's thresholds on the fraction of variance explained by outliers
_EFFECT_THRESHOLDS: tuple[tuple[float, OutlierEffect], ...] = (
    (0.01, "unaffected"),
    (0.1, "slight"),
    (0.5, "moderate"),
)


# --------------------------------------------------------------------------- Tukey fences
@result
class TukeyFences(Result):
    """Tukey-fence classification of a series (criterion.rs ``LabeledSample``).

    Attributes
    ----------
    n : int
        Number of samples classified.
    q1, q3, iqr : float
        First and third quartile (linear interpolation, numpy's default) and their
        difference.
    low_severe_fence, low_mild_fence, high_mild_fence, high_severe_fence : float
        ``q1 - 3 iqr``, ``q1 - 1.5 iqr``, ``q3 + 1.5 iqr``, ``q3 + 3 iqr`` (with the
        multipliers given).
    low_severe, low_mild, high_mild, high_severe : int
        Counts in each class; mild excludes severe (a value is in exactly one class).
    low_severe_idx, low_mild_idx, high_mild_idx, high_severe_idx : ndarray of int64
        0-based indices of the samples in each class, in series order.
    warnings : tuple of Finding
        E.g. ``"few-samples"`` when quartiles rest on fewer than 4 samples.
    """

    n: int
    q1: float
    q3: float
    iqr: float
    low_severe_fence: float
    low_mild_fence: float
    high_mild_fence: float
    high_severe_fence: float
    low_severe: int
    low_mild: int
    high_mild: int
    high_severe: int
    low_severe_idx: Int64Array
    low_mild_idx: Int64Array
    high_mild_idx: Int64Array
    high_severe_idx: Int64Array
    warnings: tuple[Finding, ...] = ()

    _headline: ClassVar[tuple[str, ...]] = (
        "n", "low_severe", "low_mild", "high_mild", "high_severe",
    )  # fmt: skip

    @property
    def n_outliers(self) -> int:
        """All samples outside the mild fences (mild + severe, low + high)."""
        return self.low_severe + self.low_mild + self.high_mild + self.high_severe

    @property
    def outlier_idx(self) -> Int64Array:
        """Sorted indices of every sample outside the mild fences."""
        return np.sort(
            np.concatenate(
                [self.low_severe_idx, self.low_mild_idx, self.high_mild_idx, self.high_severe_idx]
            )
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per class: ``label``, ``fence``, ``count``, ``fraction`` (of ``n``, as
        criterion.rs prints "2 (2.00%) high severe")."""
        counts = [self.low_severe, self.low_mild, self.high_mild, self.high_severe]
        return pd.DataFrame(
            {
                "label": ["low_severe", "low_mild", "high_mild", "high_severe"],
                "fence": [
                    self.low_severe_fence,
                    self.low_mild_fence,
                    self.high_mild_fence,
                    self.high_severe_fence,
                ],
                "count": counts,
                "fraction": [c / self.n for c in counts],
            }
        )


def _tukey_fences_iv(x: ArrayLike, mild: float, severe: float) -> Float64Array:
    for name, k in (("mild", mild), ("severe", severe)):
        if not (isinstance(k, (int, float)) and math.isfinite(k) and k > 0):
            raise InvalidArgumentError(f"{name}: must be a finite number > 0, got {k!r}")
    if severe < mild:
        raise InvalidArgumentError(f"severe: must be >= mild ({mild}), got {severe!r}")
    return as_series_array(x, "x", min_size=1)


def tukey_fences(x: ArrayLike, *, mild: float = 1.5, severe: float = 3.0) -> TukeyFences:
    """Classify samples with Tukey's fences: low/high × mild/severe.

    Parameters
    ----------
    x : array_like
        The samples (any unit), at least one, all finite.
    mild, severe : float
        Fence multipliers of the interquartile range (defaults 1.5 and 3, as Tukey and
        criterion.rs).

    Returns
    -------
    TukeyFences
        Fences, counts and indices of each class.

    Notes
    -----
    ``q1``, ``q3`` are the 25th and 75th percentiles with linear interpolation between
    order statistics (``numpy.percentile`` default; criterion.rs ``Percentiles`` and
    pyperf's ``percentile`` use the same rule). A value ``v`` is *low severe* if
    ``v < q1 - severe·iqr``, else *low mild* if ``v < q1 - mild·iqr``, *high severe* if
    ``v > q3 + severe·iqr``, else *high mild* if ``v > q3 + mild·iqr`` -- criterion.rs
    ``tukey::classify``. Values on a fence are not outliers. A constant series has
    ``iqr = 0``, and then any value different from the constant is an outlier.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (Tukey-fence filtering).
       https://github.com/imazen/zenbench
    .. [2] Tukey, J. W. (1977). Exploratory Data Analysis. Addison-Wesley.
    .. [3] criterion.rs, ``stats::univariate::outliers::tukey``
       (github.com/bheisler/criterion.rs).

    Examples
    --------
    >>> from tsanalyze.stats.outliers import tukey_fences
    >>> r = tukey_fences([10.0, 10.1, 10.2, 10.1, 10.0, 30.0])
    >>> r.high_severe, int(r.high_severe_idx[0])
    (1, 5)
    """
    arr = _tukey_fences_iv(x, mild, severe)
    q1, q3 = (float(v) for v in np.percentile(arr, [25.0, 75.0]))
    iqr = q3 - q1
    lo_s, lo_m = q1 - severe * iqr, q1 - mild * iqr
    hi_m, hi_s = q3 + mild * iqr, q3 + severe * iqr
    low_severe = arr < lo_s
    low_mild = (arr < lo_m) & ~low_severe
    high_severe = arr > hi_s
    high_mild = (arr > hi_m) & ~high_severe
    warnings: tuple[Finding, ...] = ()
    if arr.size < 4:
        warnings = (
            Finding(
                "few-samples",
                f"quartiles from only {arr.size} sample(s); fences are not meaningful",
                "warning",
            ),
        )

    def idx(mask: np.ndarray) -> Int64Array:
        return np.flatnonzero(mask).astype(np.int64)

    return TukeyFences(
        n=int(arr.size),
        q1=q1,
        q3=q3,
        iqr=iqr,
        low_severe_fence=lo_s,
        low_mild_fence=lo_m,
        high_mild_fence=hi_m,
        high_severe_fence=hi_s,
        low_severe=int(low_severe.sum()),
        low_mild=int(low_mild.sum()),
        high_mild=int(high_mild.sum()),
        high_severe=int(high_severe.sum()),
        low_severe_idx=idx(low_severe),
        low_mild_idx=idx(low_mild),
        high_mild_idx=idx(high_mild),
        high_severe_idx=idx(high_severe),
        warnings=warnings,
    )


@result
class TukeyFilter(Result):
    """The values inside Tukey's mild fences (a filter of paired differences).

    Attributes
    ----------
    keep : ndarray of bool
        True for values inside the fences (values on a fence are kept).
    low_mild_fence, high_mild_fence : float
        ``q1 - mild·iqr`` and ``q3 + mild·iqr``.
    mild : float
        The fence multiplier.
    n_removed : int
        Number of values outside the fences.
    """

    keep: np.ndarray
    low_mild_fence: float
    high_mild_fence: float
    mild: float
    n_removed: int


def tukey_filter(x: ArrayLike, *, mild: float = 1.5) -> TukeyFilter:
    """Keep the values inside Tukey's fences [q1 − mild·iqr, q3 + mild·iqr].

    Parameters
    ----------
    x : array_like
        Typically the per-round paired differences ``b - a``.
    mild : float
        Fence multiplier (1.5 by default, as zenbench).

    Returns
    -------
    TukeyFilter

    Notes
    -----
    The mild fences of :func:`tukey_fences`; a value is removed when it is a mild or a
    severe outlier on either side. Removing outlying differences suppresses
    context-switch spikes but can also hide a genuine bimodal slow path of one
    benchmark; callers should report ``n_removed``.

    References
    ----------
    .. [1] zenbench documentation, "Methodology" (step 1, "IQR outlier removal").
       https://github.com/imazen/zenbench
    .. [2] Tukey, J. W. (1977). Exploratory Data Analysis. Addison-Wesley.
    """
    if not (isinstance(mild, (int, float)) and mild > 0 and math.isfinite(mild)):
        raise InvalidArgumentError(f"mild: must be a positive number, got {mild!r}")
    tf = tukey_fences(x, mild=mild, severe=max(float(mild), 3.0))
    keep = np.ones(tf.n, dtype=bool)
    keep[tf.outlier_idx] = False
    return TukeyFilter(keep, tf.low_mild_fence, tf.high_mild_fence, float(mild), int((~keep).sum()))


# ------------------------------------------------------------------ σ-blowup (Boyer)
@result
class OutlierVariance(Result):
    """Boyer's (2008) standard-deviation-blowup model, with criterion's classes.

    Attributes
    ----------
    fraction : float
        Minimum fraction of the sample variance ``sd**2`` that outliers must explain
        (0 when the model does not apply); criterion's ``ovFraction``.
    effect : {"unaffected", "slight", "moderate", "severe", "not-applicable"}
        criterion's classification of ``fraction`` (< 1%, < 10%, < 50%, else severe).
    mean, sd, evals, t_min : float, float, int, float
        The inputs: sample (block) mean and sd, evaluations per sample, lower bound on one
        evaluation's time.
    mean_eval, sd_eval : float
        Per-evaluation ("action") statistics ``mean / evals`` and ``sd / sqrt(evals)``.
    mu_g_min, sigma_g : float
        The model's smallest Gaussian-part mean and its Gaussian sd.
    c_max_t_min, c_max_mu_g_min, c_max : int or None
        Largest outlier counts allowed by the two bounds, and their minimum.
    min_outlier_variance : float
        ``min(v(1), v(c_max))``, in the squared unit of ``sd``.
    warnings : tuple of Finding
        ``"sd-blowup"`` when the effect is moderate or severe; ``"not-applicable"`` with
        the reason otherwise when the model cannot be applied.

    References
    ----------
    .. [1] Boyer, B. (2008). Robust Java benchmarking: article supplement (section "Standard
       deviation outlier model"). http://www.ellipticgroup.com/misc/article_supplement.pdf
    .. [2] criterion (Haskell), ``Criterion.Analysis.outlierVariance``
       (github.com/haskell/criterion).
    """

    fraction: float
    effect: OutlierEffect
    mean: float
    sd: float
    evals: int
    t_min: float
    mean_eval: float
    sd_eval: float
    mu_g_min: float
    sigma_g: float
    c_max_t_min: int | None
    c_max_mu_g_min: int | None
    c_max: int | None
    min_outlier_variance: float
    warnings: tuple[Finding, ...] = ()

    _headline: ClassVar[tuple[str, ...]] = ("effect", "fraction", "evals")


def classify_outlier_fraction(fraction: float) -> OutlierEffect:
    """criterion's classification of the outlier variance fraction.

    ``< 0.01`` unaffected, ``< 0.1`` slight, ``< 0.5`` moderate, else severe.
    """
    for limit, label in _EFFECT_THRESHOLDS:
        if fraction < limit:
            return label
    return "severe"


def _outlier_variance_iv(
    mean: float, sd: float, evals: int, t_min: float
) -> tuple[float, float, int, float]:
    values: list[float] = []
    for name, v in (("mean", mean), ("sd", sd), ("t_min", t_min)):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{name}: must be a number, got {v!r}") from None
        if not math.isfinite(f):
            raise InvalidArgumentError(f"{name}: must be finite, got {v!r}")
        values.append(f)
    m, s, t = values
    if s < 0:
        raise InvalidArgumentError(f"sd: must be >= 0, got {sd!r}")
    if t < 0:
        raise InvalidArgumentError(f"t_min: must be >= 0, got {t_min!r}")
    if isinstance(evals, bool) or not isinstance(evals, (int, np.integer)) or int(evals) < 1:
        raise InvalidArgumentError(f"evals: must be an integer >= 1, got {evals!r}")
    if m > 0 and t >= m / int(evals):
        raise InvalidArgumentError(
            f"t_min: must be below the per-evaluation mean {m / int(evals)!r}, got {t_min!r}"
        )
    return m, s, int(evals), t


def outlier_variance(mean: float, sd: float, evals: int, t_min: float = 0.0) -> OutlierVariance:
    """How much of a reported sd must come from outliers (Boyer's σ-blowup model).

    Parameters
    ----------
    mean : float
        Mean time of one sample (one block of ``evals`` evaluations). A mean <= 0 (e.g.
        after an overhead correction larger than the time) gives "not-applicable".
    sd : float
        Standard deviation of the sample times, >= 0, same unit as ``mean``.
    evals : int
        Evaluations per sample (Boyer's ``a``), >= 1.
    t_min : float, default 0
        A lower bound on one evaluation's time, ``0 <= t_min < mean / evals``.

    Returns
    -------
    OutlierVariance
        The minimum fraction of ``sd**2`` that outliers must explain and criterion's
        classification of it, plus every intermediate quantity of the model.

    Notes
    -----
    Restated in DESIGN.md ("Boyer's σ-blowup outlier model"). With ``a = evals``:
    ``μ_A = mean/a``, ``σ_A = sd/√a``; ``μ_G,min = (t_min + μ_A)/2``;
    ``σ_G = min(μ_G,min/4, σ_A)``. For a bound ``x``: ``d = (μ_A − x)²``,
    ``k0 = −a² d``, ``k1 = sd² − a σ_G² + a d``,
    ``c_max(x) = ⌊−2 k0 / (k1 + √(k1² − 4 σ_G² k0))⌋``; ``c_max`` is the smaller of
    ``c_max(t_min)`` and ``c_max(μ_G,min)``. The outlier variance with ``c`` outliers is
    ``v(c) = ((a − c)/a)(sd² − (a − c) σ_G²)``, and the answer is
    ``f = min(v(1), v(c_max)) / sd²`` (a quadratic in ``c`` with negative leading
    coefficient, so its minimum over ``1..c_max`` is at an end point).

    The model needs ``a >= 2`` and ``sd > 0``; with ``a = 1`` there are no per-evaluation
    statistics to extract and the result is ``"not-applicable"`` with fraction 0, as is
    ``c_max < 1`` (no outlier count is consistent with the bounds) -- the cases in which
    Boyer's ``Benchmark`` skips the model. Deviation from criterion (Haskell), which
    fixes ``t_min = 0``: ``t_min`` is a parameter, and ``μ_G,min`` the midpoint between it
    and ``μ_A`` as DESIGN.md states (identical when ``t_min = 0``).

    References
    ----------
    .. [1] Boyer, B. (2008). Robust Java benchmarking: article supplement (section "Standard
       deviation outlier model"; worked example: a = 67108864, f = 99.60022873987793%).
       http://www.ellipticgroup.com/misc/article_supplement.pdf
    .. [2] criterion (Haskell), ``Criterion.Analysis.outlierVariance``
       (github.com/haskell/criterion).

    Examples
    --------
    >>> from tsanalyze import outlier_variance
    >>> r = outlier_variance(1.395522860870968, 0.0013859776344426547, 67108864)
    >>> r.c_max, r.effect
    (252560, 'severe')
    """
    m, s, a, t_min = _outlier_variance_iv(mean, sd, evals, t_min)
    mu_a = m / a
    sd_a = s / math.sqrt(a)
    mu_g_min = (t_min + mu_a) / 2.0
    sigma_g = min(mu_g_min / 4.0, sd_a)
    sb2 = s * s

    def result(
        fraction: float, effect: OutlierEffect, c1: int | None, c2: int | None,
        var_min: float, warnings: tuple[Finding, ...],
    ) -> OutlierVariance:  # fmt: skip
        return OutlierVariance(
            fraction=fraction, effect=effect, mean=m, sd=s, evals=a, t_min=t_min,
            mean_eval=mu_a, sd_eval=sd_a, mu_g_min=mu_g_min, sigma_g=sigma_g, c_max_t_min=c1,
            c_max_mu_g_min=c2, c_max=None if c1 is None or c2 is None else min(c1, c2),
            min_outlier_variance=var_min, warnings=warnings,
        )  # fmt: skip

    def not_applicable(
        reason: str, c1: int | None = None, c2: int | None = None
    ) -> OutlierVariance:
        note = Finding("not-applicable", reason, "info")
        return result(0.0, "not-applicable", c1, c2, 0.0, (note,))

    if m <= 0:
        return not_applicable(
            f"mean {m!r} is not positive (overhead-corrected times at or below zero?): "
            "the model needs positive times"
        )
    if a < 2:
        return not_applicable("one evaluation per sample: per-evaluation sd is the sample sd")
    if s == 0.0:
        return not_applicable("sd is 0: nothing to explain")

    # in units of sd (so sd**2 = 1): the squares of a tiny sd are subnormal and lose the
    # digits the differences below need (fraction -1/3 for sd = 3.5e-161)
    rho = (sigma_g / s) ** 2  # sigma_G^2 / sd^2, at most 1/a

    def c_max_at(x: float) -> int:
        with np.errstate(over="ignore"):
            dd = float(np.float64((mu_a - x) / s) ** 2)  # d / sd^2; inf when sd is tiny
        if dd == 0.0:
            return 0
        # c = -2 k0 / (k1 + sqrt(k1^2 - 4 sg2 k0)) = a - delta, numerator and denominator
        # divided by d and delta = a (den - 2a) / den written without the cancellation, so
        # that floor(c) = a - ceil(delta) stays a - 1 when delta is below a's last digit
        # (c reached a, and the fraction 0, for sd / mean below ~1e-8)
        inv = 1.0 / dd
        q = 1.0 - a * rho  # >= 0 up to rounding
        k1 = q * inv + a
        root = math.sqrt(k1 * k1 + 4.0 * rho * a * a * inv)
        excess = inv * (q + (q * (k1 + a) + 4.0 * rho * a * a) / (root + a))  # den - 2a
        delta = a * excess / (k1 + root)  # > 0 for every finite d (0 only if d overflowed)
        return a - max(1, math.ceil(delta))

    c1 = c_max_at(t_min)
    c2 = c_max_at(mu_g_min)
    c_max = min(c1, c2)
    if c_max < 1:
        return not_applicable(f"no outlier count fits the model (c_max = {c_max})", c1, c2)

    def v_out(c: int) -> float:  # v(c) / sd^2
        ac = a - c
        return (ac / a) * (1.0 - ac * rho)

    # in [0, 1] in exact arithmetic (rho <= 1/a, 1 <= c <= a); clipped for rounding
    fraction = min(max(min(v_out(1), v_out(c_max)), 0.0), 1.0)
    var_min = fraction * sb2
    effect = classify_outlier_fraction(fraction)
    warnings: tuple[Finding, ...] = ()
    if effect in ("moderate", "severe"):
        warnings = (
            Finding(
                "sd-blowup",
                f"outliers must explain at least {100 * fraction:.3g}% of the variance "
                f"({effect}); the sd is not credible as the code's own variation",
                "serious" if effect == "severe" else "warning",
            ),
        )
    return result(fraction, effect, c1, c2, var_min, warnings)
