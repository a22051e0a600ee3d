"""The leaderboard (``python -m fortythieves_agents.reports``'s, of a checkout's saved reports,
and ``fortythieves leaderboard``) refuses reports it
cannot rank beside the others: made under other rules, with a per-deal row count other than its
deal count, a deal twice, deals outside the protocol's, a summary its rows contradict, a number
out of range or not finite, a string for a number, a missing field, an unknown variant, a file
too large (one ``ReportError`` naming the file and the field, never a traceback); the good
reports still rank, and a report's own solver ceiling is never read (issue 37)."""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.labels import protocol_verdicts
from fortythieves_agents.evaluation.leaderboard import ReportError, Row, leaderboard_table
from fortythieves_agents.evaluation.report_schema import MAX_REPORT_BYTES
from fortythieves_agents.reports.__main__ import main as reports_main
from fortythieves_agents.reports.solver import search_table
from fortythieves_agents.reports.summary import checkout_rows, default_reports
from helpers import ROOT

from fortythieves_env import RULES_VERSION

PPO = ROOT / "results" / "search" / "ppo" / "Lucas-200.json"


def rows_of(paths: list[Path], refused: list[ReportError] | None = None) -> list[Row]:
    """The rows this checkout's leaderboard gives ``paths``."""
    return checkout_rows(ROOT, paths, refused)


def print_leaderboard(*reports: Path) -> int:
    """``python -m fortythieves_agents.reports --print leaderboard --reports ...``."""
    argv = ["--root", str(ROOT), "--print", "leaderboard", "--reports", *map(str, reports)]
    return reports_main(argv)


def saved(tmp_path: Path, report: dict[str, Any]) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def ppo_report() -> dict[str, Any]:
    report = json.loads(PPO.read_text(encoding="utf-8"))
    assert len(report["results"]["ppo"]["per_episode"]) == report["episodes"] == 200
    return report


def test_the_saved_report_is_read(tmp_path: Path) -> None:
    (row,) = rows_of([saved(tmp_path, ppo_report())])
    assert row.deals == 200 and row.ceiling is not None
    report = {**ppo_report(), "rules_version": RULES_VERSION}
    assert rows_of([saved(tmp_path, report)])


def test_a_report_of_other_rules_is_refused_naming_both_versions(tmp_path: Path) -> None:
    path = saved(tmp_path, {**ppo_report(), "rules_version": RULES_VERSION + 1})
    with pytest.raises(
        ReportError,
        match=rf"r\.json: rules_version: made under rules version {RULES_VERSION + 1}, not the "
        rf"current rules version {RULES_VERSION}",
    ):
        rows_of([path])
    for bad in ("banana", 0, True, 1.0):
        path = saved(tmp_path, {**ppo_report(), "rules_version": bad})
        with pytest.raises(ReportError, match=r"rules_version: must be (an integer|>= 1)"):
            rows_of([path])


def test_a_boolean_deal_count_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"r\.json: not an evaluation report"):
        rows_of([saved(tmp_path, {**ppo_report(), "episodes": True})])


def test_per_deal_rows_must_cover_the_deals_and_be_readable(tmp_path: Path) -> None:
    report = ppo_report()
    report["results"]["ppo"]["per_episode"] = report["results"]["ppo"]["per_episode"][:50]
    with pytest.raises(
        ReportError, match=r"results\.ppo\.per_episode: 50 per-deal rows for 200 deals"
    ):
        rows_of([saved(tmp_path, report)])
    report = ppo_report()
    report["results"]["ppo"]["per_episode"][0]["extra"] = 1
    with pytest.raises(
        ReportError,
        match=r"r\.json: not an evaluation report: results\.ppo\.per_episode\[0\]\.extra: "
        "unknown field",
    ):
        rows_of([saved(tmp_path, report)])
    assert print_leaderboard(tmp_path / "r.json") == 2


