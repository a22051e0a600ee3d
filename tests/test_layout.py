"""The repository's layout (issue 27 point 3): ``results/`` holds data only; the scripts
that made it are in ``scripts/`` under the same sub-folders."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT


def test_results_hold_data_only_and_their_scripts_are_in_scripts() -> None:
    code = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "results").rglob("*")
        if p.suffix in {".py", ".sh"}
    )
    assert code == [], f"scripts under results/ (move them to scripts/): {code}"
    for script in ("solver/run_v3.sh", "search/run_eval.sh", "training/run_variant.sh"):
        assert (ROOT / "scripts" / script).is_file(), script


LAYERS = {
    "cli": 5,
    "family": 4,
    "training": 3,
    "reports": 3,
    "evaluation": 2,
    "networks": 1,
    "players": 1,
}
"""The agents' subpackages by floor: a subpackage imports only from floors below its own
and from the shared modules at the package's top (floor 0), which import no subpackage."""


def _agents_imports(path: Path, package: tuple[str, ...]) -> set[str]:
    """The first names under ``fortythieves_agents`` that ``path`` (a module of ``package``,
    e.g. ``("fortythieves_agents", "training")``) imports, relative imports resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            parts = [*base, *(node.module or "").split(".")] if node.module else [*base]
            if parts[:1] != ["fortythieves_agents"]:
                continue
            found |= {parts[1]} if len(parts) > 1 else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {
                a.name.split(".")[1]
                for a in node.names
                if a.name.startswith("fortythieves_agents.")
            }
    return found


def test_the_agents_subpackages_import_only_downward() -> None:
    """issue 27 point 3: agents/ by role (players, networks, training, evaluation, reports,
    cli)."""
    folder = ROOT / "agents"
    assert sorted(p.name for p in folder.iterdir() if (p / "__init__.py").is_file()) == sorted(
        LAYERS
    )
    wrong = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).parts
        own = parts[0] if len(parts) > 1 else None
        floor = LAYERS[own] if own else 0
        package = ("fortythieves_agents", *parts[:-1])
        for name in _agents_imports(path, package):
            if name in LAYERS and name != own and LAYERS[name] >= floor:
                wrong.append(f"{path.relative_to(ROOT)} imports fortythieves_agents.{name}")
    assert wrong == []
    # the test folders mirror the packages: tests/env for fortythieves_env, tests/agents/<role>
    assert {p.name for p in (ROOT / "tests" / "agents").iterdir() if p.is_dir()} >= set(LAYERS)
    assert any((ROOT / "tests" / "env").glob("test_*.py"))


LONG_FUNCTIONS = {"fortythieves_env/solver/search.py:_search"}
"""Functions allowed over 120 lines: the solver's compiled search, whose split into five
inline kernels gave the same answers at 0.75-0.92x the nodes per CPU-second
(results/refactor/solver_search_split_speed.txt)."""


def test_no_function_of_the_packages_is_over_120_lines() -> None:
    """issue 27 point 3, but for the one exception above."""
    long = set()
    for package in ("fortythieves_env", "agents"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                    if lines > 120:
                        long.add(f"{path.relative_to(ROOT).as_posix()}:{node.name}")
    assert long == LONG_FUNCTIONS


LONG_MODULES: set[str] = set()
"""The environment's modules over 800 lines: none since the vector environment's compiled
step moved to ``envs/vector_step.py`` (issue 38, point 1); a list that only grows with a
measured reason, as :data:`LONG_FUNCTIONS`."""


def test_no_module_of_the_environment_is_over_800_lines() -> None:
    """issue 38, point 1: ``fortythieves_env`` by role, no module over 800 lines but the
    ones above."""
    long = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "fortythieves_env").rglob("*.py")
        if len(path.read_text(encoding="utf-8").splitlines()) > 800
    }
    assert long == LONG_MODULES


ENV_LAYERS = {"rules": 1, "solver": 2, "envs": 2, "records": 3}
"""The environment package's subpackages by floor (issue 38, point 1): each imports only from
floors below its own. ``rules`` (the rules core, free of Gymnasium) is the ground floor; the
solver and the Gymnasium environments both stand on it alone and never import each other
(the same floor); the records replay games in the environment. The package's top holds
``__init__`` (the public names, which imports every floor), ``core`` (the rules core's public
name: :mod:`fortythieves_env.rules.core` itself) and ``_moved`` (the old module paths); no
subpackage imports them (but the package's ``__version__``)."""

ENV_TOP = {"__init__.py", "core.py", "_moved.py", "py.typed"}
"""The files at the top of ``fortythieves_env``: the rest lives in a subpackage by role."""


def _env_package_imports(path: Path) -> set[tuple[str, str]]:
    """``(first name under fortythieves_env, imported name)`` of each import of the package
    that ``path`` (a module of ``fortythieves_env``) makes, relative imports resolved; the
    imported name is ``""`` for a module import."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]  # a module's package, or the package of an __init__
    found: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = [*base, *(node.module or "").split(".")] if node.module else [*base]
            mod = [m for m in mod if m]
            if mod[:1] != ["fortythieves_env"]:
                continue
            if len(mod) > 1:
                found |= {(mod[1], a.name) for a in node.names}
            else:
                found |= {(a.name, "") for a in node.names}
        elif isinstance(node, ast.Import):
            for a in node.names:
                mod = a.name.split(".")
                if mod[0] == "fortythieves_env":
                    found.add((mod[1] if len(mod) > 1 else "", ""))
    return found


def test_the_environment_subpackages_import_only_downward() -> None:
    """issue 38, point 1: ``fortythieves_env`` by role: rules <- solver, rules <- envs <-
    records; the top holds only :data:`ENV_TOP`."""
    folder = ROOT / "fortythieves_env"
    assert {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()} == set(ENV_LAYERS)
    assert {p.name for p in folder.iterdir() if p.is_file()} == ENV_TOP
    wrong = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).parts
        if len(parts) == 1:
            continue
        own = parts[0]
        for first, name in _env_package_imports(path):
            if first in ENV_LAYERS:
                if first != own and ENV_LAYERS[first] >= ENV_LAYERS[own]:
                    wrong.append(f"{path.relative_to(ROOT)} imports fortythieves_env.{first}")
            elif "__version__" not in (first, name):
                wrong.append(f"{path.relative_to(ROOT)} imports fortythieves_env.{first} {name}")
    assert wrong == []


def test_the_rules_import_no_gymnasium() -> None:
    """issue 38, point 1: the rules package is the pure core (STYLE.md, habit 1): none of its
    modules imports Gymnasium, at any level; the environments adapt it."""
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "fortythieves_env" / "rules").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "gymnasium")
        or (
            isinstance(node, ast.Import)
            and any(a.name.split(".")[0] == "gymnasium" for a in node.names)
        )
    ]
    assert found == []


def test_no_module_of_the_agents_is_over_800_lines() -> None:
    """issue 38, point 4: ``agents/`` in modules of readable size, with no exception."""
    long = {
        f"{path.relative_to(ROOT).as_posix()}: {n} lines"
        for path in (ROOT / "agents").rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert long == set()


def test_the_search_budget_numbers_are_stated_once_in_a_module_without_numba() -> None:
    """issue 38, point 4: the search budget's constants live in ``players/search_budget.py``,
    whose module-level imports load neither numba nor ``fortythieves_env`` (the budget's
    checks import them when a budget is made), so the command line reads them there
    instead of restating them; no other module of ``agents/`` assigns one."""
    budget = ROOT / "agents" / "players" / "search_budget.py"
    tree = ast.parse(budget.read_text(encoding="utf-8"))
    loaded = {
        (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
        for n in tree.body  # module level; an ``if TYPE_CHECKING:`` block is not run
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert {name.split(".")[0] for name in loaded} <= {
        "__future__",
        "dataclasses",
        "typing",
        "numpy",
    }
    names = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and not t.id.startswith("__")
    }
    assert {"DEFAULT_SAMPLES", "DEFAULT_SECONDS", "DEFAULT_NODES", "MAX_SECONDS"} <= names
    restated = []
    for path in sorted((ROOT / "agents").rglob("*.py")):
        if path == budget:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            restated += [
                f"{path.relative_to(ROOT)}: {t.id}"
                for t in targets
                if isinstance(t, ast.Name) and t.id in names
            ]
    assert restated == []


RUN_FOLDER_NAMES = {
    "config.yaml",
    "command.txt",
    "run.json",
    "final_evaluation.json",
    "learning_curves.png",
    "models",
    "checkpoints",
    "eval",
    "tensorboard",
    "expert",
    "best_model.zip",
    "final_model.zip",
    "interrupted_model.zip",
    "teacher_model.zip",
    "evaluations.npz",
    "foundation_cards.npz",
}
"""The names of a run folder's files and folders (:mod:`fortythieves_agents.run_folder`)."""


def test_the_run_folder_paths_are_made_in_run_folder_py_only() -> None:
    """issue 38, point 4: the run folder's layout is owned by ``run_folder.py``; no other
    module joins one of its names onto a path (``run / "run.json"``). The reports read the
    shipped ``results/`` folders, whose layout is their own, and are left out."""
    joined = []
    for path in sorted((ROOT / "agents").rglob("*.py")):
        if path.name == "run_folder.py" or "reports" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                right = node.right
                if isinstance(right, ast.Constant) and right.value in RUN_FOLDER_NAMES:
                    joined.append(f"{path.relative_to(ROOT)}:{node.lineno} / {right.value!r}")
    assert joined == []


def _env_imports(path: Path) -> set[str]:
    """The modules of ``fortythieves_env`` that ``path`` imports (``a.b`` for
    ``fortythieves_env.a.b``; the names of ``from fortythieves_env import x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "fortythieves_env":
                continue
            if len(parts) > 1:
                found.add(".".join(parts[1:]))
            else:
                found |= {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {
                a.name.partition(".")[2]
                for a in node.names
                if a.name.startswith("fortythieves_env.")
            }
    return found


def test_no_private_import_across_the_two_packages() -> None:
    """issue 38, point 1: ``agents/`` imports only public names of the environment (the
    compiled-kernel decorator, the input checks and the user-file opener have public homes:
    :mod:`fortythieves_env.rules.jit`, :mod:`fortythieves_env.rules.checks`,
    :mod:`fortythieves_env.records.files`), and the environment imports nothing of the
    agents."""
    private = set()
    for path in sorted((ROOT / "agents").rglob("*.py")):
        for name in _env_imports(path):
            if any(p.startswith("_") and not p.endswith("__") for p in name.split(".")):
                private.add(name)
    assert private == set(), f"private imports from fortythieves_env: {private}"
    for path in sorted((ROOT / "fortythieves_env").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "fortythieves_agents" not in _env_imports(path)
        assert "import fortythieves_agents" not in text and "from fortythieves_agents" not in text
