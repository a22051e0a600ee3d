"""The schema of an evaluation report (the JSON of ``fortythieves evaluate --json``), checked
field by field before the leaderboard ranks a report or a table reads one
(:func:`load_report`).

A report may come from anyone, so nothing in it is taken on trust:

- the file: a regular file of at most :data:`MAX_REPORT_BYTES` (refused before it is read),
  JSON nested at most :data:`~fortythieves_env.rules.checks.MAX_JSON_NESTING` levels;
- every field (:class:`Report`, a pydantic model; unknown fields refused): counts are integers
  and in range, rates and shares within [0, 1], foundation cards within 0..104, every number
  finite (no NaN, no infinity), flags true or false, no string where a number belongs;
- the variant is one of the registered variants (:data:`fortythieves_env.VARIANTS`), its
  ``env_id`` that variant's, its rules the current ones
  (:data:`fortythieves_env.RULES_VERSION`);
- the deals are ``episodes`` consecutive test deals from ``seeds.first`` (the protocol's
  first ones, or a confirmatory run's later ones: :func:`fortythieves_agents.seeds.seeds_for_test`;
  the leaderboard ranks the first ones only), and an agent's per-deal rows (``per_episode``)
  are one row per deal, each deal once, every seed among them;
- each row is a possible game (won exactly when all 104 cards are on the foundations; a won
  game neither truncated nor stuck; no longer than the variant's step limit), and an agent's
  summary is what :func:`~fortythieves_agents.evaluation.evaluate.summarize` computes from its
  rows (every key it has); without rows, the summary must at least agree with itself (win rate
  and its interval from the wins, stuck rate from the stuck count, the card interval from the
  mean and its standard error, wins + truncated + stuck at most the deals, ...).

A report's own ``solver_ceiling`` is checked for its shape but never read: the leaderboard
scores every report against the solver's labels (the shipped ones or a checkout's
``results/solver``). A fault is a :class:`ReportError` of one line: the file, the field
(``results.greedy.per_episode[3].seed``) and what is wrong with it.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fortythieves_env import VARIANTS
from fortythieves_env.rules.checks import MAX_JSON_NESTING, json_depth
from fortythieves_env.rules.engine import N_CARDS
from fortythieves_env.rules.variants import recorded_rules_version, rules_version_mismatch

from ..seeds import TEST_START
from .evaluate import Z95, EpisodeResult, summarize, wilson_interval

__all__ = [
    "MAX_REPORT_BYTES",
    "AgentSummary",
    "DealRow",
    "Report",
    "ReportError",
    "check_report",
    "load_report",
]

MAX_REPORT_BYTES = 16 * 2**20
"""The largest report file read (16 MiB): a report of 200 deals with per-deal rows is about
30 kB per agent, one of 10,000 deals about 1.5 MB."""

MAX_DEALS = 1_000_000_000
"""The most deals a report may claim: the size of the test range
(:func:`fortythieves_agents.seeds.seeds_for_test`)."""

_TOLERANCE = 1e-9
"""Relative and absolute tolerance when a summary's number is compared with the one
recomputed (a report written by another NumPy may differ in the last bits)."""


class ReportError(ValueError):
    """A file is not an evaluation report, or not one the leaderboard can rank (one line:
    the file, the field and the fault)."""


_STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)

Count = Annotated[int, Field(ge=0, le=MAX_DEALS)]
Share = Annotated[float, Field(ge=0.0, le=1.0)]
Cards = Annotated[float, Field(ge=0.0, le=float(N_CARDS))]
Interval = Annotated[list[Share], Field(min_length=2, max_length=2)]
CardsInterval = Annotated[list[Cards], Field(min_length=2, max_length=2)]
AgentName = Annotated[str, Field(pattern=r"^\w[\w .+()-]{0,63}$")]
"""An agent's name: up to 64 letters, digits, spaces and ``_.+()-``, a letter or digit first
(it goes into a Markdown table)."""


class DealRow(BaseModel):
    """One deal an agent played (an
    :class:`~fortythieves_agents.evaluation.evaluate.EpisodeResult` as JSON)."""

    model_config = _STRICT

    seed: int = Field(ge=TEST_START, lt=TEST_START + MAX_DEALS)
    won: bool
    foundation_cards: int = Field(ge=0, le=N_CARDS)
    length: int = Field(ge=1)
    ret: float
    truncated: bool
    stuck: bool = False


class SolverCeiling(BaseModel):
    """A report's own ``solver_ceiling`` (checked for its shape, never read)."""

    model_config = _STRICT

    proved_won: Count
    wins_among_proved: Count
    share_of_proved: Share
    wins_not_proved: Count = 0


