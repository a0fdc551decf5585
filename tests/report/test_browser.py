"""The HTML report in headless Chromium: renders without console errors, figures have size."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from tsanalyze.analysis.runset import analyze
from tsanalyze.datasets import simulate_run
from tsanalyze.report.html import render_html

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (installed by .ci/run)",
    ),
]

# writes the size of every figure into the DOM, so --dump-dom can report it
PROBE = """
<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('figure svg').forEach(function (el) {
    var r = el.getBoundingClientRect();
    out.push([r.width, r.height]);
  });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def _chromium(tmp_path: Path, page: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
        "--v=0", "--window-size=1280,1024", *extra, page.as_uri(),
    ]  # fmt: skip
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def report_html() -> tuple[str, int]:
    base = simulate_run({"<b>a</b>": 1000.0, "b": 1500.0}, n_rounds=400, warmup=(60, 0.4), rng=1)
    cand = simulate_run({"<b>a</b>": 1100.0, "b": 1500.0}, n_rounds=400, rng=2)
    df = pd.concat([base.frame, cand.frame], ignore_index=True)
    df.attrs["runs"] = {**base.frame.attrs["runs"], **cand.frame.attrs["runs"]}
    ra = analyze(df, rng=1, jobs=1)
    return render_html(ra), len(ra.series)


def test_renders_without_console_errors(tmp_path: Path, report_html: tuple[str, int]) -> None:
    page = tmp_path / "report.html"
    page.write_text(report_html[0], encoding="utf-8")
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, page, f"--screenshot={shot}")
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    assert shot.exists() and shot.stat().st_size > 10_000


def test_figures_have_nonzero_size(tmp_path: Path, report_html: tuple[str, int]) -> None:
    text, n_series = report_html
    page = tmp_path / "probe.html"
    page.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    proc = _chromium(tmp_path, page, "--dump-dom", "--virtual-time-budget=5000")
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m is not None, proc.stderr[-2000:]
    sizes = json.loads(m.group(1))
    assert len(sizes) == 3 * n_series + 1  # three per series, plus the forest plot
    assert all(w > 50 and h > 50 for w, h in sizes), sizes
    assert "Uncaught" not in proc.stderr


def test_history_page_renders_its_figures(tmp_path: Path) -> None:
    import numpy as np

    import tsanalyze
    from tsanalyze.analysis.history.simulate import SimulatedChange, simulate_history
    from tsanalyze.report.history import history_html

    rng = np.random.default_rng(1)
    df = simulate_history(60, ["a", "<b>x</b>"], changes=[SimulatedChange("a", 30, 1.2)], rng=rng)
    page = tmp_path / "history.html"
    page.write_text(history_html(tsanalyze.history(df)).replace("</body>", PROBE + "</body>"))
    proc = _chromium(tmp_path, page, "--dump-dom", "--virtual-time-budget=5000")
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m is not None, proc.stderr[-2000:]
    sizes = json.loads(m.group(1))
    assert len(sizes) == 2 and all(w > 300 and h > 80 for w, h in sizes), sizes
    assert "Uncaught" not in proc.stderr
