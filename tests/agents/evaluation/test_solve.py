"""``fortythieves solve``: the clairvoyant solver on the test deals, per-deal JSONL results
kept across runs, the report and the README's winnability table.

Small node budgets on Little Forty keep it fast; everything runs in-process through
``fortythieves_agents.cli.main.main`` except the two-worker run (a ``multiprocessing`` pool).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import fortythieves_agents.evaluation.solve as solve_module
import gymnasium as gym
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import render_table as render_evaluation
from fortythieves_agents.evaluation.evaluate import wilson_interval
from fortythieves_agents.evaluation.solve import (
    SolverResultsError,
    markdown_table,
    read_records,
    run_deals,
    solver_verdicts,
    summarize,
    verdict_changes,
)
from fortythieves_agents.reports.solver import solver_budget_curve_table, winnability_table
from fortythieves_agents.seeds import TEST_START, seeds_for_test
from helpers import ROOT, one_error_line
from rich.console import Console

import fortythieves_env.envs.backends as backends_module
from fortythieves_env import RULES_VERSION, env_id

pytestmark = pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")

NODES = 3000
RECORD_KEYS = {
    "variant",
    "proof",
    "seed",
    "nodes_budget",
    "seconds_cap",
    "solver_version",
    "rules_version",
    "step_limit",
    "rules",
    "status",
    "stopped_by",
    "found_by",
    "nodes",
    "seconds",
    "moves",
    "line",
}


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def without_time(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "seconds"}


@pytest.fixture(scope="module")
def little_forty_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 Little Forty deals at 3000 nodes, one worker, through the command line."""
    folder = tmp_path_factory.mktemp("solve")
    results = folder / "LittleForty.jsonl"
    argv = ["solve", "LittleForty", "--deals", "3", "--nodes", str(NODES)]
    argv += ["--workers", "1", "--results", str(results), "--json", str(folder / "r.json")]
    assert main(argv) == 0
    return results


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["Nope", "--deals", "3", "--nodes", "10"], ["VARIANT", "Nope"]),
        (["LittleForty", "--deals", "0", "--nodes", "10"], ["--deals", "'0'"]),
        (["LittleForty", "--deals", "3", "--nodes", "0"], ["--nodes", "'0'"]),
        (["LittleForty", "--deals", "3", "--nodes", "-5"], ["--nodes"]),
        (["LittleForty", "--deals", "3"], ["--nodes"]),
        (["LittleForty", "--nodes", "3"], ["--deals"]),
        (["LittleForty", "--deals", "3", "--nodes", "10", "--workers", "0"], ["--workers"]),
        (["LittleForty", "--deals", "3", "--nodes", "10", "--workers", "x"], ["--workers"]),
        (["LittleForty", "--deals", "3", "--nodes", "10", "--budget", "0"], ["--budget"]),
        (["LittleForty", "--deals", "3", "--nodes", "10", "--budget", "nan"], ["--budget"]),
        (["LittleForty", "--deals", "3", "--nodes", "10", "--budget", "inf"], ["--budget"]),
    ],
)
def test_bad_arguments_are_one_line(
    args: list[str], names: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    assert main(["solve", *args, "--results", str(results)]) == 2
    one_error_line(capsys, *names, command="solve")
    assert not results.exists()


def test_unwritable_json_and_results_are_refused_before_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x", encoding="utf-8")
    results = tmp_path / "r.jsonl"
    base = ["solve", "LittleForty", "--deals", "2", "--nodes", "10"]
    assert main([*base, "--results", str(results), "--json", str(a_file / "r.json")]) == 2
    one_error_line(capsys, "--json", str(a_file), command="solve")
    assert not results.exists()
    assert main([*base, "--results", str(tmp_path)]) == 2  # a folder
    one_error_line(capsys, "--results", "folder", command="solve")
    assert main([*base, "--results", str(a_file / "r.jsonl")]) == 2
    one_error_line(capsys, "--results", "is a file, not a folder", command="solve")


def test_default_results_path_is_checked_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").write_text("x", encoding="utf-8")  # runs/ cannot be a folder
    assert main(["solve", "LittleForty", "--deals", "2", "--nodes", "10"]) == 2
    one_error_line(capsys, "--results", "runs/solver/LittleForty.jsonl", command="solve")


def test_by_default_solve_writes_under_runs_and_leaves_the_shipped_results_alone(
    little_forty_run: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first ``solve`` in a checkout appended to the tracked results/solver/<variant>.jsonl;
    it writes runs/solver/<variant>.jsonl (continued by a re-run), and ``evaluate`` still
    reads the shipped file for its solver column."""
    monkeypatch.chdir(tmp_path)
    shipped = tmp_path / "results" / "solver" / "LittleForty.jsonl"
    shipped.parent.mkdir(parents=True)
    shipped.write_text(little_forty_run.read_text(encoding="utf-8"), encoding="utf-8")
    before = shipped.read_bytes()
    base = ["solve", "LittleForty", "--nodes", str(NODES), "--workers", "1"]
    assert main([*base, "--deals", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "per-deal results: runs/solver/LittleForty.jsonl (1 solved now, 0 already there)" in out
    assert (
        "evaluate reads results/solver/LittleForty.jsonl for its solver column; give it these "
        "with --solver-results runs/solver/LittleForty.jsonl" in out
    )
    mine = tmp_path / "runs" / "solver" / "LittleForty.jsonl"
    assert [r["seed"] for r in lines_of(mine)] == [TEST_START]
    assert shipped.read_bytes() == before
    assert main([*base, "--deals", "2"]) == 0  # a re-run continues the same file
    out = capsys.readouterr().out.splitlines()
    assert "per-deal results: runs/solver/LittleForty.jsonl (1 solved now, 1 already there)" in out
    assert [r["seed"] for r in lines_of(mine)] == [TEST_START, TEST_START + 1]
    assert shipped.read_bytes() == before
    # evaluate's default ceiling is the shipped file's
    report = tmp_path / "e.json"
    ev = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", "3"]
    assert main([*ev, "--no-progress", "--json", str(report)]) == 0
    ceiling = json.loads(report.read_text())["results"]["greedy"]["solver_ceiling"]
    won = sum(r["status"] == "won" for r in lines_of(little_forty_run))
    assert ceiling["proved_won"] == won
    # naming the shipped file writes it, and then no pointer to --solver-results is printed
    assert main([*base, "--deals", "4", "--results", "results/solver/LittleForty.jsonl"]) == 0
    out = capsys.readouterr().out
    assert (
        "per-deal results: results/solver/LittleForty.jsonl (1 solved now, 3 already there)" in out
    )
    assert "--solver-results" not in out
    assert [r["seed"] for r in lines_of(shipped)] == [TEST_START + i for i in range(4)]


def test_a_damaged_results_file_is_refused_naming_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text('{"variant": "LittleForty"}\n', encoding="utf-8")
    argv = ["solve", "LittleForty", "--deals", "2", "--nodes", "10", "--results", str(results)]
    assert main(argv) == 2
    one_error_line(capsys, str(results), "line 1", "no 'seed'", command="solve")
    results.write_text("not json\n{}\n", encoding="utf-8")
    assert main(argv) == 2
    one_error_line(capsys, "line 1", "not JSON", command="solve")
    assert results.read_text(encoding="utf-8") == "not json\n{}\n"  # untouched


# ---------------------------------------------------------------------- a run
def test_each_line_is_the_solvers_answer_for_the_test_deal(little_forty_run: Path) -> None:
    """The saved records are what ``solve`` answers on ``reset(seed=2_000_000_000 + i)``,
    and a won line replays as a win through ``gymnasium.make``."""
    from fortythieves_env.solver import SOLVER_VERSION, solve

    records = lines_of(little_forty_run)
    assert [r["seed"] for r in records] == [TEST_START, TEST_START + 1, TEST_START + 2]
    env = gym.make(env_id("LittleForty"))
    for record in records:
        assert set(record) == RECORD_KEYS
        env.reset(seed=record["seed"])
        expected = solve(env.unwrapped.get_state(), nodes=NODES)
        assert record["variant"] == "LittleForty"
        assert record["nodes_budget"] == NODES
        assert record["seconds_cap"] is None
        assert record["solver_version"] == SOLVER_VERSION
        assert record["rules_version"] == RULES_VERSION
        assert record["step_limit"] == 1500 == expected.step_limit
        assert record["rules"] == "FWE"
        assert record["status"] == expected.status
        assert record["stopped_by"] == expected.stopped_by
        assert record["nodes"] == expected.nodes
        assert record["line"].split() == list(expected.moves)
        assert record["moves"] == len(expected.moves)
        assert record["proof"] == expected.proof
        assert isinstance(record["seconds"], float) and record["seconds"] >= 0
        if record["status"] == "won":
            rules = env.unwrapped.rules
            state = rules.from_position(env.unwrapped.get_state())
            for move in record["line"].split():
                rules.play(state, move)
            assert rules.is_won(state)
    assert any(r["status"] == "won" for r in records)


def test_the_json_report_counts_the_deals_with_wilson_intervals(little_forty_run: Path) -> None:
    report = json.loads((little_forty_run.parent / "r.json").read_text(encoding="utf-8"))
    records = lines_of(little_forty_run)
    assert report["deals"] == 3 and report["nodes_budget"] == NODES
    assert report["seeds"]["first"] == TEST_START and report["clairvoyant"] is True
    assert report["solved_now"] == 3
    assert report["rules_version"] == RULES_VERSION
    for status in ("won", "lost", "unknown"):
        count = sum(r["status"] == status for r in records)
        assert report[status]["count"] == count
        assert report[status]["share"] == count / 3
        assert report[status]["ci95"] == list(wilson_interval(count, 3))
    assert report["mean_nodes"] == sum(r["nodes"] for r in records) / 3


def test_two_workers_give_the_same_records(little_forty_run: Path, tmp_path: Path) -> None:
    path = tmp_path / "two.jsonl"
    run = run_deals("LittleForty", 3, NODES, workers=2, results_path=path)
    assert run.solved == 3
    one = sorted(lines_of(little_forty_run), key=lambda r: r["seed"])
    two = sorted(lines_of(path), key=lambda r: r["seed"])
    assert [without_time(r) for r in two] == [without_time(r) for r in one]
    assert [without_time(r) for r in run.records] == [without_time(r) for r in one]


def test_a_rerun_skips_done_deals_and_another_budget_adds_lines(
    little_forty_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(little_forty_run.read_text(encoding="utf-8"), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    base = ["solve", "LittleForty", "--workers", "1", "--results", str(path)]
    assert main([*base, "--deals", "5", "--nodes", str(NODES)]) == 0
    assert "2 solved now, 3 already there" in capsys.readouterr().out
    text = path.read_text(encoding="utf-8")
    assert text.startswith(before)  # nothing rewritten
    assert [r["seed"] for r in lines_of(path)[3:]] == [TEST_START + 3, TEST_START + 4]
    assert main([*base, "--deals", "5", "--nodes", str(NODES)]) == 0
    assert "0 solved now, 5 already there" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == text
    # another budget: new lines, and the report counts only them
    assert main([*base, "--deals", "2", "--nodes", "50", "--json", str(tmp_path / "j")]) == 0
    new = lines_of(path)[5:]
    assert [(r["seed"], r["nodes_budget"]) for r in new] == [(TEST_START, 50), (TEST_START + 1, 50)]
    report = json.loads((tmp_path / "j").read_text(encoding="utf-8"))
    assert report["deals"] == 2 and report["nodes_budget"] == 50
    assert report["mean_nodes"] == sum(r["nodes"] for r in new) / 2
    # another solver version: the old lines do not count
    import fortythieves_env.solver as solver_module

    monkeypatch.setattr(solver_module, "SOLVER_VERSION", 10**6)
    run = run_deals("LittleForty", 1, 50, results_path=path)
    assert run.solved == 1 and lines_of(path)[-1]["solver_version"] == 10**6


def test_a_deal_cut_by_the_seconds_cap_is_solved_again_under_a_larger_cap(
    little_forty_run: Path, tmp_path: Path
) -> None:
    first = lines_of(little_forty_run)[0]
    cut = {**first, "status": "unknown", "stopped_by": "seconds", "seconds_cap": 1.0}
    cut.update(moves=0, line="")
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(cut) + "\n", encoding="utf-8")
    assert run_deals("LittleForty", 1, NODES, 1.0, results_path=path).solved == 0
    assert run_deals("LittleForty", 1, NODES, 0.5, results_path=path).solved == 0
    run = run_deals("LittleForty", 1, NODES, 2.0, results_path=path)
    assert run.solved == 1 and run.records[0]["status"] == first["status"]
    assert len(lines_of(path)) == 2  # the new line supersedes the old one
    assert run_deals("LittleForty", 1, NODES, None, results_path=path).solved == 0


def test_an_unfinished_last_line_is_dropped_and_the_next_starts_a_new_line(
    little_forty_run: Path, tmp_path: Path
) -> None:
    path = tmp_path / "r.jsonl"
    whole = little_forty_run.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(whole[0] + whole[1][:40], encoding="utf-8")  # killed while writing
    records, ends_cleanly = read_records(path)
    assert [r["seed"] for r in records] == [TEST_START] and not ends_cleanly
    run = run_deals("LittleForty", 2, NODES, results_path=path)
    assert run.solved == 1
    assert [r["seed"] for r in read_records(path)[0]] == [TEST_START, TEST_START + 1]
    assert path.read_text(encoding="utf-8").endswith("\n")
    # a whole last record without its newline is kept, the next line starts after it
    path.write_text(whole[0] + whole[1].rstrip("\n"), encoding="utf-8")
    assert run_deals("LittleForty", 3, NODES, results_path=path).solved == 1
    assert [r["seed"] for r in lines_of(path)] == [TEST_START + i for i in range(3)]


def test_ctrl_c_keeps_finished_deals_and_prints_how_to_continue(
    little_forty_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "r.jsonl"
    solve_deal = solve_module.solve_deal
    calls = []

    def interrupted_on_second(*args: Any) -> dict[str, Any]:
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return solve_deal(*args)

    monkeypatch.setattr(solve_module, "solve_deal", interrupted_on_second)
    argv = ["solve", "LittleForty", "--deals", "3", "--nodes", str(NODES), "--workers", "1"]
    argv += ["--results", str(path)]
    assert main(argv) == 130
    err = capsys.readouterr().err.strip()
    assert err.startswith("fortythieves solve: interrupted; 1 deal(s)")
    assert err.endswith("continue with: " + shlex.join(["fortythieves", *argv]))
    assert [r["seed"] for r in lines_of(path)] == [TEST_START]
    monkeypatch.undo()
    assert main(argv) == 0
    assert "2 solved now, 1 already there" in capsys.readouterr().out
    assert [without_time(r) for r in sorted(lines_of(path), key=lambda r: r["seed"])] == [
        without_time(r) for r in lines_of(little_forty_run)
    ]


# ---------------------------------------------------------------------- reports and table
def record(seed: int, status: str, stopped_by: str = "", nodes: int = 100) -> dict[str, Any]:
    from fortythieves_env.solver import SOLVER_VERSION

    return {
        "variant": "Streets",
        "seed": seed,
        "nodes_budget": 100,
        "seconds_cap": None,
        "solver_version": SOLVER_VERSION,
        "status": status,
        "stopped_by": stopped_by,
        "nodes": nodes,
        "seconds": 0.5,
        "moves": 200 if status == "won" else 0,
        "line": "",
    }


def test_summarize_bounds_the_winnable_share() -> None:
    records = [record(0, "won", nodes=10), record(1, "won", nodes=30), record(2, "lost")]
    records += [record(3, "unknown", "nodes"), record(4, "unknown", "seconds")]
    s = summarize(records)
    assert [s[k]["count"] for k in ("won", "lost", "unknown")] == [2, 1, 2]
    assert s["unknown_stopped_by"] == {"nodes": 1, "seconds": 1}
    assert s["winnable_ci95"] == [wilson_interval(2, 5)[0], wilson_interval(4, 5)[1]]
    assert s["mean_nodes"] == (10 + 30 + 100 * 3) / 5
    assert s["mean_moves_won"] == 200.0


def test_markdown_table_rows_per_variant_and_budget(little_forty_run: Path, tmp_path: Path) -> None:
    from fortythieves_env.solver import SOLVER_VERSION

    sample = tmp_path / "solver"
    sample.mkdir()
    lf = lines_of(little_forty_run)
    (sample / "LittleForty.jsonl").write_text(little_forty_run.read_text(encoding="utf-8"))
    streets = [record(TEST_START + i, s) for i, s in enumerate(["won", "lost", "unknown"])]
    streets.append({**record(TEST_START, "lost"), "solver_version": SOLVER_VERSION + 1})
    streets.append({**record(5, "won")})  # a training seed: not a test deal
    (sample / "Streets.jsonl").write_text("".join(json.dumps(r) + "\n" for r in streets))
    table = winnability_table(sample)
    lines = table.splitlines()
    assert lines[0].startswith("| variant | solver | deals | node budget | seconds cap |")
    assert lines[0].endswith("| decided | winnable | mean nodes | mean s |")
    # the registry's order (LittleForty comes before Streets), then solver version; the
    # other version is a row of its own; the training seed left out
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in lines[2:]]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("LittleForty", f"v{SOLVER_VERSION}", "3"),
        ("Streets", f"v{SOLVER_VERSION}", "3"),
        ("Streets", f"v{SOLVER_VERSION + 1}", "1"),
    ]
    won = sum(r["status"] == "won" for r in lf)
    lost = sum(r["status"] == "lost" for r in lf)
    lo, hi = wilson_interval(won, 3)
    assert rows[0][3:6] == [
        f"{NODES:,}",
        "none",
        f"{100 * won / 3:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
    ]
    assert rows[0][8] == f"{100 * (won + lost) / 3:.1f}%"
    # Streets v3: one won, one lost, one unknown of 3 deals -> 66.7% decided
    assert rows[1][3:5] == ["100", "none"]
    assert rows[1][5].startswith("33.3% ") and rows[1][6].startswith("33.3% ")
    assert rows[1][7].startswith("33.3% ") and rows[1][8] == "66.7%"
    # the newer version's single lost record
    assert rows[2][6].startswith("100.0% ") and rows[2][8] == "100.0%"
    assert table == markdown_table(sorted(sample.glob("*.jsonl")))
    with pytest.raises(SolverResultsError, match="line 1"):
        (sample / "Bad.jsonl").write_text("[1]\n", encoding="utf-8")
        winnability_table(sample)


def test_the_solver_budget_curve_has_a_row_per_variant_and_budget() -> None:
    """docs/solver.md's wins-against-budget table, rendered from ``results/solver`` (that the
    page holds it: ``tests/agents/reports/test_generated.py``)."""
    table = solver_budget_curve_table(ROOT / "results" / "solver")
    assert table.count("\n") >= 8  # a row per variant and budget, at least


def _rec(variant: str, seed: int, version: int, status: str) -> dict[str, Any]:
    return {"variant": variant, "seed": seed, "solver_version": version, "status": status}


def test_verdict_changes_between_versions() -> None:
    """A deal with a won and a lost record is a contradiction (whatever the versions); a
    deal an older version decided and the newest left unknown, and one only the newest
    decided, are listed apart; deals with one version are not compared."""
    records = [
        _rec("Maria", 1, 2, "won"),
        _rec("Maria", 1, 3, "won"),
        _rec("Maria", 2, 2, "unknown"),
        _rec("Maria", 2, 3, "lost"),
        _rec("Maria", 3, 2, "won"),
        _rec("Maria", 3, 3, "unknown"),
        _rec("Maria", 4, 2, "won"),
        _rec("Maria", 4, 3, "lost"),
        _rec("Maria", 5, 3, "unknown"),
    ]
    assert verdict_changes(records) == {
        "compared": 4,
        "contradictions": [["Maria", 4]],
        "decided_then_unknown": [["Maria", 3]],
        "newly_decided": [["Maria", 2]],
    }


def test_shipped_verdicts_never_contradict_across_solver_versions() -> None:
    """Over every shipped record: no deal is both won and lost (a won line replays, a lost
    proof is exhaustive), and solver version 3 ran on the first 200 test deals of the
    three hard variants beside version 2's records of the same deals."""
    records = []
    for path in sorted((ROOT / "results" / "solver").glob("*.jsonl")):
        records += read_records(path)[0]
    changes = verdict_changes(records)
    assert changes["contradictions"] == []
    for variant in ("FortyThieves", "Streets", "Maria"):
        v3 = {r["seed"] for r in records if r["variant"] == variant and r["solver_version"] == 3}
        assert set(range(TEST_START, TEST_START + 200)) <= v3
    assert changes["compared"] >= 600


# ---------------------------------------------------------------------- evaluate --solver-results
def test_evaluate_reports_wins_among_the_solver_proved_wins(
    little_forty_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``evaluate greedy --solver-results FILE`` on deals ``solve`` saved: each agent's
    wins among the solver-proved wins, counted from the per-deal rows; the table shows
    "wins / solver-proved wins"."""
    records = read_records(little_forty_run)[0]
    episodes = 3
    won = {r["seed"] for r in records if r["status"] == "won" and r["seed"] < TEST_START + episodes}
    out = tmp_path / "report.json"
    argv = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", str(episodes)]
    argv += ["--solver-results", str(little_forty_run), "--json", str(out), "--per-episode"]
    assert main(argv) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    greedy = report["results"]["greedy"]
    rows = greedy["per_episode"]
    among = sum(r["won"] for r in rows if r["seed"] in won)
    assert greedy["solver_ceiling"] == {
        "proved_won": len(won),
        "wins_among_proved": among,
        "share_of_proved": among / len(won) if won else 0.0,
        "wins_not_proved": sum(r["won"] for r in rows if r["seed"] not in won),
    }
    assert len(won) >= 1
    console = Console(width=300, record=True)
    console.print(render_evaluation(report))
    cell = f"{among} / {len(won)} ({100 * among / len(won):.0f}%)"
    text = console.export_text()
    assert "wins / solver-proved wins" in text and cell in text
    # no proved win among the deals: "0 / 0", no share of nothing
    for s in report["results"].values():
        s["solver_ceiling"].update(proved_won=0, wins_among_proved=0, share_of_proved=0.0)
    console = Console(width=300, record=True)
    console.print(render_evaluation(report))
    text = console.export_text()
    assert "0 / 0 " in text and "0 / 0 (" not in text


def test_the_evaluate_table_shows_wins_on_deals_the_solver_did_not_prove(
    little_forty_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A win rate above 0 beside "0 / 53" did not say the win was on a deal the solver left
    unknown: the cell adds "+N unproved" and the table's caption says what that is."""
    records = lines_of(little_forty_run)
    # the solver proves the first deal won and leaves the other two unknown
    records[0].update(status="won")
    for r in records[1:]:
        r.update(status="unknown", stopped_by="nodes", moves=0, line="")
    results = tmp_path / "verdicts.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "report.json"
    argv = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", "3"]
    argv += ["--solver-results", str(results), "--json", str(out), "--per-episode"]
    monkeypatch.setenv("COLUMNS", "300")
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    rows = json.loads(out.read_text(encoding="utf-8"))["results"]["greedy"]["per_episode"]
    won = [r["won"] for r in sorted(rows, key=lambda r: r["seed"])]
    unproved = sum(won[1:])
    assert unproved >= 1  # greedy wins an unknown deal (Little Forty: it wins most)
    cell = f"{int(won[0])} / 1 ({100 * int(won[0])}%) +{unproved} unproved"
    row = next(line for line in printed if line.startswith("│ greedy"))
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[:3] == ["greedy", cells[1], cell]  # agent, win rate, wins / proved
    assert printed[-2].strip() == (
        "+N unproved: wins on deals the solver did not prove won (its budget ran out on "
        "them), not counted in wins / solver-proved wins"
    )
    # every win proved: no "+0", no caption
    records[1]["status"] = records[2]["status"] = "won"
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "unproved" not in text and f"{sum(won)} / 3 (" in text


def test_evaluate_refuses_a_given_file_that_misses_deals_and_skips_a_default_one(
    little_forty_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The run has fewer deals than asked: refused (exit 2, one line) when the file is given;
    the default file (``results/solver/<variant>.jsonl``) is skipped with one line."""
    deals = len(read_records(little_forty_run)[0])
    base = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", str(deals + 1)]
    assert main([*base, "--solver-results", str(little_forty_run)]) == 2
    err = capsys.readouterr().err
    assert "argument --solver-results" in err and err.count("\n") == 1
    assert main([*base, "--solver-results", str(tmp_path / "none.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    default = tmp_path / "results" / "solver" / "LittleForty.jsonl"
    default.parent.mkdir(parents=True)
    default.write_text(little_forty_run.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main([*base, "--json", str(out)]) == 0
    assert capsys.readouterr().err.count("solver results not used") == 1
    assert "solver_ceiling" not in json.loads(out.read_text())["results"]["greedy"]
    assert main([*base[:-1], str(deals), "--json", str(out)]) == 0  # covered: used
    assert "solver_ceiling" in json.loads(out.read_text())["results"]["greedy"]


# ---------------------------------------------------------------------- other rules
OTHER_RULES = RULES_VERSION + 1
BOTH_VERSIONS = (
    f"made under rules version {OTHER_RULES}, not the current rules version {RULES_VERSION}"
)


def with_rules(records: list[dict[str, Any]], version: int | None) -> str:
    """The records as a results file, made under rules ``version`` (None: no field, as
    the records written before the rules version was recorded)."""
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k != "rules_version"}
        if version is not None:
            r["rules_version"] = version
        out.append(json.dumps(r) + "\n")
    return "".join(out)


def test_a_record_without_rules_version_is_rules_version_1(
    little_forty_run: Path, tmp_path: Path
) -> None:
    """The records written before the field (every shipped one until then) are version 1:
    read as such, counted as done by a re-run and used for the ceiling."""
    path = tmp_path / "old.jsonl"
    path.write_text(with_rules(lines_of(little_forty_run), None), encoding="utf-8")
    assert "rules_version" not in lines_of(path)[0]
    assert {r["rules_version"] for r in read_records(path)[0]} == {1}
    if RULES_VERSION == 1:
        assert run_deals("LittleForty", 3, NODES, results_path=path).solved == 0
        assert solver_verdicts(path, "LittleForty", seeds_for_test(3)) is not None
    shipped = read_records(ROOT / "results" / "solver" / "Streets.jsonl")[0]
    assert shipped and {r["rules_version"] for r in shipped} == {1}
    path.write_text(with_rules(lines_of(little_forty_run)[:1], 0), encoding="utf-8")
    with pytest.raises(SolverResultsError, match="line 1: rules_version must be a positive"):
        read_records(path)


def test_solve_solves_again_the_deals_solved_under_other_rules(
    little_forty_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A deal in the file under other rules is not done: ``solve`` says so in one line
    naming both versions, solves it again and appends the new record beside the old."""
    path = tmp_path / "r.jsonl"
    old = with_rules(lines_of(little_forty_run), OTHER_RULES)
    path.write_text(old, encoding="utf-8")
    argv = ["solve", "LittleForty", "--deals", "2", "--nodes", str(NODES), "--workers", "1"]
    assert main([*argv, "--results", str(path)]) == 0
    captured = capsys.readouterr()
    assert "2 solved now, 0 already there" in captured.out
    assert captured.err.strip() == (  # the 2 deals asked for, not the file's 3 records
        f"fortythieves solve: {path}: 2 LittleForty record(s) {BOTH_VERSIONS}: their deals "
        "are solved again"
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith(old)
    new = lines_of(path)[3:]
    assert [(r["seed"], r["rules_version"]) for r in new] == [
        (TEST_START, RULES_VERSION),
        (TEST_START + 1, RULES_VERSION),
    ]
    assert [without_time(r) for r in new] == [
        without_time(r) for r in lines_of(little_forty_run)[:2]
    ]
    assert main([*argv, "--results", str(path)]) == 0  # done now under these rules
    captured = capsys.readouterr()
    assert "0 solved now, 2 already there" in captured.out
    assert captured.err == ""  # nothing is solved again: no note
    other_budget = [*argv[:-3], str(NODES + 1), "--workers", "1"]
    assert main([*other_budget, "--results", str(path)]) == 0  # other records, other key
    assert "2 solved now" in (captured := capsys.readouterr()).out and captured.err == ""


def test_the_ceiling_uses_only_records_of_the_current_rules(
    little_forty_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Records of other rules are not the solver's verdicts on these games: a given file
    whose only records of a deal are such is refused (exit 2, one line naming both
    versions); the default file is skipped with one line; a deal that also has a record of
    the current rules uses that one. The winnability table and verdict_changes leave them
    out."""
    records = lines_of(little_forty_run)
    given = tmp_path / "given.jsonl"
    given.write_text(with_rules(records, OTHER_RULES), encoding="utf-8")
    with pytest.raises(SolverResultsError, match=f"3 of the 3 deals were {BOTH_VERSIONS}"):
        solver_verdicts(given, "LittleForty", seeds_for_test(3))
    base = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", "3", "--no-progress"]
    assert main([*base, "--solver-results", str(given)]) == 2
    line = one_error_line(capsys, command="evaluate")
    assert f"argument --solver-results: {given}: the LittleForty results of 3 of" in line
    assert BOTH_VERSIONS in line
    default = tmp_path / "results" / "solver" / "LittleForty.jsonl"
    default.parent.mkdir(parents=True)
    default.write_text(given.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main([*base, "--json", str(out)]) == 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("fortythieves evaluate: solver results not used: ")
    assert BOTH_VERSIONS in err and err.count("\n") == 0
    report = json.loads(out.read_text())
    assert "solver_ceiling" not in report["results"]["greedy"]
    # with the current rules' records beside them, those are used (and the old ones not)
    mixed = with_rules(records, RULES_VERSION) + with_rules(
        [{**r, "status": "lost"} for r in records], OTHER_RULES
    )
    given.write_text(mixed, encoding="utf-8")
    verdicts = solver_verdicts(given, "LittleForty", seeds_for_test(3))
    assert verdicts == {r["seed"]: r["status"] for r in records}
    assert verdict_changes(read_records(given)[0])["contradictions"] == []
    table = markdown_table([given])
    assert table.count("| LittleForty |") == 1 and "| 3 |" in table


# ---------------------------------------------------------------------- the first solve's compile
def test_solve_says_compiling_only_when_numba_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 37 point 11: ``solve`` printed its compile notice from a guess (a cache file of
    the search beside the module), so also on warm runs; it now says it when numba compiles
    (its warm-up compiles a fresh kernel here), with the time apart, and nothing on a warm
    run, the real warm-up's included."""
    import numba

    argv = ["solve", "LittleForty", "--deals", "1", "--nodes", "10", "--workers", "1"]

    @numba.njit
    def fresh(x: int) -> int:
        return x + 1

    monkeypatch.setattr(solve_module, "warm_up", lambda variant: fresh(1))
    assert main([*argv, "--results", str(tmp_path / "a.jsonl")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("fortythieves solve: compiling the solver's kernels (the first run")
    assert err[1].startswith("fortythieves solve: compiled in ")
    assert err[1].endswith(" s (not counted in the per-deal times)")
    assert main([*argv, "--results", str(tmp_path / "b.jsonl")]) == 0
    assert "compil" not in capsys.readouterr().err  # compiled in this process already
    monkeypatch.undo()
    # the real warm-up: compiled (or loaded) by the first command, not again by the second
    assert main([*argv, "--results", str(tmp_path / "c.jsonl")]) == 0
    capsys.readouterr()
    assert main([*argv, "--results", str(tmp_path / "d.jsonl")]) == 0
    assert "compil" not in capsys.readouterr().err


def test_solve_warms_up_only_when_a_deal_is_left(tmp_path: Path) -> None:
    """``run_deals(before_first=...)`` runs it once before the first deal, and not when every
    deal is in the results file already."""
    calls: list[str] = []
    path = tmp_path / "r.jsonl"
    run_deals("LittleForty", 2, 10, results_path=path, before_first=lambda: calls.append("x"))
    run_deals("LittleForty", 2, 10, results_path=path, before_first=lambda: calls.append("y"))
    assert calls == ["x"]


def test_the_first_solve_times_its_compile_apart(tmp_path: Path) -> None:
    """issue 37 point 11, as a user meets it: with an empty numba cache (``NUMBA_CACHE_DIR``)
    the first ``solve`` compiles; it says so, then how long it took, and the deal's own
    time does not hold it (it did: "42 s (max 84 s) per deal", 1.5 s warm). The same command
    again, the cache warm, says nothing of compiling. A Streets deal that the rollouts do
    not win, so the search runs (its compile was the one timed)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(ROOT)}
    argv = ["solve", "Streets", "--deals", "1", "--nodes", "2000", "--workers", "1"]
    argv += ["--results", str(tmp_path / "r.jsonl"), "--no-progress"]

    def run(report: str) -> tuple[str, dict[str, Any]]:
        done = subprocess.run(
            [sys.executable, "-m", "fortythieves_agents.cli.main", *argv, "--json", report],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        assert done.returncode == 0, done.stderr
        return done.stderr, json.loads((tmp_path / report).read_text())

    err, report = run("cold.json")
    lines = err.splitlines()
    assert lines[0].startswith("fortythieves solve: compiling the solver's kernels"), err
    compiled = float(lines[1].removeprefix("fortythieves solve: compiled in ").split()[0])
    assert compiled >= 1
    assert report["deals"] == 1 and report["max_seconds"] < min(5.0, compiled)
    (tmp_path / "r.jsonl").unlink()  # solve the deal again, now with the cache warm
    err, _ = run("warm.json")
    assert "compil" not in err


def _played_record(folder: Path, variant: str, seed: int, moves: list[str], name: str) -> Path:
    """A game record of ``moves`` played from test deal ``seed`` (a player's game)."""
    from fortythieves_env import get_variant
    from fortythieves_env.records.record import make_record

    env = gym.make(env_id(variant))
    env.reset(seed=seed)
    start = env.unwrapped.get_state()
    actions = [env.unwrapped.move_to_action(m) for m in moves]
    info: dict[str, Any] = {}
    terminated = truncated = False
    for a in actions:
        _, _, terminated, truncated, info = env.step(a)
    record = make_record(
        get_variant(variant),
        ("seed", seed),
        {"name": name},
        start,
        actions,
        {
            "won": bool(info.get("is_success")),
            "foundation_cards": sum(len(p) for p in env.unwrapped.get_state()["foundations"]),
            "length": len(actions),
            "terminated": terminated,
            "truncated": truncated,
            "stuck": False,
            "unfinished": not (terminated or truncated),
        },
        step_limit=env.spec.max_episode_steps,
    )
    path = folder / f"{name}-{seed}.json"
    record.save(path)
    return path


@pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")
def test_an_agents_won_game_counts_in_the_labels_but_not_in_the_solvers_rows(
    tmp_path: Path,
) -> None:
    """Issue 39, point 2: a won game (here the solver's line played as a game of "probe")
    becomes a ``won`` record found by ``agent:probe`` (solver version 0) that turns the
    deal's label from unknown to won; the winnability table's rows stay the solver's own; an
    unfinished game is skipped; an edited record (a move changed) is refused in one line."""
    from fortythieves_agents.evaluation.solve import AGENT_WINS, agent_win_records

    from fortythieves_env.solver import solve

    variant, seed = "LittleForty", TEST_START + 3
    env = gym.make(env_id(variant))
    env.reset(seed=seed)
    line = list(solve(env.unwrapped.get_state(), variant, nodes=100_000).moves)
    assert line
    won = _played_record(tmp_path, variant, seed, line, "probe")
    part = _played_record(tmp_path, variant, seed, line[:10], "quitter")
    records = agent_win_records([won, part])
    assert len(records) == 1
    (record,) = records
    assert (record["status"], record["found_by"], record["solver_version"]) == (
        "won",
        "agent:probe",
        AGENT_WINS,
    )
    assert record["line"].split() == line and record["seed"] == seed
    results = tmp_path / f"{variant}.jsonl"
    unknown = {**record, "solver_version": 4, "nodes_budget": 10, "status": "unknown"}
    unknown.update(found_by="", line="", moves=0, nodes=10, stopped_by="nodes")
    results.write_text(json.dumps(unknown) + "\n")
    assert solver_verdicts(results, variant, [seed]) == {seed: "unknown"}
    with results.open("a") as out:
        out.write(json.dumps(record) + "\n")
    assert solver_verdicts(results, variant, [seed]) == {seed: "won"}
    table = markdown_table([results])
    assert "| v4 |" in table and "| v0 |" not in table
    data = json.loads(won.read_text())
    data["moves"][5] = "redeal"
    won.write_text(json.dumps(data))
    with pytest.raises(
        SolverResultsError, match=r"probe-2000000003\.json: not a game that replays"
    ):
        agent_win_records([won])


@pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")
def test_add_agent_wins_adds_a_won_game_only_where_no_won_record_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/solver/add_agent_wins.py: a won game of a deal the results leave unknown is
    appended once (a second run adds nothing); a won game of a deal already proved won, by
    the solver or by another agent, adds nothing (one proof is enough; before, every won
    game of another line or agent was appended)."""
    from fortythieves_agents.evaluation.solve import agent_win_records
    from helpers import load_script

    from fortythieves_env.solver import solve

    script = load_script(ROOT / "scripts" / "solver" / "add_agent_wins.py", "add_agent_wins")
    variant, seed = "LittleForty", TEST_START + 3
    env = gym.make(env_id(variant))
    env.reset(seed=seed)
    line = list(solve(env.unwrapped.get_state(), variant, nodes=100_000).moves)
    games = tmp_path / "games"
    games.mkdir()
    _played_record(games, variant, seed, line, "probe")
    solver_dir = tmp_path / "solver"
    solver_dir.mkdir()
    results = solver_dir / f"{variant}.jsonl"
    (won,) = agent_win_records([games / f"probe-{seed}.json"])
    unknown = {**won, "solver_version": 4, "nodes_budget": 10, "status": "unknown"}
    unknown.update(found_by="", line="", moves=0, nodes=10, stopped_by="nodes")
    results.write_text(json.dumps(unknown) + "\n")

    def run() -> str:
        assert script.main([str(games), "--results-dir", str(solver_dir)]) == 0
        return capsys.readouterr().out.strip()

    assert run() == "1 games read, 1 won, 1 added"
    assert solver_verdicts(results, variant, [seed]) == {seed: "won"}
    assert run() == "1 games read, 1 won, 0 added"  # the same game again
    _played_record(games, variant, seed, line, "other")  # another agent's win of that deal
    assert run() == "2 games read, 2 won, 0 added"
    assert len(results.read_text().splitlines()) == 2
    solver_won = {**won, "solver_version": 4, "found_by": "rollouts"}  # the solver's own
    results.write_text(json.dumps(solver_won) + "\n")
    assert run() == "2 games read, 2 won, 0 added"
    assert len(results.read_text().splitlines()) == 1
