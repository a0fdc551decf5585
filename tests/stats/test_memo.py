"""ContentMemo: a result kept by the content of an array and the settings (issue 24)."""

from __future__ import annotations

import numpy as np

from tsanalyze.stats._memo import ContentMemo


def test_an_equal_array_gets_the_kept_result_and_another_one_is_computed() -> None:
    memo: ContentMemo[float] = ContentMemo(size=2)
    calls: list[int] = []

    def compute(v: float) -> float:
        calls.append(1)
        return v

    x = np.arange(5.0)
    assert memo.get(x, "s", lambda: compute(1.0)) == 1.0
    assert memo.get(x.copy(), "s", lambda: compute(2.0)) == 1.0  # equal content: kept
    assert len(calls) == 1
    assert memo.get(x, "t", lambda: compute(3.0)) == 3.0  # other settings
    y = x.copy()
    y[2] = np.nextafter(y[2], 9.0)  # one bit apart
    assert memo.get(y, "s", lambda: compute(4.0)) == 4.0
    assert memo.get(x.astype(np.float32), "s", lambda: compute(5.0)) == 5.0  # other dtype
    assert len(calls) == 4
    # bounded: the least recently used entries were dropped
    assert memo.get(x, "s", lambda: compute(6.0)) == 6.0
    memo.clear()
    assert memo.get(y, "s", lambda: compute(7.0)) == 7.0
