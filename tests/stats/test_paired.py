"""Tests of the tests on paired differences (tsanalyze.stats.paired)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tsanalyze.stats import paired as sp


def test_wilcoxon_matches_scipy() -> None:
    # reference: scipy.stats.wilcoxon
    gen = np.random.default_rng(5)
    d = gen.normal(0.3, 1, 40)
    res = sp.wilcoxon_signed_rank(d)
    ref = stats.wilcoxon(d)
    assert res.pvalue == pytest.approx(ref.pvalue)
    assert res.statistic == pytest.approx(ref.statistic)
    res0 = sp.wilcoxon_signed_rank([0.0, 0.0, 1.0])
    assert math.isnan(res0.pvalue) and "too-few-differences" in res0.warning_codes


def test_paired_t_matches_scipy() -> None:
    # reference: scipy.stats.ttest_rel
    gen = np.random.default_rng(6)
    a = gen.normal(100, 3, 50)
    b = a + gen.normal(1, 1, 50)
    res = sp.paired_t(b - a)
    ref = stats.ttest_rel(b, a)
    assert res.pvalue == pytest.approx(ref.pvalue)
    assert res.statistic == pytest.approx(ref.statistic)
    assert math.isnan(sp.paired_t([1.0, 1.0]).pvalue)


def test_spearman_drift() -> None:
    # reference: scipy.stats.spearmanr against the index
    gen = np.random.default_rng(7)
    d = np.linspace(0, 1, 100) + gen.normal(0, 0.2, 100)
    res = sp.spearman_drift(d)
    ref = stats.spearmanr(np.arange(100), d)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.statistic > 0.5
    const = sp.spearman_drift(np.ones(10))
    assert math.isnan(const.statistic) and const.n == 10
