"""numba's on-disk cache of the compiled kernels (:mod:`fortythieves_env.rules.jit`, issue 23).

* Point 8 (numba issue #1833): every compiled entry point follows an edit of a kernel it
  calls from another module. Only ``core.py`` is edited (in a copy of the package) and
  each entry point that builds its kernels in must play by the edited rules.
* Point 9 (numba issue #4908): with no writable cache folder the package imports and plays
  (uncached), with one warning line naming ``NUMBA_CACHE_DIR``.

Both run the package copied into a temporary folder, in subprocesses: compiling is the
slow part (tens of seconds), so each test starts as few processes as it can.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import fortythieves_env
from fortythieves_env.rules import jit as _jit

ROOT = Path(fortythieves_env.__file__).resolve().parent.parent
KERNEL_MODULES = (
    "fortythieves_env.rules.core",
    "fortythieves_env.rules.greedy",
    "fortythieves_env.solver.rollout",
    "fortythieves_env.solver.search",
    "fortythieves_env.envs.vector_step",
    "fortythieves_agents.players.search_scores",
    "fortythieves_agents.players.baselines",
    "fortythieves_agents.cycles",
)

# The edit of point 8, one change in each kernel family the entry points build in: the
# move generator (drawing is never legal), the move (a draw moves nothing) and the
# observation read back (the waste reads as empty). Each (old, new) occurs once.
EDITS = (
    (
        "    if n_stock > 0:\n        a = 0  # draw\n",
        "    if n_stock < 0:\n        a = 0  # draw\n",
    ),
    (
        "        if kind == DRAW:\n            for _ in range(min(tb[H_DEAL], ns)):\n",
        "        if kind == DRAW:\n            for _ in range(0):\n",
    ),
    (
        "    st[scal + S_NWASTE] = nw\n    st[scal + S_REDEALS] = obs[",
        "    st[scal + S_NWASTE] = 0\n    st[scal + S_REDEALS] = obs[",
    ),
)

# Forty Thieves, all cards up but the 8 Kings: 7 in the stock, 1 on the waste (P), or all
# 8 in the stock (P_DRAW, where drawing is the only move). By the shipped rules greedy
# wins P in 15 moves (w>f, then draw and w>f 7 times) and the solver finds it; by the
# edited rules P ends after w>f at 97 cards, and nothing is legal in P_DRAW.
PROBE = r"""
import json, sys
import numpy as np
import gymnasium as gym
import fortythieves_env
from fortythieves_env import FortyThievesVectorEnv, GameState, get_variant, solver
from fortythieves_env.envs import vector_step as vector
from fortythieves_env.rules import greedy
from fortythieves_env.core import H_NACT, tables_for
from fortythieves_env.rules.engine import rules_for
from fortythieves_agents import cycles
from fortythieves_agents.players import baselines
from fortythieves_agents.players import search_scores as search

assert fortythieves_env.__file__.startswith(sys.argv[1]), fortythieves_env.__file__
spec = get_variant("FortyThieves")
rules, tables = rules_for(spec), tables_for(spec)
tb, n = tables.table, int(tables.table[H_NACT])
kings = [s * 13 + 13 for s in range(4) for _ in range(2)]
def position(stock, waste):
    return rules.to_position(GameState([[] for _ in range(10)], [0] * 10, stock, waste, [12] * 8, 0, 96))
P, P_DRAW = position(kings[:7], kings[7:]), position(kings, [])
def packed(pos):
    return tables.pack(rules.from_position(pos))
mask = np.zeros(n, np.int8)
mask[rules.legal_actions(rules.from_position(P))] = 1  # the shipped rules: draw, w>f, w>tj
DRAW, W_F, W_T0 = 0, 2, 3
out = {}

env = gym.make("FortyThieves/FortyThieves-v0")
obs, info = env.reset(options={"state": P})
out["env"] = [int(info["action_mask"][DRAW]), bool(env.step(W_F)[2])]

venv = FortyThievesVectorEnv("FortyThieves", 1)
venv.reset(options={"state": P})
terminated = venv.step(np.array([W_F]))[2]
out["vector_env"] = [int(venv.action_masks()[0, DRAW]), bool(terminated[0])]

result = greedy.rollout(packed(P), tb, np.empty(n, np.int64), 100, 40)
out["greedy.rollout"] = [int(x) for x in result]

out["solver.solve"] = [solver.solve(P, nodes=10_000).status,
                       solver.solve(P, nodes=10_000, rollouts=False).status]
