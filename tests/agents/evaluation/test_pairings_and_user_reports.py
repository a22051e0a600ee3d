"""Hostile and odd inputs to the leaderboard, the sign test, the network + search pairings
(``benchmarks/prior_vs_search.py``) and the expert table's pairing cells: each is refused in
one line naming the file, or ranked on rows of its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import main as cli_main
from fortythieves_agents.evaluation.results import sign_test
from fortythieves_agents.reports import expert as expert_table
from fortythieves_agents.reports.summary import checkout_rows, default_reports
from helpers import ROOT

SAVED_PPO = ROOT / "results" / "search" / "ppo" / "Lucas-200.json"
LUCAS_ALONE = ROOT / "results" / "search" / "Lucas-200-s0.1.json"
LUCAS_GUIDED = ROOT / "results" / "search" / "prior" / "Lucas-200-s0.1-ppo-w0.02.json"


def _rows(paths: list[Path]) -> list[tuple[str, str, int, str]]:
    return sorted(
        (r.variant, r.agent, r.deals, r.source)
        for r in checkout_rows(ROOT, [*default_reports(ROOT), *paths])
    )


def test_a_symlink_to_a_saved_report_adds_no_row(tmp_path: Path) -> None:
    """A saved report passed again through a symlink is the saved file (its resolved path is
    among the saved): it must add nothing. Before the fix it added a second row labelled ``ppo``
    (the label is taken from the link's name) beside "PPO (shipped config)", same source."""
    link = tmp_path / "mine.json"
    link.symlink_to(SAVED_PPO)
    assert _rows([link]) == _rows([])


def test_the_sign_test_takes_any_number_of_deals() -> None:
    """``2.0**n`` overflows a float from n = 1024 on: OverflowError, which no caller catches
    (``python -m fortythieves_agents.reports`` prints a traceback for a pairing file with
    long lists)."""
    assert sign_test(600, 500) == pytest.approx(0.0028195, rel=1e-4)  # Fraction-exact
    assert 0.0 <= sign_test(1030, 0) < 1e-300


def _lucas_results_with_pairing(tmp_path: Path, **change: object) -> Path:
    results = tmp_path / "results"
    prior = results / "search" / "prior"
    prior.mkdir(parents=True)
    name = "Lucas-200-s0.1-ppo-w0.02-vs-search.json"
    pairing = json.loads((ROOT / "results" / "search" / "prior" / name).read_text())
    pairing.update(change)
    (prior / name).write_text(json.dumps(pairing))
    return results


@pytest.mark.parametrize(
    "change",
    [
        {"only_search_alone": list(range(5000))},  # more deals than the pairing's 200
        {"only_search_alone": [[1], [2], [3]]},  # not deal seeds
        {"only_search_alone": [-1, -1, -1, -1]},  # a deal 4 times; the counts then disagree
        {"search_plus_network_wins": "lots"},  # shown as is in the table
        {"search_alone_wins": None},  # "169 vs None of 200"
    ],
)
def test_the_expert_table_refuses_a_pairing_whose_lists_or_counts_are_wrong(
    tmp_path: Path, change: dict[str, object]
) -> None:
    """The p-value is counted from the lists, so they must be distinct deal seeds, disjoint,
    at most ``deals`` of them, and their lengths' difference the difference of the two win
    counts (ints); else one ValueError naming the file (what ``--check`` prints on one line).
    Before the fix these rendered (a wrong p-value, a wrong cell) or raised OverflowError."""
    results = _lucas_results_with_pairing(tmp_path, **change)
    with pytest.raises(ValueError, match=r"Lucas-200-s0\.1-ppo-w0\.02-vs-search\.json"):
        expert_table.row("Lucas", results)


def _prior_vs_search(*argv: str) -> None:
    from benchmarks.prior_vs_search import main

    main(list(argv))


def test_prior_vs_search_an_alone_report_without_timing_is_one_line(tmp_path: Path) -> None:
    """``timing`` is optional in a report (the schema: ``... | None = None``): a report the
    leaderboard accepts must not end in ``KeyError: 'timing'`` here. Either its seconds per
    move are null, or one line names the file."""
    report = json.loads(LUCAS_ALONE.read_text())
    del report["timing"]
    alone = tmp_path / "alone.json"
    alone.write_text(json.dumps(report))
    assert cli_main(["leaderboard", str(alone)]) == 0  # the report is a valid one
    try:
        _prior_vs_search(str(LUCAS_GUIDED), "--alone-report", str(alone))
    except SystemExit as exc:  # a one-line refusal naming the file is fine too
        assert "alone.json" in str(exc.code)


@pytest.mark.parametrize("damage", ["{x", "missing"])
def test_prior_vs_search_a_damaged_guided_report_is_one_line(tmp_path: Path, damage: str) -> None:
    """The guided report is read with a bare ``json.loads`` (no schema check, unlike the
    alone report): a damaged or missing file ends in a traceback."""
    guided = tmp_path / "guided.json"
    if damage != "missing":
        guided.write_text(damage)
    with pytest.raises(SystemExit, match=r"guided\.json"):
        _prior_vs_search(str(guided), "--alone-report", str(LUCAS_ALONE))


def test_prior_vs_search_a_guided_deal_twice_is_refused(tmp_path: Path) -> None:
    """A guided report with one deal twice is counted twice (wins, only-lists, p-value);
    read through the leaderboard's ``read_report`` it would be refused naming the row."""
    report = json.loads(LUCAS_GUIDED.read_text())
    rows = report["results"]["search+network"]["per_episode"]
    rows[1] = dict(rows[0])
    guided = tmp_path / "guided.json"
    guided.write_text(json.dumps(report))
    with pytest.raises(SystemExit, match=r"guided\.json"):
        _prior_vs_search(str(guided), "--alone-report", str(LUCAS_ALONE))


def test_prior_vs_search_refuses_an_alone_report_of_other_search_settings(tmp_path: Path) -> None:
    """Only the budget is compared: a search alone at 5 nodes per sample (or another
    allocation) is paired as if it were the guided search's equal."""
    report = json.loads(LUCAS_ALONE.read_text())
    report["results"]["search"]["settings"]["nodes_per_sample"] = 5
    alone = tmp_path / "alone.json"
    alone.write_text(json.dumps(report))
    with pytest.raises(SystemExit, match=r"alone\.json"):
        _prior_vs_search(str(LUCAS_GUIDED), "--alone-report", str(alone))


def test_the_leaderboard_command_ranks_the_files_given_by_their_own_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fortythieves leaderboard`` ranks the files it is given, each agent by the name in its
    report, even a checkout's saved file run from the checkout (it never calls a run
    shipped: the checkout's leaderboard is ``python -m fortythieves_agents.reports``, whose
    saved rows are labelled as such), each file on rows of its own."""
    monkeypatch.chdir(ROOT)
    argv = ["leaderboard", "results/training/Lucas/final_evaluation.json"]
    argv += ["results/search/Lucas-200.json", "results/search/Lucas-200-k64.json"]
    assert cli_main(argv) == 0
    out = capsys.readouterr().out
    assert "| Lucas | PPO (shipped config) |" not in out
    assert "| Lucas | ppo | 500 |" in out
    assert out.count("| Lucas | greedy | 200 |") == 2  # two files, two rows


def test_two_users_files_of_one_name_are_told_apart(tmp_path: Path) -> None:
    """Two user files named alike in two folders (a/ppo.json, b/ppo.json) are two rows now
    (they merged before), but both read ``ppo`` and `` `ppo.json` ``: the table cannot tell
    which is which."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(SAVED_PPO, tmp_path / folder / "ppo.json")
    rows = checkout_rows(ROOT, [tmp_path / "a" / "ppo.json", tmp_path / "b" / "ppo.json"])
    assert sorted(r.source for r in rows) == [
        str(tmp_path / "a" / "ppo.json"),
        str(tmp_path / "b" / "ppo.json"),
    ]
