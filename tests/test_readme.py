"""The README's commands are the ones CI runs, and the README and the documentation site
(``docs/``) run as they are shown: every Python block runs, every ``fortythieves`` command
parses (the training ones run on a tiny budget), and their tables match the code and the
saved reports. ``tests/test_docs.py`` builds the site."""

from __future__ import annotations

import argparse
import doctest
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import _register_variant_specs, build_parser, main
from fortythieves_agents.config import load_config
from fortythieves_agents.family.config import FamilyConfig, config_model
from helpers import ROOT, STREETS

from configs import FAMILY_SMALL, FAMILY_TINY, TINY, with_set
from fortythieves_env import VARIANTS, FortyThievesEnv

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES: dict[str, str] = {
    "README.md": README,
    **{
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(DOCS.rglob("*.md"))
    },
}
"""Every page a reader sees: the README and the documentation site's Markdown."""


def page(name: str) -> str:
    """The text of ``docs/<name>``."""
    return PAGES[f"docs/{name}"]


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def _as_one_line(command: str) -> str:
    """A shell command as the shell reads it: lines ending in ``\\`` joined, runs of spaces
    as one (the docs break long commands into lines so that they fit the page)."""
    return " ".join(command.replace("\\\n", " ").split())


def test_ci_runs_the_readme_test_command() -> None:
    blocks = _bash_blocks(README)
    test_command = next(b for b in blocks if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()
    assert "pip install torch==2.13.0" in test_command  # the CPU build comes first
    assert '".[test,video,plots,pysol,ray,docs]"' in test_command  # the docs' tests run too
    # the getting-started page shows the same command (broken into lines there)
    assert test_command in [_as_one_line(b) for b in _bash_blocks(page("getting-started.md"))]


CPU_TORCH = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
"""The CPU build of the pinned torch (PyPI's is a CUDA build of several GB on Linux)."""


def test_getting_started_gives_both_commands_with_cpu_torch() -> None:
    """issue 37 point 9: "the same two commands with torch from the CPU index" showed one
    of them; its two blocks are the README's two commands, each with torch from the CPU
    index, broken into lines short enough for the page (issue 37 point 12: the one-line
    commands were cut at its right edge)."""
    text = page("getting-started.md")
    heading = "The same two commands with torch from the CPU index:"
    assert text.count(heading) == 1
    readme = _bash_blocks(README)[:2]
    assert "pytest" in readme[1]
    expected = [c.replace("pip install torch==2.13.0", CPU_TORCH) for c in readme]
    assert all(command.count(CPU_TORCH) == 1 for command in expected)
    after = text.split(heading, 1)[1]
    shown = _bash_blocks(after.split("\n\n", 1)[1].split("\n\n```text", 1)[0])
    assert [_as_one_line(block) for block in shown[:2]] == expected
    assert after.split("\n\n", 1)[1].startswith("```bash\n")  # right after the sentence
    lines = [line for block in _bash_blocks(text) for line in block.splitlines()]
    assert max(len(line) for line in lines) <= 80  # every command of the page fits it


def test_readme_is_short_and_says_cpu_torch_before_the_commands() -> None:
    """At most 250 lines; the CPU-only note comes before the first install command."""
    assert len(README.splitlines()) <= 250
    note = README.index("--index-url https://download.pytorch.org/whl/cpu")
    assert note < README.index("```bash")
    for target in re.findall(r"\]\(((?:docs/)[^)#]+)", README):  # links into the docs exist
        assert (ROOT / target).is_file(), target


def test_quick_start_trains_a_real_variant() -> None:
    main = _bash_blocks(README)[0]
    config = re.search(r"fortythieves train (configs/\S+\.yaml)", main)
    assert config is not None and (ROOT / config.group(1)).is_file()


def test_variants_table_matches_the_specs() -> None:
    text = page("variants/index.md")
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ")]
    # the variants table is the one with 11 columns (variant names head other tables too)
    table = {
        r[0].strip(): [c.strip() for c in r]
        for r in rows
        if len(r) == 11 and r[0].strip() in VARIANTS
    }
    assert list(table) == list(VARIANTS)
    assert "start: what lies on the foundations before the deal; `-`: nothing" in text
    for variant, row in table.items():
        spec = VARIANTS[variant]
        env = FortyThievesEnv(variant)
        assert row[2] == str(spec.n_columns)
        assert row[3] == f"{spec.cards_per_column} ({spec.face_down}+{spec.face_up})"
        assert row[4] == str(spec.stock_size)
        assert row[7] == f"{spec.deal_count} / {spec.redeals}"
        # issue 37 point 12: an empty cell read as a missing value; "-" is explained below
        assert row[8] == ("8 Aces on the foundations" if spec.aces_on_foundations else "-")
        assert row[9] == str(env.action_space.n)
        assert row[10] == str(env.observation_space.shape[0])


def test_rule_book_copy_matches_the_shared_one() -> None:
    """RULES.md ships with the package; the team's shared copy, where present, is the source."""
    ours = (ROOT / "RULES.md").read_text(encoding="utf-8")
    assert "## Position and move notation" in ours
    shared = ROOT.parent / "shared" / "RULES.md"
    if shared.is_file():
        assert ours == shared.read_text(encoding="utf-8")


# ------------------------------------------------------------------ runnable README and docs
# Every Python block runs as written; every ``fortythieves`` command line parses with the real
# parser (its config loads), and the training and evaluation commands run on a tiny budget.

_FENCE = re.compile(r"```(\w*)\n(.*?)```", flags=re.S)
_COMMAND = re.compile(r"(?:\.venv/bin/)?fortythieves \w+ (?!\.\.\.)[^`\n&|]+")
_PLACEHOLDERS = {"configs/<variant>.yaml": "configs/streets.yaml"}
_RUN_WORDS = {"RUN", "RUN_OR_MODEL"}


def _page_blocks(lang: str) -> list[tuple[str, str]]:
    """``(page, body)`` of every ``lang`` block of every page, in page order."""
    return [
        (name, body)
        for name, text in PAGES.items()
        for tag, body in _FENCE.findall(text)
        if tag == lang
    ]


def _blocks(lang: str) -> list[str]:
    return [body for _, body in _page_blocks(lang)]


def _shown_commands() -> list[str]:
    """Every ``fortythieves COMMAND ARGS`` line in code blocks and inline code of every page,
    as shown, each once (a bare command name, an error message ``fortythieves evaluate:
    ...`` and ``...`` are not)."""
    out: dict[str, None] = {}
    for text in PAGES.values():
        spans = [body for _, body in _FENCE.findall(text)]
        spans += re.findall(r"`([^`\n]+)`", _FENCE.sub("", text))
        for span in spans:
            # an indented line continues the line before it (a wrapped usage line), as does
            # one after a line ending in a backslash (a shell command broken into lines)
            span = re.sub(r"\\\n[ \t]*", " ", span)
            for line in re.sub(r"\n[ \t]+", " ", span).splitlines():
                out.update((m.group(0).strip(), None) for m in _COMMAND.finditer(line))
    return list(out)


def _run_block(block: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a Python block as a reader in a clone would: from a folder that has the
    repository's saved ``results/`` (read only: the blocks read the solver's labels there)."""
    if not (cwd / "results").exists():
        (cwd / "results").symlink_to(ROOT / "results", target_is_directory=True)
    return subprocess.run(
        [sys.executable, "-c", block],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_readme_shows_commands_and_python() -> None:
    commands = _shown_commands()
    assert any(c.startswith("fortythieves train ") for c in commands)
    assert any(c.startswith("fortythieves evaluate ") for c in commands)
    assert _blocks("python") and _blocks("pycon")


_PYTHON = _page_blocks("python")


@pytest.mark.parametrize(
    "index", range(len(_PYTHON)), ids=[f"{name}-{i}" for i, (name, _) in enumerate(_PYTHON)]
)
def test_python_block_runs(index: int, tmp_path: Path) -> None:
    name, block = _PYTHON[index]
    done = _run_block(block, tmp_path)
    assert done.returncode == 0, f"{name}: python block failed:\n{block}\n{done.stderr}"


_ID_COMMENT = re.compile(r'^(\w+) = gym\.make\(.*\)\s+# as "(FortyThieves/[\w-]+)"', flags=re.M)


def test_readme_id_comments_name_the_id_the_call_makes(tmp_path: Path) -> None:
    """A ``env = gym.make(...)  # as "FortyThieves/X-vN"`` line in a Python block names the
    id of the environment it makes (the custom-variant block said ``Wide-v0`` where
    ``register_variant`` returns ``-v1``)."""
    checked = 0
    for block in _blocks("python"):
        found = list(_ID_COMMENT.finditer(block))
        if not found:
            continue
        lines = block.splitlines()
        for match in reversed(found):  # print each id right after its line
            at = block[: match.end()].count("\n")
            lines.insert(at + 1, f"print({match.group(1)}.spec.id)")
        done = _run_block("\n".join(lines), tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [m.group(2) for m in found]
        checked += len(found)
    assert checked >= 1


def test_readme_pycon_blocks_give_the_output_shown() -> None:
    parser = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for index, (name, block) in enumerate(_page_blocks("pycon")):
        test = parser.get_doctest(block, {}, f"{name} pycon block {index}", name, 0)
        runner = doctest.DocTestRunner(optionflags=flags)
        out: list[str] = []
        runner.run(test, out=out.append)
        assert runner.failures == 0, "".join(out)


def _synopsis_options(command: str) -> set[str]:
    return set(re.findall(r"(--[a-z][a-z-]*)", command))


def test_readme_synopsis_lines_name_real_options() -> None:
    """Usage lines (with ``[...]``) name only options the parser has, and all of them."""
    parser = build_parser()
    subparsers = next(
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    ).choices
    synopses = [c for c in _shown_commands() if "[" in c]
    assert synopses
    for name, sub in subparsers.items():
        real = {s for a in sub._actions for s in a.option_strings if s.startswith("--")}
        real.discard("--help")
        shown = set().union(*(_synopsis_options(c) for c in synopses if c.split()[1] == name))
        assert shown == real, f"fortythieves {name}: the docs' synopsis {shown} != parser {real}"


def _runnable(command: str, run_dir: Path, family_dir: Path | None = None) -> list[str] | None:
    """The argv of a shown command with placeholders filled; None for usage lines. A run
    of the family (``runs/family...``) is ``family_dir``, any other run ``run_dir``."""
    if "[" in command:
        return None
    for shown, real in _PLACEHOLDERS.items():
        command = command.replace(shown, real)
    words = shlex.split(command)[1:]
    family = str(family_dir or run_dir)
    return [
        family
        if w.startswith("runs/family")
        else str(run_dir)
        if w in _RUN_WORDS or w.startswith("runs/")
        else w
        for w in words
    ]


def _shown_file(name: str, folder: Path) -> Path:
    """The file a page shows as a ``text`` block whose first line is ``# NAME``, written
    into ``folder``."""
    for text in PAGES.values():
        for _, body in _FENCE.findall(text):
            first, _, rest = body.partition("\n")
            if first.strip() == f"# {name}":
                path = folder / name
                path.write_text(rest, encoding="utf-8")
                return path
    raise AssertionError(f"no page shows the file {name}")


def test_readme_commands_parse_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each command parses; ``train`` ones load their config and train on a tiny budget
    (into a fresh folder), then each ``evaluate`` one runs on that run for one deal, and
    each ``play`` one plays with ``l``, ``h``, ``d``, ``q`` typed on its standard input."""
    parser = build_parser()
    run_dir = tmp_path / "run"
    family_dir = tmp_path / "family-run"  # the family's runs (docs/family.md)
    trained = False
    commands = [c for c in _shown_commands() if "[" not in c]
    # train first (the variants, then the family), so the evaluate commands have a run to read
    for command in sorted(
        commands,
        key=lambda c: (not c.startswith("fortythieves train"), "train family" in c),
    ):
        argv = _runnable(command, run_dir, family_dir)
        assert argv is not None
        if "--variant-spec" in argv:  # the file the docs show beside the command
            name = argv[argv.index("--variant-spec") + 1]
            argv[argv.index("--variant-spec") + 1] = str(_shown_file(name, tmp_path))
            _register_variant_specs(argv)
        if argv[0] == "leaderboard":  # the reports it names, made here first (Lucas, 2 deals)
            for k, name in enumerate(argv[1:], start=1):
                argv[k] = str(tmp_path / Path(name).name)
                made = ["evaluate", "greedy", "--variant", "Lucas", "--episodes", "2"]
                assert main([*made, "--per-episode", "--json", argv[k], "--no-progress"]) == 0
        args = parser.parse_args(argv)
        if args.command == "train":
            # the config as shown must load
            config = load_config(args.config, args.overrides, model=config_model)
            target = run_dir if not trained else tmp_path / f"run{len(list(tmp_path.iterdir()))}"
            tiny, family = TINY, isinstance(config, FamilyConfig)
            if family:
                tiny = FAMILY_TINY
                if config.family.start_model is None:
                    tiny = [*tiny, *FAMILY_SMALL]  # a start model keeps its own sizes
                if not family_dir.exists():
                    target = family_dir
            run = [*argv, *with_set(tiny)]
            if "--run-dir" in run:
                run[run.index("--run-dir") + 1] = str(target)
            else:
                run += ["--run-dir", str(target)]
            assert main(run) == 0, command
            trained = trained or not family
        elif args.command == "evaluate":
            assert trained
            argv = [w for w in argv if w != "--json" and not w.endswith(".json")]
            if "--episodes" in argv:
                argv[argv.index("--episodes") + 1] = "1"
            else:
                argv += ["--episodes", "1"]
            if "--save-games" in argv:  # the records go to the test's folder
                argv[argv.index("--save-games") + 1] = str(tmp_path / "games")
            assert main(argv) == 0, command
        elif args.command == "replay":  # a record the evaluate command above wrote
            argv = [str(tmp_path / w) if w.startswith("games/") else w for w in argv]
            for option in ("--gif", "--html"):
                if option in argv:
                    argv[argv.index(option) + 1] = str(tmp_path / f"out{option[2:]}")
            assert main(argv) == 0, command
        elif args.command == "play":  # interactive: a few typed lines, then quit
            if "--pysol-deal" in argv:
                pytest.importorskip("pysol_cards", reason="the pysol extra is not installed")
            if "--save" in argv:
                argv[argv.index("--save") + 1] = str(tmp_path / "played.json")
            if "--hint-model" in argv:  # RUN is the test's run: play its variant
                from fortythieves_agents.cli.main import resolve_model_path
                from fortythieves_agents.networks.model_zip import model_variant

                model = resolve_model_path(Path(argv[argv.index("--hint-model") + 1]))
                argv[1] = model_variant(model) or argv[1]
            monkeypatch.setattr(sys, "stdin", io.StringIO("l\nh\nd\nq\n"))
            capsys.readouterr()
            assert main(argv) == 0, command
            out = capsys.readouterr().out
            assert "hint (" in out and "the move played: draw" in out, command
        elif args.command == "leaderboard":
            capsys.readouterr()
            assert main(argv) == 0, command
            assert "| Lucas | greedy | 2 |" in capsys.readouterr().out, command
        elif args.command == "family":  # a family run's zero-shot report, one deal each
            assert family_dir.is_dir(), command
            argv = [w for w in argv if w != "--json" and not w.endswith(".json")]
            for option in ("--episodes", "--outside"):
                if option in argv:
                    argv[argv.index(option) + 1] = "1"
            assert main([*argv, "--games", "NumberTen", "Josephine"]) == 0, command


def test_the_shipped_torch_threads_are_the_best_worst_case_of_the_saved_report() -> None:
    """The docs' torch-threads table (its block is checked by
    ``tests/agents/reports/test_generated.py``) chose the shipped ``train.torch_threads``."""
    report = json.loads((ROOT / "results" / "benchmarks" / "train_under_load.json").read_text())
    best = max(report["worst_case"], key=lambda t: report["worst_case"][t])
    defaults = load_config(STREETS)
    assert defaults.train.torch_threads == int(best) == report["best_torch_threads"]


def test_the_throughput_reports_cover_every_variant() -> None:
    for name in ("vector_throughput", "env_throughput"):
        report = json.loads((ROOT / "results" / "benchmarks" / f"{name}.json").read_text())
        assert [row["variant"] for row in report["rows"]] == list(VARIANTS), name
    report = json.loads((ROOT / "results" / "benchmarks" / "env_throughput.json").read_text())
    assert report["openspiel"] > 0


def test_the_shipped_defaults_are_the_settings_the_training_pilots_chose() -> None:
    """The docs' batched-vs-dummy training tables (blocks ``pilot-table`` and
    ``pilot2-table``) show the pilots; the shipped defaults are the settings their rule chose."""
    defaults = load_config(STREETS)
    path = ROOT / "results" / "training" / "vec_env_pilot" / "summary.json"
    report = json.loads(path.read_text())
    chosen = [r for r in report["runs"] if r["config"]["train.vec_env"] == "batched"]
    assert chosen and all(r["config"]["ppo.batch_size"] == defaults.ppo.batch_size for r in chosen)
    assert defaults.train.vec_env == "batched"
    # the second pilot chose the smaller layer and 32 x 64 rollouts: the shipped defaults
    path = ROOT / "results" / "training" / "vec_env_pilot" / "smaller.json"
    report = json.loads(path.read_text())
    chosen = [r for r in report["runs"] if r["config"]["train.n_envs"] == 32]
    assert chosen and all(
        r["config"]["train.n_envs"] == defaults.train.n_envs
        and r["config"]["ppo.n_steps"] == defaults.ppo.n_steps
        and r["config"]["policy.features_dim"] == defaults.policy.features_dim
        for r in chosen
    )