work = [np.zeros(n, np.int32) for _ in range(3)]
out["solver.pruned_moves"] = int(solver.pruned_moves(packed(P_DRAW), tb, solver.build_code(spec), *work))

counts = [np.zeros(1, np.int64) for _ in range(3)]  # wins, cards, moves
search._score_moves(packed(P)[None, :], tb, np.array([W_F]), 100, 40, *counts)
out["search._score_moves"] = [int(c[0]) for c in counts]

scores = np.zeros((1, n))
choice = baselines.greedy_actions(spec, obs[None, :], mask[None, :], scores)
out["baselines.greedy_actions"] = [int(choice[0]), float(scores[0, W_T0])]

states, rows = packed(P)[None, :], np.array([0])
prefer_draw = np.where(np.arange(n) == DRAW, 1.0, 0.0)[None, :]
seen = cycles.SeenViews(tables, 1, 10)
seen.start(states, rows)
out["cycles.choose"] = int(seen.choose(states, rows, prefer_draw, mask[None, :].copy())[0])
seen = cycles.SeenViews(tables, 1, 10)
seen.start(states, rows)
left_mask = mask[None, :].copy()
out["cycles.fresh"] = [int(seen.fresh(states, rows, left_mask)[0]), int(left_mask[0, DRAW])]

entry_points = {
    "vector._step_batch": vector._step_batch, "greedy.rollout": greedy.rollout,
    "solver._nested": solver._nested, "solver._search": solver._search,
    "solver.pruned_moves": solver.pruned_moves, "search._score_moves": search._score_moves,
    "baselines._greedy_batch": baselines._greedy_batch, "cycles._start": cycles._start,
    "cycles._choose": cycles._choose, "cycles._fresh": cycles._fresh,
}
out["compiled"] = sorted(k for k, d in entry_points.items() if sum(d.stats.cache_misses.values()))
print(json.dumps(out))
"""

SHIPPED = {
    "env": [1, False],  # draw legal; after w>f the draw is left
    "vector_env": [1, False],
    "greedy.rollout": [104, 15],  # won: w>f, then draw and w>f 7 times
    "solver.solve": ["won", "won"],  # the rollout pass, and the search alone
    "solver.pruned_moves": 1,  # draw
    "search._score_moves": [1, 104, 14],  # wins, cards, moves after w>f
    "baselines.greedy_actions": [2, 25.0],  # w>f; w>t0 scores a King into an empty column
    "cycles.choose": 0,  # the draw leads to a new view
    "cycles.fresh": [12, 1],  # every legal move leads to a new view
}
EDITED = {
    "env": [0, True],  # draw illegal; after w>f no move is left
    "vector_env": [0, True],
    "greedy.rollout": [97, 1],
    "solver.solve": ["lost", "lost"],
    "solver.pruned_moves": 0,
    "search._score_moves": [0, 97, 0],
    "baselines.greedy_actions": [2, 5.0],  # the waste reads as empty: no King seen
    "cycles.choose": 2,  # the draw leads back to the start view: w>f instead
    "cycles.fresh": [11, 0],
}
ENTRY_POINTS = [
    "baselines._greedy_batch",
    "cycles._choose",
    "cycles._fresh",
    "cycles._start",
    "greedy.rollout",
    "search._score_moves",
    "solver._nested",
    "solver._search",
    "solver.pruned_moves",
    "vector._step_batch",
]


def _copy_package(dest: Path, with_cache: bool) -> Path:
    """``fortythieves_env`` and ``fortythieves_agents`` (the ``agents/`` folder) copied into
    ``dest``; with ``with_cache`` numba's cache files beside them too (copied with their
    times: the copy starts as warm as the checkout)."""
    ignore = None if with_cache else shutil.ignore_patterns("__pycache__")
    for folder, package in (
        ("fortythieves_env", "fortythieves_env"),
        ("agents", "fortythieves_agents"),
    ):
        shutil.copytree(ROOT / folder, dest / package, ignore=ignore)
    return dest


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment of a subprocess that imports the copy: no numba cache settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "XDG_CACHE_HOME")
        and not k.startswith("NUMBA_DISABLE")
        and k != "PYTHONPATH"
    }
    env.update(extra)
    return env


def _probe(copy: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(copy)],
        cwd=copy,
        env=_clean_env(PYTHONPATH=str(copy)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_every_compiled_entry_point_follows_an_edit_of_fast(tmp_path: Path) -> None:
    """Point 8: after an edit of ``core.py`` alone, every entry point that compiles its
    kernels in (the env and the vector env, greedy's rollout, the solver, the search
    agent's rollouts, the greedy baseline, the no-cycling rule) plays by the edited rules,
    each compiled anew; a second process loads them all from the cache."""
    copy = _copy_package(tmp_path, with_cache=True)
    before = _probe(copy)  # warms the copy's cache (a load if the checkout's is warm)
    before.pop("compiled")
    assert before == SHIPPED
    fast = copy / "fortythieves_env" / "rules" / "core.py"
    text = fast.read_text()
    for old, new in EDITS:
        assert text.count(old) == 1, f"update the test's edit of core.py: {old!r} not found once"
        text = text.replace(old, new)
    fast.write_text(text)
    after = _probe(copy)
    compiled = after.pop("compiled")
    assert after == EDITED
    assert compiled == ENTRY_POINTS  # none loaded from the stale cache
    again = _probe(copy)
    assert again.pop("compiled") == []  # the edited kernels were cached, and load
    assert again == EDITED


# ---------------------------------------------------------------------- the mechanism
@pytest.mark.parametrize("name", KERNEL_MODULES)
def test_every_kernel_is_cached_under_the_sources_its_module_imports(name: str) -> None:
    """Each compiled function's cache stamp holds the digest of its module's import closure,
    which includes the rules' kernels (``core.py``) and constants (``actions.py``)."""
    module = importlib.import_module(name)
    kernels = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, Dispatcher) and obj.py_func.__module__ == name
    ]
    assert len(kernels) == Path(module.__file__).read_text().count("\n@kernel")
    files = {p.relative_to(ROOT).as_posix() for p in _jit.source_files(kernels[0].py_func)}
    own = Path(module.__file__).resolve().relative_to(ROOT).as_posix()  # agents/ for ours
    assert {own, "fortythieves_env/rules/core.py", "fortythieves_env/rules/actions.py"} <= files
    assert "agents/config.py" not in files  # only what it imports
    if name == "fortythieves_env.envs.vector_step":
        assert (
            "fortythieves_env/rules/episode.py" in files
        )  # episode_step, compiled into _step_batch
    digest = _jit.source_digest(kernels[0].py_func)
    for k in kernels:
        assert isinstance(k._cache, _jit._KernelCache), k
        assert k._cache._cache_file._source_stamp[1] == digest