class Settings(BaseModel):
    """An agent's ``settings`` (the search agent's budget): the keys the leaderboard reads
    are typed, any other is kept as it is."""

    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False, frozen=True)

    method: Literal["solve", "rollouts"] | None = None
    samples: int | None = Field(default=None, ge=1)
    allocation: str | None = Field(default=None, pattern=r"^[a-z_-]{1,32}$")
    budget_seconds_per_move: float | None = Field(default=None, gt=0.0)
    nodes_per_sample: int | None = Field(default=None, ge=1)


class AgentSummary(BaseModel):
    """One agent's results (:func:`~fortythieves_agents.evaluation.evaluate.summarize`'s keys;
    ``stuck`` and ``stuck_rate`` are missing from reports written before the no-cycling rule)."""

    model_config = _STRICT

    episodes: int = Field(ge=1, le=MAX_DEALS)
    wins: Count
    win_rate: Share
    win_rate_ci95: Interval
    mean_foundation_cards: Cards
    std_foundation_cards: Cards
    sem_foundation_cards: Cards
    foundation_cards_ci95: CardsInterval
    mean_episode_length: float = Field(ge=0.0)
    truncated: Count
    stuck: Count | None = None
    stuck_rate: Share | None = None
    mean_return: float
    solver_ceiling: SolverCeiling | None = None
    per_episode: list[DealRow] | None = None
    settings: Settings | None = None


class Timing(BaseModel):
    """An agent's time on the machine that played (not part of the score): ``seconds`` of
    wall time; ``worker_seconds``, where other processes played the deals at once (``evaluate
    --ray``), the sum of their own times; ``seconds_per_move``, the one or the other over the
    ``moves`` (so it is a move's cost on one process either way)."""

    model_config = _STRICT

    seconds: float = Field(ge=0.0)
    moves: int = Field(ge=0)
    seconds_per_move: float | None = Field(ge=0.0)
    resumed_deals: Count | None = None
    worker_seconds: float | None = Field(default=None, ge=0.0)


class Seeds(BaseModel):
    """The deals played: ``count`` test deals from seed ``first`` (``2_000_000_000``: the
    first test deals, the protocol's)."""

    model_config = _STRICT

    first: int = Field(ge=TEST_START, lt=TEST_START + MAX_DEALS)
    count: int = Field(ge=1, le=MAX_DEALS)
    rule: str = Field(max_length=64)


class Report(BaseModel):
    """An evaluation report (``docs/protocol.md``, The report)."""

    model_config = _STRICT

    variant: str = Field(max_length=64)
    env_id: str | None = Field(default=None, max_length=128)
    rules_version: int | None = Field(default=None, ge=1)
    no_cycling: bool | None = None
    episodes: int = Field(ge=1, le=MAX_DEALS)
    seeds: Seeds
    results: Annotated[dict[AgentName, AgentSummary], Field(min_length=1, max_length=64)]
    timing: dict[AgentName, Timing] | None = None
    model: str | None = Field(default=None, max_length=4096)


def _shown(value: object) -> str:
    """A value for a message: its ``repr``, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _field(loc: Sequence[str | int]) -> str:
    """A pydantic location as a field path: ``results.greedy.per_episode[3].seed``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            out += " (a key)"
        elif part.isidentifier() or (part and all(c.isalnum() or c in "_.+()-" for c in part)):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out or "the report"


_PHRASES = {
    "missing": "missing",
    "extra_forbidden": "unknown field",
    "int_type": "must be an integer",
    "float_type": "must be a number",
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "list_type": "must be a list",
    "finite_number": "must be a finite number",
}


def _problem(error: Mapping[str, Any]) -> str:
    """One pydantic error in a few words, with the value given."""
    kind, ctx = error["type"], error.get("ctx", {})
    bounds = {
        "greater_than_equal": f"must be >= {ctx.get('ge')}",
        "greater_than": f"must be > {ctx.get('gt')}",
        "less_than_equal": f"must be <= {ctx.get('le')}",
        "less_than": f"must be < {ctx.get('lt')}",
    }
    phrase = _PHRASES.get(kind) or bounds.get(kind) or str(error["msg"]).lower()
    if kind in ("missing", "extra_forbidden"):
        return phrase
    return f"{phrase}, got {_shown(error.get('input'))}"


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_TOLERANCE, abs_tol=_TOLERANCE)


def _fail(field: str, problem: str) -> ReportError:
    return ReportError(f"{field}: {problem}")


