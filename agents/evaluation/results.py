"""What one played deal gives and what many add up to: :class:`EpisodeResult` and
:class:`GameTrace`, the summary of an agent's deals (:func:`summarize`, the keys of
:mod:`fortythieves_agents.evaluation.evaluate`'s docstring) with its Wilson interval, its wins
against the solver's verdicts (:func:`ceiling_summary`), the table of a report
(:func:`render_table`), and the sign test of two agents on the same deals (:func:`sign_test`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fortythieves_env.rules.cards import N_CARDS

__all__ = [
    "UNPROVED_NOTE",
    "Z95",
    "EpisodeResult",
    "GameTrace",
    "ceiling_cell",
    "ceiling_summary",
    "render_table",
    "sign_test",
    "summarize",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""


@dataclass(frozen=True)
class EpisodeResult:
    """One played deal.

    ``truncated``: the environment truncated it (step limit or no-progress rule), not
    terminated. ``stuck``: the no-cycling rule ended it (every legal move led back to a
    view seen in the episode; :mod:`fortythieves_agents.cycles`); neither terminated nor truncated.
    """

    seed: int
    won: bool
    foundation_cards: int
    length: int
    ret: float
    truncated: bool
    stuck: bool = False


@dataclass(frozen=True)
class GameTrace:
    """What a game record needs beyond an :class:`EpisodeResult`: the starting position
    (rule-book format) and the actions played (``int64``, shape ``(length,)``)."""

    start: dict[str, Any]
    actions: np.ndarray


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; ``(0.0, 1.0)`` when ``n == 0``.

    Raises:
        ValueError: ``successes`` not in ``0..n``.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def sign_test(only_a: int, only_b: int) -> float:
    """The two-sided exact sign test's p-value of two agents played on the same deals:
    ``only_a`` deals won by A and lost by B, ``only_b`` the other way (the deals both won or
    both lost carry no information); ``1.0`` when no deal tells them apart.

    Raises:
        ValueError: a count below 0.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError(f"need counts >= 0, got {only_a} and {only_b}")
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n  # exact ints
    return min(1.0, 2.0 * tail)


def ceiling_summary(results: Sequence[EpisodeResult], solver: Mapping[int, str]) -> dict[str, Any]:
    """An agent's wins against the solver's verdicts (``seed -> "won" | "lost" |
    "unknown"``, every played seed present): the ``solver_ceiling`` keys of the module
    docstring.

    Raises:
        KeyError: a played seed has no verdict.
    """
    proved = {r.seed for r in results if solver[r.seed] == "won"}
    among = sum(r.won for r in results if r.seed in proved)
    return {
        "proved_won": len(proved),
        "wins_among_proved": among,
        "share_of_proved": among / len(proved) if proved else 0.0,
        "wins_not_proved": sum(r.won for r in results if r.seed not in proved),
    }


def summarize(results: Sequence[EpisodeResult]) -> dict[str, Any]:
    """Aggregate episode results (see the module docstring for the keys)."""
    n = len(results)
    wins = sum(r.won for r in results)
    cards = np.array([r.foundation_cards for r in results], dtype=float)
    mean = float(cards.mean()) if n else 0.0
    std = float(cards.std(ddof=1)) if n > 1 else 0.0
    sem = std / math.sqrt(n) if n else 0.0
    lo, hi = wilson_interval(wins, n)
    return {
        "episodes": n,
        "wins": wins,
        "win_rate": wins / n if n else 0.0,
        "win_rate_ci95": [lo, hi],
        "mean_foundation_cards": mean,
        "std_foundation_cards": std,
        "sem_foundation_cards": sem,
        "foundation_cards_ci95": [
            max(0.0, mean - Z95 * sem),
            min(float(N_CARDS), mean + Z95 * sem),
        ],
        "mean_episode_length": float(np.mean([r.length for r in results])) if n else 0.0,
        "truncated": sum(r.truncated for r in results),
        "stuck": sum(r.stuck for r in results),
        "stuck_rate": sum(r.stuck for r in results) / n if n else 0.0,
        "mean_return": float(np.mean([r.ret for r in results])) if n else 0.0,
    }


UNPROVED_NOTE = (
    "+N unproved: wins on deals the solver did not prove won (its budget ran out on them), "
    "not counted in wins / solver-proved wins"
)
"""What ``+N unproved`` in a :func:`ceiling_cell` means (the evaluate table's caption, the
README's search table)."""


def ceiling_cell(ceiling: Mapping[str, Any]) -> str:
    """``"wins / proved (share%)"`` of a ``solver_ceiling`` summary (:func:`ceiling_summary`),
    without the share when the solver proved no deal won, then ``" +N unproved"`` when the
    agent won N deals the solver did not prove won (so a win rate above 0 beside
    ``"0 / 53"`` is accounted for: ``"0 / 53 (0%) +1 unproved"``; see
    :data:`UNPROVED_NOTE`)."""
    cell = f"{ceiling['wins_among_proved']} / {ceiling['proved_won']}"
    if ceiling["proved_won"]:
        cell += f" ({100 * ceiling['share_of_proved']:.0f}%)"
    unproved = ceiling.get("wins_not_proved", 0)
    return cell + (f" +{unproved} unproved" if unproved else "")


def render_table(report: dict[str, Any]) -> Any:
    """A ``rich.table.Table`` of an :func:`~.evaluate.evaluate_agents` report, one row per agent
    (with the solver's verdicts, a column "wins / solver-proved wins" beside the win rate)."""
    from rich.table import Table

    ceiling = all("solver_ceiling" in s for s in report["results"].values())
    unproved = ceiling and any(
        s["solver_ceiling"].get("wins_not_proved", 0) for s in report["results"].values()
    )

    table = Table(
        title=f"{report.get('env_id', report['variant'])}: {report['episodes']} test deals "
        f"(seeds {report['seeds']['first']}..{report['seeds']['first'] + report['episodes'] - 1})"
        + ("" if report.get("no_cycling", True) else ", cycles allowed"),
        caption=UNPROVED_NOTE if unproved else None,
    )
    for column in (
        "agent",
        "win rate [95% CI]",
        "foundation cards [95% CI]",
        "ep. length",
        "truncated",
        "stuck",
        "return",
    ):
        table.add_column(column, justify="left" if column == "agent" else "right")
        if column == "win rate [95% CI]" and ceiling:
            table.add_column("wins / solver-proved wins", justify="right")
    for name, s in report["results"].items():
        lo, hi = s["win_rate_ci95"]
        clo, chi = s["foundation_cards_ci95"]
        extra = []
        if ceiling:
            extra = [ceiling_cell(s["solver_ceiling"])]
        table.add_row(
            name,
            f"{100 * s['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
            *extra,
            f"{s['mean_foundation_cards']:.1f} [{clo:.1f}, {chi:.1f}]",
            f"{s['mean_episode_length']:.0f}",
            f"{s['truncated']}/{s['episodes']}",
            f"{s.get('stuck', 0)}/{s['episodes']}",
            f"{s['mean_return']:.1f}",
        )
    return table