def test_the_package_compiles_only_through_kernel() -> None:
    """One mechanism for every compiled function: no ``njit``/``jit`` but in ``_jit.py``."""
    banned = {"njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc"}
    offenders = []
    for path in sorted([*ROOT.glob("fortythieves_env/**/*.py"), *ROOT.glob("agents/*.py")]):
        if path.name == "jit.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            name = getattr(node, "id", None) or getattr(node, "attr", None)
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            if name in banned or banned & set(names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_source_files_follow_every_form_of_import(tmp_path: Path) -> None:
    """Relative and absolute imports, submodules and names, parentheses, continuation
    lines, comments and indented imports are followed; other packages are not; the digest
    does not depend on where the package lies, and changes with any file it covers."""
    files = {
        "pkg/__init__.py": "X = 1\n",
        "pkg/a.py": (
            "import numpy as np\nfrom . import b, X  # X is pkg's\n"
            "from .c import (\n    f,  # a comment\n    g,\n)\n"
            "if True:\n    from pkg import e as _e, \\\n        h\n"
        ),
        "pkg/b.py": "from fortythieves_env.rules.cards import RANK\n",
        "pkg/c.py": "import pkg.d as dd\nf = g = 0\n",
        "pkg/d.py": "",
        "pkg/e.py": "",
        "pkg/h.py": "",
        "pkg/unused.py": "",
    }
    for where in ("one", "two", "three"):
        for name, text in files.items():
            (tmp_path / where / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / where / name).write_text(text)
    (tmp_path / "three/pkg/h.py").write_text("H = 2\n")
    one, two, three = (str(tmp_path / where / "pkg/a.py") for where in ("one", "two", "three"))
    names = [name for name, _ in _jit._closure("pkg.a", one)]
    cards = [
        name
        for name, _ in _jit._closure(
            "fortythieves_env.rules.cards", str(ROOT / "fortythieves_env/rules/cards.py")
        )
    ]
    assert "fortythieves_env.rules.cards" in cards
    assert names == sorted([*cards, "pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e", "pkg.h"])
    assert _jit._digest("pkg.a", one) == _jit._digest("pkg.a", two)
    assert _jit._digest("pkg.a", one) != _jit._digest("pkg.a", three)


# ---------------------------------------------------------------------- point 9
PLAY = r"""
import json, sys
if sys.argv[2] == "simulate":  # root writes anywhere: numba finds no cache folder, as if
    from numba.core import caching
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # numba < 0.61
    for cls in impl._locator_classes:
        cls.from_function = classmethod(lambda cls, py_func, py_file: None)
import numpy as np
import gymnasium as gym
import fortythieves_env
from fortythieves_env import FortyThievesVectorEnv

assert fortythieves_env.__file__.startswith(sys.argv[1]), fortythieves_env.__file__
env = gym.make("FortyThieves/Streets-v0")
obs, info = env.reset(seed=3)
for _ in range(6):
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
venv = FortyThievesVectorEnv("Streets", 2)
venv.reset(seed=3)
vobs = venv.step(np.zeros(2, dtype=np.int64))[0]  # a draw in both games
print(json.dumps({"backend": env.unwrapped.backend, "obs": obs.tolist(),
                  "cards": int(info["foundation_cards"]), "vector_obs": vobs.tolist()}))
"""


def _reference_play() -> dict[str, object]:
    """What :data:`PLAY` prints, played here (cached kernels)."""
    import gymnasium as gym
    import numpy as np

    from fortythieves_env import FortyThievesVectorEnv

    env = gym.make("FortyThieves/Streets-v0")
    obs, info = env.reset(seed=3)
    for _ in range(6):
        obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    venv = FortyThievesVectorEnv("Streets", 2)
    venv.reset(seed=3)
    vobs = venv.step(np.zeros(2, dtype=np.int64))[0]
    return {
        "backend": env.unwrapped.backend,
        "obs": obs.tolist(),
        "cards": int(info["foundation_cards"]),
        "vector_obs": vobs.tolist(),
    }


def _without_root_powers() -> tuple[list[str], str]:
    """The command prefix under which read-only folders are read-only (nothing but as root:
    a new user namespace), and :data:`PLAY`'s mode (``"simulate"``: as root with no user
    namespace, numba is told there is no cache folder)."""
    if os.geteuid() != 0:
        return [], "read-only"
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "--user", "true"], check=False).returncode == 0:
        return [unshare, "--user"], "read-only"
    return [], "simulate"


