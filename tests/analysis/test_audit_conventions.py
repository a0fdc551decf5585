"""Each tool's conventions and each check of issue 16, one test apiece.

Every test here fails on the audit before issue 16 (it could not read the format, read
the spread by the wrong convention, or reached the opposite verdict).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from tsanalyze import audit
from tsanalyze.analysis.audit import Audit
from tsanalyze.analysis.audit._claims import welch_from_se
from tsanalyze.io.audit_input import read_audit_file

AUDIT = Path(__file__).resolve().parents[1] / "data" / "audit"
FORMATS = AUDIT / "formats"


def _audit(name: str, **kw: Any) -> Audit:
    got = read_audit_file(FORMATS / name if (FORMATS / name).exists() else AUDIT / name)
    return audit(got.rows, notes=got.notes, **kw)


def _row(a: Audit, name: str) -> Any:
    return a.rows.set_index("name").loc[name]


def _codes(a: Audit, name: str, other: str | None = None) -> dict[str, str]:
    return {f.code: f.severity for f in a.findings if f.name == name and f.other == other}


# --------------------------------------------------------------- tool conventions
def test_jmh_error_is_a_999_percent_ci_half_width_over_cnt() -> None:
    a = _audit("jmh.txt", clock_overhead_ns=0.0)
    r = _row(a, "ListBench.linkedList(10)")
    # reference: JMH getMeanErrorAt(0.999) = t(0.9995, Cnt − 1) sd / √Cnt, Cnt = 25
    t = stats.t.ppf(0.9995, 24)
    assert r["se"] == pytest.approx(0.415 / t, rel=1e-12)
    assert r["sd"] == pytest.approx(0.415 / t * 5.0, rel=1e-12)
    assert r["sd_source"] == "ci" and r["n"] == 25


def test_hyperfine_pm_is_an_sd() -> None:
    a = _audit("hyperfine_console.txt")
    r = _row(a, "fd -e jpg")
    # hyperfine prints mean ± σ of the runs: the sd as printed
    assert r["sd"] == pytest.approx(4.3e6) and r["sd_source"] == "sd" and r["n"] == 10


def test_criterion_numbers_are_a_ci_of_the_mean_within_one_run() -> None:
    a = _audit("criterion.txt")
    r = _row(a, "fib 20")
    # [26.029 µs 26.251 µs 26.505 µs] is a 95% CI of the mean of n = 100 samples
    se = (26.505 - 26.029) / 2 / stats.t.ppf(0.975, 99) * 1e3
    assert r["se"] == pytest.approx(se, rel=1e-12)
    assert r["sd"] == pytest.approx(se * 10.0, rel=1e-12)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((26029.0, 26505.0))


def test_benchstat_v1_pm_is_the_largest_deviation_from_the_mean() -> None:
    a = _audit("benchstat_v1_oldnew.golden")
    r = _row(a, "CRC32/poly=IEEE/size=15/align=0-8 [base]")
    # "46.9ns ± 8%" with n = 10: sd <= maxdev √(n/(n−1))
    assert r["sd"] == pytest.approx(0.08 * 46.9 * math.sqrt(10 / 9), rel=1e-12)
    assert r["sd_source"] == "range-bound"


def test_libtest_pm_is_max_minus_min_and_bounds_the_sd() -> None:
    a = _audit("libtest.txt")
    r = _row(a, "argon::energy")
    assert r["sd"] == pytest.approx(10025 / 2 * math.sqrt(50 / 49), rel=1e-12)
    assert r["sd_source"] == "span-bound" and r["location_kind"] == "median"
    # the bound holds for any sample: numpy reference on 300 skewed samples of 50
    rng = np.random.default_rng(3)
    x = rng.lognormal(0.0, 0.4, size=(300, 50))
    span = x.max(axis=1) - x.min(axis=1)
    assert np.all(x.std(axis=1, ddof=1) <= span / 2 * math.sqrt(50 / 49) * (1 + 1e-12))


def test_batched_tools_give_no_false_timer_warnings() -> None:
    # crcIgnore (benchstat v2) timed b.N iterations per clock read: before issue 16 the
    # audit assumed one evaluation per read and raised 74 timer warnings on it
    for name in ("benchstat_crcIgnore.stdout", "benchstat_v1_oldnew.golden"):
        a = _audit(name)
        assert not any(f.code.startswith("timer-overhead") for f in a.findings)
        assert not any(f.code == "difference-timer-artifact" for f in a.findings)
        assert sum(f.code == "timer-batched" for f in a.findings) == 1
    # go test prints b.N: the check uses it (1 s batches: nothing to flag)
    a = _audit("go_test.txt")
    assert not any(f.code == "timer-overhead" for f in a.findings)


# ------------------------------------------------------------- printed precision
def test_plus_minus_zero_percent_is_below_half_a_percent_not_zero() -> None:
    a = _audit("benchstat_v1_benchmem.txt")
    c = a.comparisons.set_index("name").loc["alloc/op: Decode-4 [new]"]
    # "1.89GB ± 0%  1.88GB ± 0%  -0.11%": with sd = 0 this was t = ∞, p = 0; the spread
    # is below 0.5%, and -0.11% cannot be told from that
    assert not c["significant"]
    assert c["pvalue_bound"] > 0.05
    assert (
        _codes(a, "alloc/op: Decode-4 [new]", "alloc/op: Decode-4 [base]")["difference-unconfirmed"]
        == "warning"
    )
    assert "spread-rounded" in _codes(a, "alloc/op: Decode-4 [base]")


def test_display_rounding_cannot_make_a_difference_significant() -> None:
    rows = [
        {"name": "a", "location": "1.9", "spread": "0.1", "unit": "ms", "n": 20, "compare_to": "b"},
        {"name": "b", "location": "1.8", "spread": "0.1", "unit": "ms", "n": 20},
    ]
    a = audit(rows, clock_overhead_ns=0.0)
    c = a.comparisons.iloc[0]
    # at the printed values p is small; but 1.9 and 1.8 printed to 0.1 ms may both be 1.85
    assert c["pvalue"] < 0.01
    assert c["pvalue_bound"] == pytest.approx(1.0) and not c["significant"]
    # exact numbers (as_printed=False) keep the old reading
    assert bool(
        audit(rows, clock_overhead_ns=0.0, as_printed=False).comparisons["significant"].iloc[0]
    )


def test_rounding_keeps_the_false_alarm_rate_below_alpha() -> None:
    # Monte-Carlo size check: equal true means (2.0 ms), sd 5%, n = 15; means and sds
    # printed as hyperfine does (0.1 ms); the audit may call at most α of them significant
    rng = np.random.default_rng(11)
    reps, n, hits = 200, 15, 0
    x = rng.normal(2.0, 0.1, size=(reps, 2, n))
    for i in range(reps):
        m, s = x[i].mean(axis=1), x[i].std(axis=1, ddof=1)
        rows = [
            {"name": "a", "location": f"{m[0]:.1f}", "spread": f"{s[0]:.1f}", "unit": "ms",
             "n": n, "compare_to": "b"},
            {"name": "b", "location": f"{m[1]:.1f}", "spread": f"{s[1]:.1f}", "unit": "ms", "n": n},
        ]  # fmt: skip
        hits += bool(audit(rows, clock_overhead_ns=0.0).comparisons["significant"].iloc[0])
    assert hits / reps <= 0.05


# ---------------------------------------------------------- variation and outliers
def _var_severity(a: Audit, name: str) -> int:
    rank = {"info": 0, "warning": 1, "serious": 2}
    codes = {"high-variation", "sd-blowup", "sample-drift", "as-variable-as"}
    return max(
        (rank[f.severity] for f in a.findings if f.name == name and f.code in codes), default=-1
    )


def test_the_outlier_model_is_never_silent_when_things_get_worse() -> None:
    # mean 290 ns, 1000 evals per sample: sd 20 ns gave a serious σ-blowup, sd 214 ns
    # (ten times worse, c_max = 0) gave nothing
    rows = [
        {"name": "tight", "location": 290.0, "spread": 20.0, "n": 100, "evals": 1000},
        {"name": "wide", "location": 290.0, "spread": 214.0, "n": 100, "evals": 1000},
    ]
    a = audit(rows, clock_overhead_ns=0.0)
    assert _var_severity(a, "wide") == 2  # serious
    assert _var_severity(a, "wide") >= _var_severity(a, "tight")
    assert _codes(a, "wide")["high-variation"] == "serious"


def test_tight_rows_are_not_called_serious() -> None:
    # CV 2.7% at 1000 evals per sample: Boyer's model says "severe", but the mean holds
    a = audit([{"name": "t", "location": 290.0, "spread": 7.83, "n": 100, "evals": 1000}],
              clock_overhead_ns=0.0)  # fmt: skip
    assert _codes(a, "t")["sd-blowup"] == "warning"
    assert not a.serious


def test_cv_check_flags_rows_whose_sd_rivals_the_mean() -> None:
    # alog: sd 74% of the mean, 512 evals per sample
    a = audit([{"name": "alog", "location": 290.1, "spread": 214.7, "n": 10000, "evals": 512}],
              clock_overhead_ns=0.0)  # fmt: skip
    assert _codes(a, "alog")["high-variation"] == "serious"
    # pytest-benchmark test_noisy: CV 82% over 418 rounds
    b = _audit("pytest_benchmark.txt")
    assert _codes(b, "test_noisy")["high-variation"] == "serious"


def test_gc_share_and_max_over_min_checks() -> None:
    a = audit(
        [
            {"name": "gc", "location": 1.0, "unit": "us", "spread": 0.01, "n": 50, "gc_share": "61%"},
            {"name": "spiky", "location": 1.0, "unit": "us", "spread": 0.01, "n": 50, "min": 0.9,
             "max": 12.0},
        ],
        clock_overhead_ns=0.0,
    )  # fmt: skip
    assert _codes(a, "gc")["gc-share"] == "serious"
    f = next(f for f in a.findings if f.name == "spiky" and f.code == "max-over-min")
    assert f.severity == "warning" and f.numbers["ratio"] == pytest.approx(12.0 / 0.9)
    b = _audit("benchmarktools_old.txt")
    assert _codes(b, "alog(x)")["gc-share"] == "info"  # the slowest sample is 96% GC


def test_drift_at_huge_evaluation_counts_is_not_an_outlier_problem() -> None:
    # 1e6 evaluations of 1 µs: 1 s samples varying by 2%
    a = audit([{"name": "long", "location": 1.0, "unit": "us", "spread": 0.02, "n": 30,
                "evals": 1_000_000}], clock_overhead_ns=0.0)  # fmt: skip
    codes = _codes(a, "long")
    assert "sd-blowup" not in codes and codes["sample-drift"] == "info"


# ------------------------------------------------------------------------ claims
def test_ratio_claims_rest_on_their_estimator_with_an_about_tolerance() -> None:
    def rows(claim: str, other_min: float, est: str = "min") -> list[dict[str, Any]]:
        return [
            {"name": "new", "location": 1.2, "min": 1.0, "spread": 0.05, "n": 30,
             "compare_to": "old", "claim": claim, "claim_estimator": est},
            {"name": "old", "location": other_min * 1.2, "min": other_min, "spread": 0.05, "n": 30},
        ]  # fmt: skip

    ok = audit(rows("27× faster", 27.0), clock_overhead_ns=0.0)
    assert "claimed-ratio-mismatch" not in _codes(ok, "new", "old")
    assert ok.comparisons["claimed_ratio"].iloc[0] == 27.0
    wrong = audit(rows("27x faster", 2.7), clock_overhead_ns=0.0)
    assert _codes(wrong, "new", "old")["claimed-ratio-mismatch"] == "serious"
    # "~10× slower": about, within a factor 1.25 either way
    near = audit(rows("~10x slower", 0.11), clock_overhead_ns=0.0)
    assert "claimed-ratio-mismatch" not in _codes(near, "new", "old")
    far = audit(rows("~10x slower", 0.2), clock_overhead_ns=0.0)
    assert "claimed-ratio-mismatch" in _codes(far, "new", "old")


def test_the_change_the_tool_printed_is_used() -> None:
    a = _audit("benchstat_v1_benchmem.txt")
    c = a.comparisons.set_index("name").loc["alloc/op: Decode-4 [new]"]
    # 1.88 / 1.89 − 1 = −0.53% from the rounded locations; benchstat printed −0.11%
    assert c["relative"] == pytest.approx(-0.0011)
    assert c["relative_low"] >= -0.00115 - 1e-12 and c["relative_high"] <= -0.00105 + 1e-12


def test_sd_from_a_stated_ci() -> None:
    rows = [
        {"name": "a", "location": 10.0, "ci_low": 9.5, "ci_high": 10.5, "n": 30, "compare_to": "b"},
        {"name": "b", "location": 12.0, "ci_low": 11.5, "ci_high": 12.5, "n": 30},
    ]
    a = audit(rows, clock_overhead_ns=0.0, as_printed=False)
    # a 95% t-interval half-width 0.5 with n = 30: sd = 0.5 √30 / t(0.975, 29)
    sd = 0.5 * math.sqrt(30) / stats.t.ppf(0.975, 29)
    assert _row(a, "a")["sd"] == pytest.approx(sd, rel=1e-12)
    assert bool(a.comparisons["significant"].iloc[0])


def test_n_and_sd_are_bounded_from_min_max_mean() -> None:
    a = _audit("hyperfine.md")
    r = _row(a, "go brute_force")
    # 1.9 ± 0.1, min 1.7, max 2.6 (ms, to 0.1): n >= R²/(2 sd²) at the worst reading
    assert r["n_source"] == "bound" and r["n"] == math.ceil(0.8**2 / (2 * 0.15**2))
    # old BenchmarkTools prints no sd: Bhatia–Davis bounds it from min, max and mean
    b = _audit("benchmarktools_old.txt")
    s = _row(b, "sum($v)")
    bd = math.sqrt((98.004 - 44.927) * (44.927 - 44.112)) * math.sqrt(10000 / 9999) * 1e3
    assert s["sd_source"] == "minmax-bound" and s["sd"] == pytest.approx(bd, rel=1e-9)
    # both bounds hold on real samples (numpy reference)
    rng = np.random.default_rng(5)
    for _ in range(200):
        k = int(rng.integers(3, 60))
        x = rng.gamma(2.0, 1.0, size=k) + 1.0
        lo, hi, m, sd = x.min(), x.max(), x.mean(), x.std(ddof=1)
        assert (hi - lo) ** 2 / (2 * sd**2) <= k + 1e-9
        assert sd <= math.sqrt((hi - m) * (m - lo) * k / (k - 1)) * (1 + 1e-12)


def test_a_within_run_ci_or_p_is_said_to_ignore_between_process_variance() -> None:
    a = _audit("criterion.txt")
    # +1.89% [+1.05%, +2.73%] against a baseline from another run: within run-to-run noise
    assert _codes(a, "a_rather_long_benchmark_name/1024")["change-within-run"] == "warning"
    assert _codes(a, "fib 20")["change-within-run"] == "info"  # −6.3%: large
    assert "change-within-run" not in _codes(a, "parse/json")  # its CI contains 0
    rows = [
        {"name": "new", "location": 100.0, "spread": 0.5, "n": 1000, "scope": "one-process",
         "compare_to": "old"},
        {"name": "old", "location": 101.0, "spread": 0.5, "n": 1000, "scope": "one-process"},
    ]  # fmt: skip
    b = audit(rows, clock_overhead_ns=0.0)
    assert _codes(b, "new", "old")["between-process-variance-ignored"] == "warning"
    assert any(f.code == "scope-one-process" for f in b.findings)


def test_many_comparisons_in_one_table_are_corrected() -> None:
    # 20 comparisons, each significant alone (p ≈ 0.02), none after Holm
    rows: list[dict[str, Any]] = []
    for i in range(20):
        rows += [
            {"name": f"n{i}", "location": 100.0, "spread": 4.0, "n": 30, "compare_to": f"o{i}"},
            {"name": f"o{i}", "location": 102.5, "spread": 4.0, "n": 30},
        ]
    a = audit(rows, clock_overhead_ns=0.0, as_printed=False)
    c = a.comparisons
    assert (c["pvalue"] < 0.05).all() and not c["significant"].any()
    # reference: statsmodels' Holm
    assert np.allclose(c["pvalue_adjusted"], multipletests(c["pvalue_bound"], method="holm")[1])
    assert sum(f.code == "significant-before-correction" for f in a.findings) == 20
    # the source's own p-values too: benchstat v2's p=0.015 of 6 in its table
    b = _audit("benchstat_v2_two_tables.txt")
    assert (
        _codes(b, "Decode-4 [new.txt]", "Decode-4 [old.txt]")["claimed-significance-uncorrected"]
        == "warning"
    )


def test_not_significant_becomes_cannot_be_confirmed_when_the_sd_is_estimated() -> None:
    exact = [
        {"name": "a", "location": 100.0, "spread": 5.0, "n": 10, "compare_to": "b"},
        {"name": "b", "location": 101.0, "spread": 5.0, "n": 10},
    ]
    assert "difference-not-significant" in _codes(
        audit(exact, clock_overhead_ns=0.0, as_printed=False), "a", "b"
    )
    bound = [dict(r, spread_kind="range") for r in exact]
    codes = _codes(audit(bound, clock_overhead_ns=0.0, as_printed=False), "a", "b")
    assert codes["difference-unconfirmed"] == "warning"
    assert "difference-not-significant" not in codes


def test_unknown_columns_warn_and_known_aliases_map(tmp_path: Path) -> None:
    p = tmp_path / "pb.csv"
    p.write_text(
        "Name,Min,Max,Mean,StdDev,Median,Rounds,Iterations,Flavour\n"
        "test_x,20.87,75.22,22.35,2.50,21.46,15873,1,vanilla\n",
        encoding="utf-8",
    )
    got = read_audit_file(p)
    (row,) = got.rows
    # pytest-benchmark's own column names: the mean with its StdDev, not "the last of
    # Min/Mean/Median"; Rounds = n, Iterations = evals
    assert (row["mean"], row["spread"], row["spread_kind"], row["n"], row["evals"]) == (
        "22.35", "2.50", "sd", "15873", "1",
    )  # fmt: skip
    (note,) = got.notes
    assert note.code == "unknown-column" and "Flavour" in note.message
    a = audit(got.rows, notes=got.notes, clock_overhead_ns=0.0)
    r = _row(a, "test_x")
    assert r["location"] == pytest.approx(22.35) and r["location_kind"] == "mean"
    assert r["sd"] == pytest.approx(2.5) and r["n"] == 15873 and r["evals"] == 1
    assert any(f.code == "unknown-column" for f in a.findings)


@pytest.mark.parametrize(
    ("m1", "s1", "n1", "m2", "s2", "n2"),
    [
        (10.0, 1.0, 5, 11.0, 2.0, 7),
        (100.0, 3.0, 30, 99.0, 0.5, 4),
        (1.0, 0.01, 1000, 1.001, 0.02, 50),
    ],
)
def test_welch_from_standard_errors_matches_scipy(
    m1: float, s1: float, n1: int, m2: float, s2: float, n2: int
) -> None:
    t, _df, p = welch_from_se(m1 - m2, s1 / math.sqrt(n1), n1 - 1, s2 / math.sqrt(n2), n2 - 1)
    # reference: scipy's Welch test from summary statistics
    ref = stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False)
    assert t == pytest.approx(ref.statistic, rel=1e-12) and p == pytest.approx(ref.pvalue, rel=1e-9)


def test_mde_for_huge_n_uses_the_normal_approximation_that_matches_t() -> None:
    from tsanalyze.stats.summary_tests import minimum_detectable_effect

    # reference: the t-based MDE at n = 10^6, where the audit switches to the normal one
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert minimum_detectable_effect(1.0, 10**6).estimate == pytest.approx(
        z * math.sqrt(2e-6), rel=1e-6
    )
    a = audit(
        [{"name": "big", "location": 100.0, "spread": 1.0, "n": 10**9}], clock_overhead_ns=0.0
    )
    f = next(f for f in a.findings if f.code == "min-detectable-effect")
    assert f.numbers["estimate"] == pytest.approx(z * math.sqrt(2e-9), rel=1e-9)


@pytest.mark.parametrize("df", [1.0, 4.0, 29.0, 1e6, math.inf])
def test_fast_t_functions_match_scipy_stats(df: float) -> None:
    from tsanalyze.analysis.audit._spread import t_quantile, t_sf

    # reference: scipy.stats.t (norm for infinite df)
    dist = stats.norm if math.isinf(df) else stats.t(df)
    for q in (0.6, 0.975, 0.9995):
        assert t_quantile(q, df) == pytest.approx(dist.ppf(q), rel=1e-12)
    for x in (0.1, 2.0, 8.0):
        assert t_sf(x, df) == pytest.approx(dist.sf(x), rel=1e-10)
