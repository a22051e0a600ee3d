"""The package installs anywhere (issue 28 point 4): ``python -m build`` makes the sdist
and, from it, the wheel; the wheel, installed outside any checkout, holds the shipped
configs, so the quick start runs with a config by name (``fortythieves train lucas``), and
the other commands run too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from configs import TINY

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))


def run_installed(code: str, target: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose packages come from ``target`` first (the
    installed wheel), run from ``cwd`` (outside the checkout)."""
    prelude = (
        f"import sys; sys.path.insert(0, {str(target)!r}); import agents, fortythieves_env; "
        f"assert agents.__file__.startswith({str(target)!r}), agents.__file__; "
        f"assert fortythieves_env.__file__.startswith({str(target)!r}); "
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def test_the_wheel_built_from_the_sdist_runs_the_quick_start_outside_a_checkout(
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    (sdist,) = dist.glob("fortythieves-*.tar.gz")
    (wheel,) = dist.glob("fortythieves-*.whl")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    assert {f"configs/{name}" for name in CONFIGS} <= {n.partition("/")[2] for n in names}
    with zipfile.ZipFile(wheel) as archive:
        members = set(archive.namelist())
    assert {f"agents/configs/{name}" for name in CONFIGS} <= members
    assert "fortythieves_env/py.typed" in members
    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
         str(wheel)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    settings = [x for item in TINY for x in ("--set", item)]
    argv = ["train", "lucas", *settings, "--run-dir", "run"]
    code = f"from agents.cli import main; sys.exit(main({argv!r}))"
    trained = run_installed(code, target, elsewhere)
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-2000:]
    run = json.loads((elsewhere / "run" / "run.json").read_text())
    assert run["status"] == "completed"
    assert "variant: Lucas" in (elsewhere / "run" / "config.yaml").read_text()
    argv = ["evaluate", "run", "--episodes", "1", "--json", "report.json", "--no-progress"]
    code = f"from agents.cli import main; sys.exit(main({argv!r}))"
    evaluated = run_installed(code, target, elsewhere)
    assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    report = json.loads((elsewhere / "report.json").read_text())
    assert list(report["results"]) == ["ppo", "random", "greedy"]
    # a name that is not shipped: one line naming the shipped ones
    code = "from agents.cli import main; sys.exit(main(['train', 'nope']))"
    refused = run_installed(code, target, elsewhere)
    assert refused.returncode == 2
    assert "nope: config file not found (nor a shipped config: defaults, fortythieves" in (
        refused.stderr
    )
