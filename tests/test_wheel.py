"""The package installs anywhere (issue 28 point 4): ``python -m build`` makes the sdist
and, from it, the wheel; the wheel, installed outside any checkout, holds the shipped
configs, so the quick start runs with a config by name (``fortythieves train lucas``), and
the other commands run too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from filelock import FileLock
from helpers import ROOT

from configs import TINY, with_set

CONFIGS = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))


def run_installed(code: str, target: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose packages come from ``target`` first (the
    installed wheel, first on ``PYTHONPATH``), run from ``cwd`` (outside the checkout)."""
    prelude = (
        "import sys, fortythieves_agents, fortythieves_env; "
        f"assert fortythieves_agents.__file__.startswith({str(target)!r}), fortythieves_agents.__file__; "
        f"assert fortythieves_env.__file__.startswith({str(target)!r}); "
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The sdist and, from it, the wheel built by ``python -m build``, checked, and the
    wheel installed (no dependencies) into a folder: that folder.

    Built once for the whole run: ``python -m build`` writes its release tree into the
    checkout, so two pytest-xdist workers building at once break each other's sdist. The
    first worker to take the lock builds into the folder the workers share (pytest-xdist's
    recipe for a session fixture run once); the others wait and use it."""
    base = tmp_path_factory.getbasetemp()
    shared = base if worker_id == "master" else base.parent
    target = shared / "wheel" / "site"
    with FileLock(str(shared / "wheel.lock")):
        if not (target / ".built").is_file():
            _build_and_install(shared / "wheel", target)
            (target / ".built").touch()
    return target


def _build_and_install(tmp_path: Path, target: Path) -> None:
    """The ``installed`` fixture's work: build into ``tmp_path / "dist"``, check the
    archives, install the wheel into ``target``."""
    shutil.rmtree(tmp_path, ignore_errors=True)  # what a failed build of another worker left
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
    assert {f"fortythieves_agents/configs/{name}" for name in CONFIGS} <= members
    assert not any(m.startswith("agents/") for m in members)  # not the OpenAI Agents SDK's name
    assert "fortythieves_env/py.typed" in members
    assert "fortythieves_agents/reports/__main__.py" in members  # the docs' tables, installed
    assert "fortythieves_agents/players/leaf_values.json" in members  # the search's leaf values
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
         str(wheel)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]


def test_the_wheel_built_from_the_sdist_runs_the_quick_start_outside_a_checkout(
    installed: Path, tmp_path: Path
) -> None:
    target = installed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    settings = with_set(TINY)
    argv = ["train", "lucas", *settings, "--run-dir", "run"]
    code = f"from fortythieves_agents.cli.main import main; sys.exit(main({argv!r}))"
    trained = run_installed(code, target, elsewhere)
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-2000:]
    run = json.loads((elsewhere / "run" / "run.json").read_text())
    assert run["status"] == "completed"
    assert "variant: Lucas" in (elsewhere / "run" / "config.yaml").read_text()
    argv = ["evaluate", "run", "--episodes", "1", "--json", "report.json", "--no-progress"]
    code = f"from fortythieves_agents.cli.main import main; sys.exit(main({argv!r}))"
    evaluated = run_installed(code, target, elsewhere)
    assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    report = json.loads((elsewhere / "report.json").read_text())
    assert list(report["results"]) == ["ppo", "random", "greedy"]
    # the protocol's labels ship in the wheel: the solver column and the leaderboard work here
    assert report["results"]["ppo"]["solver_ceiling"]["proved_won"] == 1  # Lucas's first deal
    code = "from fortythieves_agents.cli.main import main; sys.exit(main(['leaderboard', 'report.json']))"
    board = run_installed(code, target, elsewhere)
    assert board.returncode == 0, board.stderr[-2000:]
    assert "| Lucas | PPO (shipped config) |" not in board.stdout  # a user's run, by its name
    assert board.stdout.count("| Lucas |") == 3 and "| 1 | " in board.stdout
    # a name that is not shipped: one line naming the shipped ones
    code = "from fortythieves_agents.cli.main import main; sys.exit(main(['train', 'nope']))"
    refused = run_installed(code, target, elsewhere)
    assert refused.returncode == 2
    assert "nope: config file not found (nor a shipped config: defaults, family, fortythieves" in (
        refused.stderr
    )


def test_the_wheel_gives_its_own_install_commands_and_config_names(
    installed: Path, tmp_path: Path
) -> None:
    """issue 37 point 10: outside a checkout, the hint to install matplotlib is the wheel's
    form (no ``pip install -e '.[plots]'`` "in the checkout"), and the README's
    ``train configs/lucas.yaml`` is told to name the shipped config."""
    code = (
        "sys.modules['matplotlib'] = None; "  # as without the plots extra
        "from fortythieves_agents.cli.main import main; "
        "main(['plot', 'nowhere']); sys.exit(main(['train', 'configs/lucas.yaml']))"
    )
    import numpy as np

    run = tmp_path / "nowhere" / "eval"  # a run with one validation, enough to plot
    run.mkdir(parents=True)
    found = np.array([[10, 20]])
    np.savez(run / "evaluations.npz", timesteps=np.array([64]), results=found.astype(float),
             ep_lengths=np.full((1, 2), 50), successes=found == 104)  # fmt: skip
    np.savez(run / "foundation_cards.npz", timesteps=np.array([64]), foundation_cards=found)
    done = run_installed(code, installed, tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert "plots need matplotlib: pip install 'fortythieves[plots]'" in lines[0], lines
    assert "-e" not in lines[0] and "checkout" not in lines[0]
    assert lines[1] == (
        "fortythieves train: error: configs/lucas.yaml: config file not found; did you mean "
        "the shipped config `lucas` (`fortythieves train lucas`)?"
    )


OPENAI_AGENTS = "openai-agents==0.24.0"
"""The OpenAI Agents SDK, whose top-level package is ``agents`` (issue 28 point 4)."""


def test_the_openai_agents_sdk_installs_beside_the_package(installed: Path, tmp_path: Path) -> None:
    """``agents`` is the SDK's (with its dependencies, from the package index) and this
    package is ``fortythieves_agents``: both import in one process and both work."""
    sdk = tmp_path / "sdk"
    got = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--target", str(sdk), OPENAI_AGENTS],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert got.returncode == 0, f"pip install {OPENAI_AGENTS}: " + got.stderr[-2000:]
    code = (
        # the SDK's folder as one more site folder, after this venv's packages
        f"import site; site.addsitedir({str(sdk)!r}); import agents; "
        f"assert agents.__file__.startswith({str(sdk)!r}), agents.__file__; "
        "assert agents.Agent(name='a', instructions='b').name == 'a'; "
        "from fortythieves_agents.cli.main import main; "
        "code = main(['evaluate', 'greedy', '--variant', 'LittleForty', '--episodes', '2', "
        "'--json', 'r.json', '--no-progress']); "
        "import json; r = json.load(open('r.json')); "
        "print(code, r['results']['greedy']['episodes'], agents.Runner.__name__)"
    )
    done = run_installed(code, installed, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["0", "2", "Runner"]
