"""Tests of the two-sample tests and effect sizes (tsanalyze.stats.two_sample)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from _helpers import benchstat_table, go_bench
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy import stats

from tsanalyze.errors import NotEnoughData
from tsanalyze.stats import two_sample as ts
from tsanalyze.stats.summary_tests import ci_overlap

DATA = Path(__file__).resolve().parents[1] / "data"


def _si(text: str) -> float:
    """'46.55n' -> 46.55 (ns); '15.014µ' -> 15014 (ns)."""
    scale = {"n": 1.0, "µ": 1e3, "m": 1e6}
    return float(text[:-1]) * scale[text[-1]]


# ------------------------------------------------------------------ Mann-Whitney


CRC_OLD = go_bench(DATA / "benchstat" / "crc-old.txt")
CRC_NEW = go_bench(DATA / "benchstat" / "crc-new.txt")
# name -> (old median, new median, p) as printed
CRC_GOLDEN = {
    k: (old, new, p)
    for k, (old, new, _, p) in benchstat_table(DATA / "benchstat" / "crcIgnore.stdout").items()
}


def test_crc_golden_parsed_completely() -> None:
    # benchstat testdata crcIgnore golden output: 36 benchmarks in the sec/op table
    assert len(CRC_GOLDEN) == 36
    assert set(CRC_GOLDEN) == set(CRC_OLD) == set(CRC_NEW)


@pytest.mark.parametrize("name", sorted(CRC_GOLDEN))
def test_mann_whitney_matches_benchstat_crc(name: str) -> None:
    # benchstat testdata crcIgnore golden output (medians and Mann-Whitney p per row)
    old_med, new_med, p_printed = CRC_GOLDEN[name]
    x, y = CRC_OLD[name], CRC_NEW[name]
    assert np.median(x) == pytest.approx(_si(old_med), rel=5e-4)
    assert np.median(y) == pytest.approx(_si(new_med), rel=5e-4)
    res = ts.mann_whitney(x, y)
    assert res.method == "exact"
    # benchstat prints p to 3 decimals; the issue allows 0.005
    assert abs(res.pvalue - p_printed) <= 0.0005 + 1e-12


def test_mann_whitney_benchstat_tie_handling_vs_scipy() -> None:
    # benchstat testdata crcIgnore golden output: IEEE/size=15/align=0 p=0.008;
    # scipy's exact p (ties ignored) is 0.009 (PROVENANCE.md "Observed here")
    x, y = CRC_OLD["CRC32/poly=IEEE/size=15/align=0"], CRC_NEW["CRC32/poly=IEEE/size=15/align=0"]
    ours = ts.mann_whitney(x, y).pvalue
    scipy_exact = stats.mannwhitneyu(x, y, method="exact").pvalue
    assert round(ours, 3) == 0.008
    assert round(scipy_exact, 3) == 0.009


def test_mann_whitney_old_new_json_gob() -> None:
    # benchstat testdata csvOldNew golden output: json p=0.000, gob p=0.446
    old, new = go_bench(DATA / "benchstat" / "old.txt"), go_bench(DATA / "benchstat" / "new.txt")
    pj = ts.mann_whitney(old["Encode/format=json"], new["Encode/format=json"]).pvalue
    pg = ts.mann_whitney(old["Encode/format=gob"], new["Encode/format=gob"]).pvalue
    assert round(pj, 3) == 0.0
    assert abs(pg - 0.446) <= 0.0005
    # benchstat csvOldNew: medians 1.718e-06 -> 1.4225e-06 s and 3.0655e-06 -> 3.07e-06 s
    assert np.median(old["Encode/format=json"]) == pytest.approx(1718.0)
    assert np.median(new["Encode/format=json"]) == pytest.approx(1422.5)
    assert np.median(old["Encode/format=gob"]) == pytest.approx(3065.5)
    assert np.median(new["Encode/format=gob"]) == pytest.approx(3070.0)


@pytest.mark.parametrize("seed", range(5))
def test_mann_whitney_exact_equals_scipy_without_ties(seed: int) -> None:
    # reference: scipy.stats.mannwhitneyu(method="exact"), valid when there are no ties
    gen = np.random.default_rng(seed)
    x, y = gen.normal(0, 1, 9 + seed), gen.normal(0.5, 1, 12)
    ours = ts.mann_whitney(x, y, method="exact")
    ref = stats.mannwhitneyu(x, y, method="exact")
    assert ours.statistic == pytest.approx(ref.statistic)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_mann_whitney_exact_with_ties_equals_full_enumeration() -> None:
    # reference: brute-force permutation distribution of the midrank sum over all
    # C(12, 5) assignments (independent of the dynamic programme)
    x = np.array([1.0, 2.0, 2.0, 3.0, 5.0])
    y = np.array([2.0, 3.0, 3.0, 4.0, 5.0, 6.0, 6.0])
    z = np.concatenate([x, y])
    r = stats.rankdata(z)
    obs = r[:5].sum()
    sums = np.array([r[list(c)].sum() for c in itertools.combinations(range(12), 5)])
    ref = min(1.0, 2 * min(np.mean(sums <= obs + 1e-9), np.mean(sums >= obs - 1e-9)))
    assert ts.mann_whitney(x, y, method="exact").pvalue == pytest.approx(ref, rel=1e-12)


def test_mann_whitney_asymptotic_is_scipy() -> None:
    # reference: scipy.stats.mannwhitneyu(method="asymptotic") (tie + continuity corrections)
    gen = np.random.default_rng(1)
    x, y = gen.integers(0, 20, 80).astype(float), gen.integers(2, 22, 90).astype(float)
    res = ts.mann_whitney(x, y)
    assert res.method == "asymptotic"  # ties and n > 25
    assert res.pvalue == pytest.approx(stats.mannwhitneyu(x, y, method="asymptotic").pvalue)


def test_mann_whitney_ranks_and_asymptotic_pvalue_are_scipys_to_the_bit() -> None:
    # reference: scipy's rankdata, np.unique and mannwhitneyu(method="asymptotic"); the
    # test computes them from one sort of its own (issue 24) and must give the same bits
    from tsanalyze.stats._ranks import midranks

    gen = np.random.default_rng(5)
    for step in (1e-3, 1.0, 7.0, 1e9):  # no ties ... nearly all tied
        for n1, n2 in ((1, 2), (30, 70), (300, 260)):
            x = np.round(gen.lognormal(size=n1) * 10 / step) * step + 1
            y = np.round(gen.lognormal(size=n2) * 12 / step) * step + 1
            z = np.concatenate([x, y])
            ranks, counts = midranks(z)
            assert np.array_equal(ranks, stats.rankdata(z))
            assert np.array_equal(counts, np.unique(z, return_counts=True)[1])
            if counts.size > 1:
                ref = stats.mannwhitneyu(x, y, method="asymptotic").pvalue
                assert ts.mann_whitney(x, y, method="asymptotic").pvalue == ref


def test_mann_whitney_edge_cases() -> None:
    res = ts.mann_whitney([1.0, 1.0], [1.0, 1.0, 1.0])
    assert math.isnan(res.pvalue) and res.warning_codes == ("no-variance",)
    # one value each side: the only two orderings are equally likely -> p = 1
    assert ts.mann_whitney([1.0], [2.0]).pvalue == 1.0
    with pytest.raises(NotEnoughData):
        ts.mann_whitney([], [1.0])
    with pytest.raises(ValueError, match="b: value at index 1"):
        ts.mann_whitney([1.0, 2.0], [1.0, np.nan])
    with pytest.raises(ValueError, match="method"):
        ts.mann_whitney([1.0, 2.0], [1.0, 3.0], method="fast")  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(
    hst.lists(hst.integers(0, 30), min_size=1, max_size=9),
    hst.lists(hst.integers(0, 30), min_size=1, max_size=9),
)
def test_mann_whitney_pvalue_in_unit_interval_and_symmetric(xs: list[int], ys: list[int]) -> None:
    x, y = np.array(xs, float), np.array(ys, float)
    r1, r2 = ts.mann_whitney(x, y), ts.mann_whitney(y, x)
    if math.isnan(r1.pvalue):
        assert len(set(xs + ys)) == 1
        return
    assert 0.0 < r1.pvalue <= 1.0
    assert r1.pvalue == pytest.approx(r2.pvalue, rel=1e-9)
    assert r1.statistic + r2.statistic == pytest.approx(len(xs) * len(ys))


# ------------------------------------------------------------------ Welch


def test_welch_on_blocks_equals_scipy_ttest() -> None:
    # reference: scipy.stats.ttest_ind(equal_var=False) on hand-made block means
    gen = np.random.default_rng(3)
    x, y = gen.normal(100, 5, 400), gen.normal(101, 7, 300)
    res = ts.welch_subsession(x, y, block_size_a=4, block_size_b=3)
    ref = stats.ttest_ind(y.reshape(-1, 3).mean(1), x.reshape(-1, 4).mean(1), equal_var=False)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    assert res.df == pytest.approx(ref.df)
    assert (res.n_a, res.n_b) == (100, 100)
    ci = ref.confidence_interval(0.95)
    assert (res.diff_ci_low, res.diff_ci_high) == pytest.approx((ci.low, ci.high))


def test_welch_inflation_by_residual_lag1() -> None:
    # reference: the variance factor (1 + r)/(1 - r) applied by hand, then Welch's
    # formulas through scipy.stats.ttest_ind_from_stats
    from tsanalyze.stats.autocorrelation import lag1

    gen = np.random.default_rng(4)
    from scipy.signal import lfilter

    x = lfilter([1.0], [1.0, -0.95], gen.normal(0, 1, 600)) + 100
    y = lfilter([1.0], [1.0, -0.95], gen.normal(0, 1, 600)) + 100
    bx, by = x.reshape(-1, 10).mean(1), y.reshape(-1, 10).mean(1)

    def factor(b: np.ndarray) -> float:
        # lag-1 corrected for its bias (Marriott & Pope 1954), clipped at 0.9
        r = min((b.size * lag1(b) + 1) / (b.size - 4), 0.9)
        return max(1.0, (1 + r) / (1 - r))

    fx, fy = factor(bx), factor(by)
    ref = stats.ttest_ind_from_stats(
        by.mean(), by.std(ddof=1) * math.sqrt(fy), by.size,
        bx.mean(), bx.std(ddof=1) * math.sqrt(fx), bx.size, equal_var=False,
    )  # fmt: skip
    res = ts.welch_subsession(x, y, block_size_a=10, block_size_b=10, inflate=True)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    plain = ts.welch_subsession(x, y, block_size_a=10, block_size_b=10)
    assert 0 < lag1(bx) < 0.9 and 0 < lag1(by) < 0.9  # inside the factor's clipping
    assert abs(plain.statistic) > abs(res.statistic)


def test_welch_finds_subsession_size_for_ar1() -> None:
    from tsanalyze.datasets import simulate_series

    x = simulate_series(2000, noise="gaussian", phi=0.8, rng=1).x
    y = simulate_series(2000, noise="gaussian", phi=0.8, rng=2).x
    res = ts.welch_subsession(x, y)
    assert res.block_size_a > 1 and res.block_size_b > 1
    assert res.n_a == 2000 // res.block_size_a


def test_welch_pyperformance_pooled_t_semantics() -> None:
    # pyperformance telco: "Significant (t=44.97)" is a pooled Student t with equal n;
    # with block size 1 our Welch t equals it up to sign when n_a == n_b (equal-n identity)
    import json

    def values(p: Path) -> np.ndarray:
        d = json.loads(p.read_text())
        return np.array([v for r in d["benchmarks"][0]["runs"] for v in r.get("values", [])])

    x = values(DATA / "pyperformance" / "py36.json")
    y = values(DATA / "pyperformance" / "py38.json")
    res = ts.welch_subsession(x, y, block_size_a=1, block_size_b=1)
    # pyperformance tests/test_commands.py: Significant (t=44.97)
    assert -res.statistic == pytest.approx(44.97, abs=0.005)


def test_welch_too_few_blocks_warns() -> None:
    res = ts.welch_subsession([1.0], [2.0, 3.0], block_size_a=1, block_size_b=1)
    assert math.isnan(res.pvalue) and "too-few-blocks" in res.warning_codes
    res = ts.welch_subsession([1.0, 1.0], [1.0, 1.0], block_size_a=1, block_size_b=1)
    assert math.isnan(res.pvalue) and "no-variance" in res.warning_codes
    with pytest.raises(ValueError, match="block_size_a"):
        ts.welch_subsession([1.0, 2.0], [1.0, 2.0], block_size_a=0)


# ------------------------------------------------------------------ effect sizes


def test_hodges_lehmann_against_brute_force() -> None:
    # reference: median of all pairwise differences computed with itertools
    x = [1.0, 4.0, 2.0, 8.0]
    y = [3.0, 5.0, 10.0]
    ref = float(np.median([b - a for a, b in itertools.product(x, y)]))
    assert ts.hodges_lehmann(x, y) == ref


def test_hodges_lehmann_large_n_approximation_is_close() -> None:
    gen = np.random.default_rng(0)
    x, y = gen.exponential(1, 3000), gen.exponential(1, 3000) + 0.25
    approx = ts.hodges_lehmann(x, y)  # 9e6 pairs: quantile summary path
    exact = float(np.median(np.subtract.outer(y, x)))
    assert abs(approx - exact) < 0.005


def test_cohens_d_unpaired_matches_formula() -> None:
    # reference: textbook pooled-sd formula written out
    x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([3.0, 4.0, 6.0])
    sp = math.sqrt((3 * x.var(ddof=1) + 2 * y.var(ddof=1)) / 5)
    assert ts.cohens_d(x, y) == pytest.approx((y.mean() - x.mean()) / sp)
    assert math.isnan(ts.cohens_d([1.0, 1.0], [1.0, 1.0]))
    assert math.isnan(ts.cohens_d([1.0], [2.0]))


def test_cohens_d_paired_zenbench_definition() -> None:
    # seed 002: d = mean_diff / pooled_sd
    x, y = np.array([10.0, 11.0, 12.0, 13.0]), np.array([11.0, 12.5, 12.0, 15.0])
    sp = math.sqrt((x.var(ddof=1) + y.var(ddof=1)) / 2)
    assert ts.cohens_d(x, y, paired=True) == pytest.approx(np.mean(y - x) / sp)
    with pytest.raises(ValueError, match="equal lengths"):
        ts.cohens_d(x, y[:3], paired=True)


@settings(max_examples=30, deadline=None)
@given(
    hst.lists(hst.floats(1, 1000), min_size=3, max_size=30),
    hst.lists(hst.floats(1, 1000), min_size=3, max_size=30),
    hst.floats(0.01, 100),
)
def test_effect_sizes_scale_properly(xs: list[float], ys: list[float], c: float) -> None:
    x, y = np.array(xs), np.array(ys)
    hl = ts.hodges_lehmann(x, y)
    assert ts.hodges_lehmann(c * x, c * y) == pytest.approx(c * hl, rel=1e-9, abs=1e-9)
    d = ts.cohens_d(x, y)
    if math.isfinite(d) and np.ptp(np.concatenate([x, y])) > 1e-6:
        assert ts.cohens_d(c * x, c * y) == pytest.approx(d, rel=1e-6, abs=1e-9)


def test_ci_overlap() -> None:
    assert ci_overlap(1.0, 2.0, 1.5, 3.0)
    assert ci_overlap(1.0, 2.0, 2.0, 3.0)
    assert not ci_overlap(1.0, 2.0, 2.1, 3.0)


@pytest.mark.parametrize("kind", ["grid", "normal", "constant-side", "heavy-tails", "tiny"])
def test_median_of_differences_is_exactly_numpys_median_of_all_pairs(kind: str) -> None:
    from tsanalyze.stats.two_sample import _bracketed_median, median_of_differences

    g = np.random.default_rng(len(kind))
    for _ in range(30):
        p, q = (int(v) for v in g.integers(230, 1400, 2))
        if kind == "grid":  # integer ns: many equal differences
            x, y = np.round(g.exponential(10, p)) + 1000, np.round(g.exponential(10, q)) + 1003
        elif kind == "normal":
            x, y = g.normal(0, 1, p), g.normal(0.3, 2, q)
        elif kind == "constant-side":
            x, y = np.full(p, 5.0), np.round(g.normal(5, 1, q))
        elif kind == "heavy-tails":
            x = g.standard_t(2, p) * 1e6 + 1e9
            y = g.standard_t(2, q) * 1e6 + 1e9 + 1e4
        else:  # differences near the last bits of large values
            x = 1e12 + g.integers(0, 3, p) * 1e-4
            y = 1e12 + g.integers(0, 3, q) * 1e-4
        ref = float(np.median(np.subtract.outer(y, x)))
        assert median_of_differences(x, y) == ref
        # and by the bracket, not by the fallback that forms every pair
        assert _bracketed_median(np.sort(x), np.sort(y)) == ref


def test_the_compiled_walk_finds_the_columns_bisection_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 24: the bracket's counts by one walk over both sorted samples (numba) against
    # the bisection per row (the path without numba), on ties and on the last bits
    from tsanalyze.stats import two_sample

    g = np.random.default_rng(5)
    for trial in range(40):
        p, q = (int(v) for v in g.integers(1, 300, 2))
        if trial % 2:
            xs, ys = np.sort(np.round(g.normal(0, 3, p))), np.sort(np.round(g.normal(1, 3, q)))
        else:
            xs = np.sort(1e12 + g.integers(0, 3, p) * 1e-4)
            ys = np.sort(1e12 + g.integers(0, 3, q) * 1e-4)
        d = np.subtract.outer(ys, xs).ravel()
        for t in (float(g.choice(d)), float(np.median(d)), float(d.min()) - 1, float(d.max()) + 1):
            for strict in (False, True):
                walk = two_sample._first_at_most_walk(ys, xs, t, strict)
                monkeypatch.setattr(two_sample, "HAVE_NUMBA", False)
                bisect = two_sample.first_at_most(ys, xs, t, strict)
                monkeypatch.setattr(two_sample, "HAVE_NUMBA", True)
                assert np.array_equal(walk, bisect)
                if two_sample.HAVE_NUMBA:
                    assert np.array_equal(two_sample.first_at_most(ys, xs, t, strict), bisect)


def test_exact_rank_sum_distribution_is_kept_and_matches_enumeration() -> None:
    """The null distribution of the (doubled) midrank sum depends on the tie pattern and
    n1 only, so it is kept (read-only) for the next test; it equals the enumeration of
    every choice of n1 of the pooled values."""
    counts, n1 = np.array([1, 2, 1, 3, 1]), 3
    support, prob = ts._exact_rank_sum_distribution(counts, n1)
    twice_mid = np.repeat(2 * np.cumsum(counts) - counts + 1, counts)
    choices = list(itertools.combinations(twice_mid.tolist(), n1))
    expected = np.zeros(support.size)
    for c in choices:
        expected[sum(c)] += 1.0 / len(choices)
    np.testing.assert_allclose(prob, expected, atol=1e-15)
    again = ts._exact_rank_sum_distribution(counts.copy(), n1)
    assert again[1] is prob  # kept, not computed again
    assert not prob.flags.writeable and not support.flags.writeable
    assert ts._exact_rank_sum_distribution(counts, 2)[1] is not prob
