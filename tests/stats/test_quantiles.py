"""Order-statistic quantile intervals: benchstat's ± output reproduced."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from tsanalyze.errors import NotEnoughData
from tsanalyze.stats.quantiles import order_statistic_ranks, quantile_ci

DATA = Path(__file__).resolve().parents[1] / "data" / "benchstat"


def _values(path: Path, unit: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"Benchmark(\S+?)-\d+\s+\d+\s+.*?([\d.]+) " + re.escape(unit), line)
            if m:
                out.setdefault(m.group(1), []).append(float(m.group(2)))
    return out


def _golden_rows() -> list[tuple[str, str, str, str]]:
    """(unit, benchmark, old ±%, new ±%) from benchstat's crcIgnore golden output."""
    rows = []
    text = (DATA / "crcIgnore.stdout").read_text(encoding="utf-8")
    for table in text.split("\n\n"):
        unit = "ns/op" if "sec/op" in table else ("MB/s" if "B/s" in table else None)
        if unit is None:
            continue
        for line in table.splitlines():
            m = re.match(r"(CRC32\S+)-8\s+\S+ ± (\d+)%\s+\S+ ± (\d+)%", line)
            if m:
                rows.append((unit, m.group(1), m.group(2), m.group(3)))
    return rows


def test_benchstat_crcignore_plus_minus_reproduced() -> None:
    # benchstat testdata crcIgnore golden output (golang/perf 712aea8b, BSD-3-Clause)
    rows = _golden_rows()
    assert len(rows) == 72  # 36 benchmarks x (sec/op, B/s)
    olds = {u: _values(DATA / "crc-old.txt", u) for u in ("ns/op", "MB/s")}
    news = {u: _values(DATA / "crc-new.txt", u) for u in ("ns/op", "MB/s")}
    mismatches = []
    for unit, name, old_pct, new_pct in rows:
        for vals, pct in ((olds[unit][name], old_pct), (news[unit][name], new_pct)):
            q = quantile_ci(vals, confidence_level=0.95)
            if f"{100 * q.relative_halfwidth:.0f}" != pct:
                mismatches.append((unit, name, q.relative_halfwidth, pct))
    assert mismatches == []


def test_benchstat_crc_first_row_exact_values() -> None:
    # crcIgnore golden output, first row: 46.55n ± 9% (old), 44.40n ± 2% (new)
    old = _values(DATA / "crc-old.txt", "ns/op")["CRC32/poly=IEEE/size=15/align=0"]
    q = quantile_ci(old)
    assert q.estimate == pytest.approx(46.55)
    # n = 10 at 95%: orders 2 and 9 (exact binomial search), coverage 97.85%
    assert (q.lo_order, q.hi_order) == (2, 9)
    assert q.achieved_confidence == pytest.approx(binom(10, 0.5).cdf(8) - binom(10, 0.5).cdf(1))
    assert q.ci_low == sorted(old)[1] and q.ci_high == sorted(old)[8]


def test_small_sample_is_unbounded_like_benchstat() -> None:
    # benchstat testdata smallSample golden output: "± ∞ ... need >= 6 samples for
    # confidence interval at level 0.95"
    q = quantile_ci([100.0])
    assert q.ci_low == -math.inf and q.ci_high == math.inf
    assert q.relative_halfwidth == math.inf
    assert "ci-unbounded" in [w.code for w in q.warnings]
    assert ">= 6" in q.warnings[0].message
    assert not math.isfinite(quantile_ci(np.arange(1.0, 6.0)).ci_high)
    six = quantile_ci(np.arange(1.0, 7.0))
    assert (six.ci_low, six.ci_high) == (1.0, 6.0) and six.warnings == ()


@pytest.mark.parametrize("n", [2, 7, 10, 25, 30])
@pytest.mark.parametrize("q", [0.5, 0.1, 0.9])
def test_exact_ranks_reach_level_with_binomial_coverage(n: int, q: float) -> None:
    r = order_statistic_ranks(n, q, 0.9)
    # coverage of [X_(l), X_(r)) is P(l <= K < r), K ~ Binomial(n, q) (scipy)
    cov = binom(n, q).cdf(r.hi_order - 1) - binom(n, q).cdf(r.lo_order - 1)
    assert r.confidence == pytest.approx(cov, rel=1e-9)
    assert r.confidence >= 0.9 or (r.lo_order == 0 and r.hi_order == n + 1)


@pytest.mark.parametrize("n", [31, 100, 2000, 10**6])
def test_normal_approximation_ranks(n: int) -> None:
    r = order_statistic_ranks(n, 0.5, 0.95)
    half = 1.959964 * math.sqrt(n) / 2
    assert abs((r.hi_order - r.lo_order) / 2 - half) <= 1.5
    # the binomial coverage of the chosen orders is close to 95% (discreteness at small n)
    cov = binom(n, 0.5).cdf(r.hi_order - 1) - binom(n, 0.5).cdf(r.lo_order - 1)
    assert cov == pytest.approx(0.95, abs=0.025 if n < 100 else 0.005)


def test_effective_n_widens_interval() -> None:
    x = np.random.default_rng(1).normal(size=2000)
    full = quantile_ci(x)
    half = quantile_ci(x, effective_sample_size=500)
    assert half.effective_sample_size == 500
    assert half.ci_low < full.ci_low and half.ci_high > full.ci_high
    # width on the rank scale grows by about sqrt(2000 / 500) = 2
    ratio = (half.hi_order - half.lo_order) / (full.hi_order - full.lo_order)
    assert ratio == pytest.approx(2.0, rel=0.1)
    assert quantile_ci(x, effective_sample_size=5000).effective_sample_size == 2000  # capped at n


def test_quantile_ci_validation() -> None:
    with pytest.raises(NotEnoughData):
        quantile_ci([])
    with pytest.raises(ValueError, match="q"):
        quantile_ci([1.0, 2.0], q=1.5)
    with pytest.raises(ValueError, match="effective_sample_size"):
        quantile_ci([1.0, 2.0], effective_sample_size=0)
    with pytest.raises(ValueError, match="confidence_level"):
        quantile_ci([1.0, 2.0], confidence_level=1.0)
    with pytest.raises(ValueError, match="n"):
        order_statistic_ranks(0, 0.5, 0.95)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 300),
    scale=st.floats(1e-3, 1e6),
)
def test_interval_brackets_median_and_is_scale_equivariant(seed: int, n: int, scale: float) -> None:
    x = 1e9 + np.random.default_rng(seed).standard_normal(n)
    a = quantile_ci(x)
    b = quantile_ci(x * scale)
    assert a.ci_low <= a.estimate <= a.ci_high
    assert (a.lo_order, a.hi_order) == (b.lo_order, b.hi_order)
    if math.isfinite(a.ci_low):
        assert b.ci_low == pytest.approx(a.ci_low * scale, rel=1e-12)