def test_search_table_names_a_cut_ppo_report(tmp_path: Path) -> None:
    """A PPO report cut mid-write is refused naming the file (it gave only the JSON
    parser's position)."""
    search = ROOT / "results" / "search" / "Lucas-200.json"
    (tmp_path / "Lucas-200.json").write_text(search.read_text(encoding="utf-8"))
    (tmp_path / "ppo").mkdir()
    (tmp_path / "ppo" / "Lucas-200.json").write_text(PPO.read_text(encoding="utf-8")[:500])
    with pytest.raises(ValueError, match=r"ppo/Lucas-200\.json: not a PPO report"):
        search_table(tmp_path)


def test_a_deal_copied_over_every_row_is_refused_and_the_genuine_report_still_ranks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37's repro: one won per-deal row copied over all of them ranked as ``200 / 1``
    (and dropped the genuine report's row), exit 0."""
    monkeypatch.chdir(tmp_path)  # no results/solver here: the shipped labels
    genuine = ppo_report()
    rows = genuine["results"]["ppo"]["per_episode"]
    won = next(row for row in rows if row["won"])
    forged = copy.deepcopy(genuine)
    forged["results"]["ppo"]["per_episode"] = [dict(won) for _ in rows]
    (tmp_path / "dup.json").write_text(json.dumps(forged), encoding="utf-8")
    (tmp_path / "rep.json").write_text(json.dumps(genuine), encoding="utf-8")
    assert main(["leaderboard", "dup.json", "rep.json"]) == 2
    out, err = capsys.readouterr()
    (line,) = [line for line in out.splitlines() if line.startswith("| Lucas")]
    wins = genuine["results"]["ppo"]["solver_ceiling"]["wins_among_proved"]
    assert line.startswith("| Lucas | ppo | 200 | ") and f"| {wins} / 200 (" in line
    assert line.endswith("| `rep.json` |")
    assert err == (
        f"fortythieves leaderboard: error: dup.json: results.ppo.per_episode[1].seed: deal "
        f"{won['seed']} again (row 0 has it)\n"
    )


def _ppo(report: dict[str, Any]) -> dict[str, Any]:
    return report["results"]["ppo"]


def _rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return _ppo(report)["per_episode"]


def _shift_seeds(report: dict[str, Any], by: int) -> None:
    for row in _rows(report):
        row["seed"] += by


BAD: dict[str, tuple[Callable[[dict[str, Any]], object], str]] = {
    "NaN win rate": (
        lambda r: _ppo(r).update(win_rate=float("nan")),
        r"results\.ppo\.win_rate: must be a finite number, got nan",
    ),
    "win rate 7.0": (
        lambda r: _ppo(r).update(win_rate=7.0),
        r"results\.ppo\.win_rate: must be <= 1\.0, got 7\.0",
    ),
    "infinite cards": (
        lambda r: _ppo(r).update(mean_foundation_cards=float("inf")),
        r"results\.ppo\.mean_foundation_cards: must be a finite number, got inf",
    ),
    "-5 deals": (lambda r: r.update(episodes=-5), r"episodes: must be >= 1, got -5"),
    "true deals": (lambda r: r.update(episodes=True), r"episodes: must be an integer, got True"),
    "string win rate": (
        lambda r: _ppo(r).update(win_rate="0.5"),
        r"results\.ppo\.win_rate: must be a number, got '0\.5'",
    ),
    "missing interval": (
        lambda r: _ppo(r).pop("win_rate_ci95"),
        r"results\.ppo\.win_rate_ci95: missing",
    ),
    "unknown field": (
        lambda r: r.update(verified=True),
        r"verified: unknown field",
    ),
    "unknown variant": (
        lambda r: r.update(variant="Klondike"),
        r"variant: unknown variant 'Klondike' \(known: FortyThieves, ",
    ),
    "another variant's id": (
        lambda r: r.update(env_id="FortyThieves/Streets-v0"),
        r"env_id: 'FortyThieves/Streets-v0' is not an id of Lucas",
    ),
    "seeds outside the test range": (
        lambda r: _shift_seeds(r, -1_999_000_000),
        r"results\.ppo\.per_episode\[0\]\.seed: must be >= 2000000000, got 1000000",
    ),
    "seeds past the deals played": (
        lambda r: _shift_seeds(r, 200),
        r"results\.ppo\.per_episode\[0\]\.seed: 2000000200 is not among the report's 200 test "
        r"deals \(2000000000\.\.2000000199\)",
    ),
    "a win with 50 cards": (
        lambda r: _rows(r)[3].update(won=True, foundation_cards=50),
        r"results\.ppo\.per_episode\[3\]\.won: True with 50 foundation cards",
    ),
    "more wins than rows": (
        lambda r: _ppo(r).update(wins=_ppo(r)["wins"] + 1),
        r"results\.ppo\.wins: \d+ in the summary, \d+ from the per-deal rows",
    ),
    "a better mean than rows": (
        lambda r: _ppo(r).update(mean_foundation_cards=_ppo(r)["mean_foundation_cards"] + 5),
        r"results\.ppo\.mean_foundation_cards: .* in the summary, .* from the per-deal rows",
    ),
    "wins beyond the win rate, no rows": (
        lambda r: (_ppo(r).pop("per_episode"), _ppo(r).update(wins=150)),
        r"results\.ppo\.win_rate: .*, but 150 wins in 200 deals",
    ),
    "more games than deals, no rows": (
        lambda r: (_ppo(r).pop("per_episode"), _ppo(r).update(wins=199)),
        r"results\.ppo\.wins: 199 won \+ 0 truncated \+ \d+ stuck games in 200 deals",
    ),
    "other seeds than the deals": (
        lambda r: r["seeds"].update(count=500),
        r"seeds\.count: 500, but episodes is 200",
    ),
    "a Markdown table in a name": (
        lambda r: r["results"].update({"a | b": r["results"].pop("ppo")}),
        r"results\['a \| b'\] \(a key\): string should match pattern",
    ),
}


@pytest.mark.parametrize("case", BAD)
def test_an_impossible_report_is_refused_naming_the_file_and_the_field(
    tmp_path: Path, case: str
) -> None:
    change, field = BAD[case]
    report = ppo_report()
    change(report)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(ReportError) as refused:
        rows_of([path])
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert re.search(field, message), message


def test_the_ceiling_comes_from_the_labels_never_from_the_report(tmp_path: Path) -> None:
    """A forged ``solver_ceiling`` is not shown: with rows it is recomputed from the labels,
    without rows there is none (``-``), for any report but the checkout's own saved ones."""
    genuine = ppo_report()
    (row,) = rows_of([saved(tmp_path, genuine)])
    rows = _ppo(genuine)["per_episode"]
    labels = protocol_verdicts("Lucas", [r["seed"] for r in rows])
    assert labels is not None
    proved = {seed for seed, verdict in labels.items() if verdict == "won"}
    among = sum(r["won"] for r in rows if r["seed"] in proved)
    from_labels = {  # today's labels, whatever the report saved when it was made
        "proved_won": len(proved),
        "wins_among_proved": among,
        "share_of_proved": among / len(proved),
        "wins_not_proved": sum(r["won"] for r in rows if r["seed"] not in proved),
    }
    assert row.ceiling == from_labels
    forged = ppo_report()
    _ppo(forged)["solver_ceiling"] = {
        "proved_won": 200,
        "wins_among_proved": 200,
        "share_of_proved": 1.0,
        "wins_not_proved": 0,
    }
    (row,) = rows_of([saved(tmp_path, forged)])
    assert row.ceiling == from_labels
    _ppo(forged).pop("per_episode")
    (row,) = rows_of([saved(tmp_path, forged)])
    assert row.ceiling is None
    assert "| - |" in leaderboard_table([row])


def test_a_file_too_large_or_not_regular_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as file:
        file.truncate(MAX_REPORT_BYTES + 1)  # sparse: no disk used, not valid JSON either
    with pytest.raises(
        ReportError,
        match=rf"huge\.json: {MAX_REPORT_BYTES + 1:,} bytes, more than a report's "
        rf"{MAX_REPORT_BYTES:,}; not read",
    ):
        rows_of([huge])
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it would wait for a writer
    with pytest.raises(ReportError, match=r"fifo\.json: not a regular file"):
        rows_of([fifo])
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(ReportError, match=r"deep\.json: .*nested 5000 levels deep"):
        rows_of([deep])


def test_the_reports_command_prints_the_good_reports_and_names_the_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = ppo_report()
    _ppo(bad)["win_rate"] = 7.0
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    (tmp_path / "good.json").write_text(json.dumps(ppo_report()), encoding="utf-8")
    refused: list[ReportError] = []
    rows = rows_of([tmp_path / "bad.json", tmp_path / "good.json"], refused=refused)
    assert [(r.agent, r.source) for r in rows] == [("ppo", "good.json")]
    assert [str(e) for e in refused] == [
        f"{tmp_path / 'bad.json'}: not an evaluation report: results.ppo.win_rate: must be "
        "<= 1.0, got 7.0"
    ]
    capsys.readouterr()
    assert print_leaderboard(tmp_path / "bad.json", tmp_path / "good.json") == 2
    out, err = capsys.readouterr()
    assert "| Lucas | ppo | 200 |" in out and "`good.json`" in out and "bad.json" not in out
    assert err.count("\n") == 1 and "bad.json: not an evaluation report" in err


def test_a_users_report_never_hides_a_saved_row_nor_passes_for_a_shipped_run(
    tmp_path: Path,
) -> None:
    """A user's report beside the saved ones (``--reports``): a copy of a shipped PPO run's
    file, even at the shipped file's own name and folder, is ranked as ``ppo`` on its own row;
    a report whose agent has the saved search row's very label (the search at 0.1 s on the
    same 200 deals) is a row of its own beside the saved one, never merged into it either way."""
    shipped = ROOT / "results" / "training" / "Lucas" / "final_evaluation.json"
    user = tmp_path / "Lucas" / "final_evaluation.json"
    user.parent.mkdir()
    user.write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    ppo_dir = tmp_path / "ppo"
    ppo_dir.mkdir()
    (ppo_dir / "Lucas-200.json").write_text(PPO.read_text(encoding="utf-8"), encoding="utf-8")
    search = ROOT / "results" / "search" / "Lucas-200-s0.1.json"
    copy = tmp_path / "search.json"
    report = json.loads(search.read_text(encoding="utf-8"))
    report["results"] = {"search": report["results"]["search"]}
    copy.write_text(json.dumps(report), encoding="utf-8")
    paths = [*default_reports(ROOT), user, ppo_dir / "Lucas-200.json", copy]
    rows = [r for r in rows_of(paths) if r.variant == "Lucas"]
    mine = sorted((r.source, r.agent) for r in rows if not r.source.startswith("results/"))
    assert mine == sorted(
        [
            ("Lucas-200.json", "ppo"),  # the shipped file's folder and name, a user's run
            ("final_evaluation.json", "ppo"),
            ("final_evaluation.json", "random"),
            ("final_evaluation.json", "greedy"),
            ("search.json", "search (solve 0.1 s per move)"),
        ]
    )
    label = "search (solve 0.1 s per move)"
    same = sorted(r.source for r in rows if r.agent == label and r.deals == 200)
    assert same == ["results/search/Lucas-200-s0.1.json", "search.json"]
    shipped_rows = {r.source for r in rows if r.agent == "PPO (shipped config)"}
    assert shipped_rows == {
        "results/training/Lucas/final_evaluation.json",
        "results/search/ppo/Lucas-200.json",
    }


def test_the_sign_test_gives_exact_two_sided_p_values() -> None:
    """p = 2 * P(X <= min) for X ~ Binomial(only_a + only_b, 1/2), capped at 1."""
    from fortythieves_agents.evaluation.results import sign_test

    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == 2 / 32 == sign_test(0, 5)
    assert sign_test(6, 0) == 2 / 64  # the fewest one-sided deals under 0.05
    assert sign_test(3, 3) == 1.0
    assert sign_test(27, 12) == pytest.approx(0.0237, abs=1e-4)
    assert sign_test(17, 9) == pytest.approx(0.1686, abs=1e-4)
    with pytest.raises(ValueError, match=r"need counts >= 0, got -1 and 2"):
        sign_test(-1, 2)