def _check_rows(name: str, summary: AgentSummary, report: Report) -> None:
    """An agent's per-deal rows: one per deal of the protocol, each a possible game, and its
    summary the one they give."""
    rows = summary.per_episode
    assert rows is not None
    where = f"results.{name}.per_episode"
    n, first = report.episodes, report.seeds.first
    if len(rows) != n:
        raise _fail(where, f"{len(rows)} per-deal rows for {n} deals (one row per deal)")
    spec = VARIANTS[report.variant]
    least = 8 if spec.aces_on_foundations else 0
    seen: dict[int, int] = {}
    for i, row in enumerate(rows):
        at = f"{where}[{i}]"
        if row.seed in seen:
            raise _fail(f"{at}.seed", f"deal {row.seed} again (row {seen[row.seed]} has it)")
        seen[row.seed] = i
        if not first <= row.seed < first + n:
            raise _fail(
                f"{at}.seed",
                f"{row.seed} is not among the report's {n} test deals ({first}..{first + n - 1})",
            )
        if row.won != (row.foundation_cards == N_CARDS):
            raise _fail(
                f"{at}.won",
                f"{row.won} with {row.foundation_cards} foundation cards (a game is won "
                f"exactly when all {N_CARDS} are up)",
            )
        if row.foundation_cards < least:
            raise _fail(
                f"{at}.foundation_cards",
                f"{row.foundation_cards}, but {report.variant} starts with {least} aces up",
            )
        if row.won and (row.truncated or row.stuck):
            raise _fail(f"{at}.won", "a won game is neither truncated nor stuck")
        if row.truncated and row.stuck:
            raise _fail(f"{at}.stuck", "a game is not both truncated and stuck")
        if row.length > spec.max_episode_steps:
            raise _fail(
                f"{at}.length",
                f"{row.length} moves, more than {report.variant}'s step limit "
                f"{spec.max_episode_steps}",
            )
    recomputed = summarize([EpisodeResult(**row.model_dump()) for row in rows])
    given = summary.model_dump(exclude_unset=True)
    for key, value in recomputed.items():
        if key not in given:
            continue
        mine = given[key]
        same = (
            all(_close(a, b) for a, b in zip(mine, value, strict=True))
            if isinstance(value, list)
            else _close(mine, value)
        )
        if not same:
            raise _fail(
                f"results.{name}.{key}",
                f"{_shown(mine)} in the summary, {_shown(value)} from the per-deal rows",
            )


def _check_summary(name: str, s: AgentSummary, report: Report) -> None:
    """A summary without rows agrees with itself (what can be checked without the games)."""
    n = s.episodes
    at = f"results.{name}"
    stuck = s.stuck or 0
    if s.wins > n:
        raise _fail(f"{at}.wins", f"{s.wins} wins in {n} deals")
    if s.wins + s.truncated + stuck > n:
        raise _fail(
            f"{at}.wins",
            f"{s.wins} won + {s.truncated} truncated + {stuck} stuck games in {n} deals",
        )
    if not _close(s.win_rate, s.wins / n):
        raise _fail(f"{at}.win_rate", f"{s.win_rate!r}, but {s.wins} wins in {n} deals")
    lo, hi = wilson_interval(s.wins, n)
    if not (_close(s.win_rate_ci95[0], lo) and _close(s.win_rate_ci95[1], hi)):
        raise _fail(
            f"{at}.win_rate_ci95",
            f"{_shown(s.win_rate_ci95)}, but {s.wins} wins in {n} deals give [{lo!r}, {hi!r}]",
        )
    if s.stuck_rate is not None and not _close(s.stuck_rate, stuck / n):
        raise _fail(f"{at}.stuck_rate", f"{s.stuck_rate!r}, but {stuck} stuck in {n} deals")
    if s.mean_foundation_cards * n < N_CARDS * s.wins - _TOLERANCE * n * N_CARDS:
        raise _fail(
            f"{at}.mean_foundation_cards",
            f"{s.mean_foundation_cards!r}, below the {N_CARDS} cards of each of {s.wins} wins "
            f"in {n} deals",
        )
    if not _close(s.sem_foundation_cards, s.std_foundation_cards / math.sqrt(n)):
        raise _fail(
            f"{at}.sem_foundation_cards",
            f"{s.sem_foundation_cards!r}, not the standard deviation over the root of {n}",
        )
    half = Z95 * s.sem_foundation_cards
    low, high = (
        max(0.0, s.mean_foundation_cards - half),
        min(float(N_CARDS), s.mean_foundation_cards + half),
    )
    if not (_close(s.foundation_cards_ci95[0], low) and _close(s.foundation_cards_ci95[1], high)):
        raise _fail(
            f"{at}.foundation_cards_ci95",
            f"{_shown(s.foundation_cards_ci95)}, not the mean +- 1.96 standard errors",
        )
    steps = VARIANTS[report.variant].max_episode_steps
    if not 1.0 <= s.mean_episode_length <= steps:
        raise _fail(
            f"{at}.mean_episode_length",
            f"{s.mean_episode_length!r}, outside 1..{steps} ({report.variant}'s step limit)",
        )


