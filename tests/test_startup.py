"""Start-up (issue 24): ``import tsanalyze`` and ``tsanalyze --help`` load neither pandas
nor numpy, and the ``.tsa`` accessor still works in either import order.

Each check runs in a fresh interpreter (the test process has imported everything).
The time itself is measured in ``benchmarks/bench_many_runs.py``, not here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

HEAVY = ("pandas", "numpy", "scipy", "pyarrow", "rich", "statsmodels")


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_import_tsanalyze_loads_no_heavy_module() -> None:
    out = _run(f"""
        import sys
        import tsanalyze
        print([m for m in {HEAVY!r} if m in sys.modules])
    """)
    assert out == "[]"


def test_help_and_version_load_no_heavy_module() -> None:
    out = _run(f"""
        import sys
        from tsanalyze.cli.app import main
        for args in (["--help"], ["--version"], []):
            try:
                main(args)
            except SystemExit:
                pass
        print([m for m in {HEAVY!r} if m in sys.modules])
    """)
    assert out.splitlines()[-1] == "[]"
    assert "report   Analyse runs" in out


@pytest.mark.parametrize(
    "order",
    [
        "import tsanalyze\nimport pandas as pd",
        "import pandas as pd\nimport tsanalyze",
        # pandas arrives through a tsanalyze module that needs it
        "import tsanalyze\nfrom tsanalyze.io.runs import read_runs\nimport pandas as pd",
        "import tsanalyze.accessor\nimport pandas as pd",
        # pandas' import completes inside a module the accessor itself needs
        "import tsanalyze._validation\nimport tsanalyze\nimport pandas as pd",
        "import tsanalyze.stats.acf\nimport tsanalyze\nimport pandas as pd",
        "import tsanalyze.analysis._seed\nimport tsanalyze\nimport pandas as pd",
    ],
)
def test_accessor_works_in_either_import_order(order: str) -> None:
    out = _run(
        order
        + """
import numpy as np
s = pd.Series(np.linspace(1.0, 2.0, 50))
print(type(s.tsa).__name__, type(pd.DataFrame({"time_ns": s}).tsa).__name__)
print(s.tsa.estimate(rng=1).estimate == tsanalyze.estimate(s.to_numpy(), rng=1).estimate)
print(type(pd.__spec__.loader).__name__, pd.__loader__ is pd.__spec__.loader)
"""
    )
    lines = out.splitlines()
    assert lines[0] == "TsaSeriesAccessor TsaDataFrameAccessor"
    assert lines[1] == "True"
    # pandas keeps its own loader (the hook only wraps it while pandas executes)
    assert lines[2] == "SourceFileLoader True"


def test_the_hook_fires_once_and_steps_aside() -> None:
    out = _run("""
        import sys
        import tsanalyze
        from tsanalyze import _pandas_hook
        before = _pandas_hook._FINDER in sys.meta_path
        import pandas
        print(before, _pandas_hook._FINDER in sys.meta_path, "tsanalyze.accessor" in sys.modules)
    """)
    assert out == "True False True"


def test_every_command_is_listed_from_its_own_docstring() -> None:
    from typer.testing import CliRunner

    from tsanalyze.cli import app as cli

    listing = CliRunner().invoke(cli.app, ["--help"]).output
    for name, (module, func) in cli.COMMANDS.items():
        fn = getattr(__import__(module, fromlist=[func]), func)
        first = (fn.__doc__ or "").strip().split()[0]
        assert cli.docstring_of(name).split()[0] == first
        assert f"  {name} " in listing


def test_the_command_line_needs_no_separate_click() -> None:
    # typer >= 0.26 vendors click and no longer installs it: a fresh `pip install -e .`
    # has no `click` (the quick start failed with ModuleNotFoundError when the CLI imported
    # it). Here `import click` fails, as there; the usage error of an unknown option and a
    # bad file still exit 2 with one line, through typer's own click.
    out = _run("""
        import sys
        sys.modules["click"] = None  # import click raises ImportError
        from tsanalyze.cli.app import app
        from typer.testing import CliRunner
        r = CliRunner()
        print(r.invoke(app, ["report", "--no-such-option", "x"]).exit_code)
        bad = r.invoke(app, ["report", "/no/such/file.parquet"])
        print(bad.exit_code, len(bad.output.strip().splitlines()))
        print(r.invoke(app, ["--help"]).exit_code)
    """)
    assert out.split("\n") == ["2", "2 1", "0"]