def _read_only(path: Path) -> None:
    for sub in [path, *path.rglob("*")]:
        mode = sub.stat().st_mode
        sub.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _writable(path: Path) -> None:
    for sub in [path, *path.rglob("*")]:
        sub.chmod(sub.stat().st_mode | stat.S_IWUSR)


def test_no_writable_cache_folder_compiles_uncached_with_one_warning(tmp_path: Path) -> None:
    """Point 9: with the package folder and HOME read-only and no ``NUMBA_CACHE_DIR``,
    ``import fortythieves_env`` and playing the env and the vector env work, uncached, with
    one warning line that names ``NUMBA_CACHE_DIR``; nothing is written.

    Root writes into read-only folders: as root the subprocess runs in a new user namespace
    (``unshare --user``: the folders' owner without root's powers) or, where that is not
    allowed, with numba's cache locators made to find no folder, which is exactly numba's
    case: ``no locator available``."""
    copy = _copy_package(tmp_path / "site", with_cache=False)
    home = tmp_path / "home"
    home.mkdir()
    prefix, mode = _without_root_powers()
    _read_only(copy)
    _read_only(home)
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", PLAY, str(copy), mode],
            cwd=home,
            env=_clean_env(PYTHONPATH=str(copy), HOME=str(home), PYTHONDONTWRITEBYTECODE="1"),
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        _writable(copy)
        _writable(home)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == _reference_play()
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "NoCacheWarning: fortythieves_env: numba cannot cache compiled kernels" in lines[0]
    assert "no locator available" in lines[0] and "set NUMBA_CACHE_DIR" in lines[0]
    assert not [p for p in [*copy.rglob("*.nbi"), *home.rglob("*")]]  # nothing cached
    docs = (ROOT / "docs" / "performance.md").read_text()
    assert "set `NUMBA_CACHE_DIR` to a writable folder" in docs