def _check_agent(name: str, s: AgentSummary, report: Report) -> None:
    if s.episodes != report.episodes:
        raise _fail(
            f"results.{name}.episodes", f"{s.episodes}, but the report has {report.episodes}"
        )
    ceiling = s.solver_ceiling
    if ceiling is not None and not (
        ceiling.wins_among_proved <= ceiling.proved_won <= s.episodes
        and ceiling.wins_not_proved <= s.episodes
    ):
        raise _fail(f"results.{name}.solver_ceiling", "more wins or proved deals than deals")
    if s.per_episode is not None:
        _check_rows(name, s, report)  # the summary recomputed: it then agrees with itself
    else:
        _check_summary(name, s, report)


def check_report(data: Any) -> Report:
    """``data`` (a parsed report) checked against the schema and for consistency (module
    docstring).

    Raises:
        ReportError: the first fault, as ``field: problem`` (without the file; a field of
            the wrong type or out of range as ``not an evaluation report: field: problem``).
    """
    import gymnasium as gym

    try:
        report = Report.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ReportError(
            f"not an evaluation report: {_field(first['loc'])}: {_problem(first)}{more}"
        ) from None
    if report.variant not in VARIANTS:
        raise _fail(
            "variant", f"unknown variant {_shown(report.variant)} (known: {', '.join(VARIANTS)})"
        )
    if report.env_id is not None:
        spec = gym.registry.get(report.env_id)
        if spec is None or spec.kwargs.get("variant") != report.variant:
            raise _fail("env_id", f"{_shown(report.env_id)} is not an id of {report.variant}")
    mismatch = rules_version_mismatch(recorded_rules_version(report.rules_version))
    if mismatch:
        raise _fail("rules_version", f"{mismatch}; evaluate again under these rules")
    if report.seeds.count != report.episodes:
        raise _fail("seeds.count", f"{report.seeds.count}, but episodes is {report.episodes}")
    if report.seeds.first + report.episodes > TEST_START + MAX_DEALS:
        raise _fail(
            "seeds.first",
            f"{report.seeds.first} + {report.episodes} deals is past the test range "
            f"(seeds {TEST_START}..{TEST_START + MAX_DEALS - 1})",
        )
    for name, summary in report.results.items():
        _check_agent(name, summary, report)
    return report


def display_path(path: Path) -> str:
    """``path`` for a one-line message: as written, or quoted (``repr``) when it holds a
    character that is not printable, such as a newline."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def load_report(path: str | Path) -> dict[str, Any]:
    """The report in ``path`` as parsed JSON, every field checked (module docstring).

    Raises:
        ReportError: one line starting with the file: it is missing, not a regular file,
            larger than :data:`MAX_REPORT_BYTES` (refused before it is read), not JSON,
            nested too deep, or a field is wrong (named: ``results.greedy.win_rate: must be
            <= 1.0, got 7.0``).
    """
    path = Path(path)
    shown = display_path(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ReportError(f"{shown}: not a regular file")
        if info.st_size > MAX_REPORT_BYTES:
            raise ReportError(
                f"{shown}: {info.st_size:,} bytes, more than a report's "
                f"{MAX_REPORT_BYTES:,}; not read"
            )
        with open(path, "rb") as file:
            raw = file.read(MAX_REPORT_BYTES + 1)
        if len(raw) > MAX_REPORT_BYTES:
            raise ReportError(f"{shown}: more than a report's {MAX_REPORT_BYTES:,} bytes; not read")
        text = raw.decode("utf-8")
        depth = json_depth(text)
        if depth > MAX_JSON_NESTING:
            raise ReportError(
                f"{shown}: not an evaluation report: nested {depth} levels deep "
                f"(at most {MAX_JSON_NESTING})"
            )
        data = json.loads(text)
    except ReportError:
        raise
    except OSError as exc:
        raise ReportError(f"{shown}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError
        raise ReportError(f"{shown}: not an evaluation report (not JSON: {exc})") from None
    try:
        check_report(data)
    except ReportError as exc:
        raise ReportError(f"{shown}: {exc}") from None
    return data
