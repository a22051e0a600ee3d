"""The solver's per-deal results files (``fortythieves solve``,
:mod:`fortythieves_agents.evaluation.solve`), and the verdicts read from them.

**Per-deal results** are appended to a JSON Lines file (default
``runs/solver/<variant>.jsonl``, relative to the working folder: a user's own results, beside
the training runs), one object per deal, written and flushed as each deal finishes, so an
interrupted run loses only the deals in flight. The results this repository ships are in
``results/solver/<variant>.jsonl``: ``evaluate`` and ``train`` read them by default for the
solver's ceiling (:func:`test_deal_verdicts`), and ``solve`` writes there only when
``--results`` names the file (``scripts/solver/run.sh`` does):

==================  ===========================================================================
key                 value
==================  ===========================================================================
``variant``         the variant id (str)
``seed``            the deal's seed (int)
``nodes_budget``    the node budget ``K`` (int): the figure of record, deterministic
``seconds_cap``     the wall-clock cap ``--budget`` (float seconds, or null: none)
``solver_version``  :data:`fortythieves_env.solver.SOLVER_VERSION` (int); 0 for an agent's won
                    game (:func:`~.solve.agent_win_records`: not the solver's work)
``rules_version``   :data:`fortythieves_env.RULES_VERSION` (int), the rules the deal was
                    dealt and played under; a record without it (written before it was
                    recorded, as the shipped records until then) is read as rules version 1
``step_limit``      the most moves a winning line may have (int)
``rules``           the pruning rules used, e.g. ``"FWE"`` (str)
``status``          ``"won"``, ``"lost"`` (proved: no line wins within the step limit) or
                    ``"unknown"`` (a budget ran out first)
``stopped_by``      for ``unknown``: ``"nodes"`` or ``"seconds"``; else ``""``
``found_by``        for ``won``: the pass that found the line, ``"rollouts"``, ``"beam"`` or
                    ``"search"``; ``"agent:NAME"`` for an agent's won game
``nodes``           positions the search entered (int)
``seconds``         the search's wall-clock time (float; depends on the machine)
``moves``           the winning line's length (int; 0 unless won)
``line``            the winning line in the rule book's move notation, moves separated by
                    one space (str, about 3 KB; ``""`` unless won); ``line.split()`` replays
``proof``           for ``lost`` (solver version 3 on): what the proof needed, the object
                    :attr:`fortythieves_env.solver.SolveResult.proof` (positions stored,
                    re-searched and not stored, the deepest frame, ``no_win_at_all``);
                    ``null`` otherwise (absent in version 2's records)
==================  ===========================================================================

**Keys and re-runs.** A deal's result is keyed by ``(variant, seed, nodes_budget,
solver_version, rules_version)``; the last line of a key in the file is its result. A re-run
skips the deals whose key is present, so a long run continues across sessions; another
budget, a newer solver or other rules (a deal solved under another
:data:`~fortythieves_env.RULES_VERSION` is solved again) write new lines beside the old ones.
One exception, because a result cut by the seconds cap depends on the machine: a deal
stopped by ``seconds`` is solved again when the new cap is larger (or absent), and its new
line replaces the old one.

**Other rules.** Only records of the current rules count: :func:`solver_verdicts` (the
solver's ceiling of ``evaluate`` and ``train``) refuses a file whose only results for some
deal were made under other rules (the message names both versions), the winnability table
and :func:`~.solve.verdict_changes` leave them out.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fortythieves_env.records.files import read_user_text
from fortythieves_env.rules.variants import recorded_rules_version, rules_version_mismatch

from ..seeds import seeds_for_test

__all__ = [
    "AGENT_WINS",
    "RESULTS_DIR",
    "STATUSES",
    "USER_RESULTS_DIR",
    "Key",
    "SolverResultsError",
    "default_results_path",
    "foreign_rules",
    "foreign_rules_note",
    "latest_records",
    "read_records",
    "shipped_results_path",
    "solver_verdicts",
    "test_deal_verdicts",
]

RESULTS_DIR = Path("results") / "solver"
"""Folder of the shipped per-deal result files (tracked), relative to the working folder:
the default that ``evaluate`` and ``train`` read the solver's verdicts from."""


USER_RESULTS_DIR = Path("runs") / "solver"
"""Folder that ``solve`` writes its per-deal result files to by default, relative to the
working folder (``runs/`` holds a user's own output; the shipped files are not touched)."""


STATUSES = ("won", "lost", "unknown")


AGENT_WINS = 0
"""The ``solver_version`` of a record that is an agent's won game, not a solver's result
(:func:`~.solve.agent_win_records`)."""


_FIELDS: dict[str, tuple[type, ...]] = {
    "variant": (str,),
    "seed": (int,),
    "nodes_budget": (int,),
    "seconds_cap": (int, float, type(None)),
    "solver_version": (int,),
    "status": (str,),
    "stopped_by": (str,),
    "nodes": (int,),
    "seconds": (int, float),
    "moves": (int,),
    "line": (str,),
}
"""The fields a saved line must have, with their JSON types (others are kept, unread)."""


Key = tuple[str, int, int, int, int]
"""``(variant, seed, nodes_budget, solver_version, rules_version)``."""


class SolverResultsError(ValueError):
    """A per-deal results file cannot be read or is not one this module wrote."""


def default_results_path(variant: str) -> Path:
    """``runs/solver/<variant>.jsonl`` (relative to the working folder): where ``solve``
    writes by default."""
    return USER_RESULTS_DIR / f"{variant}.jsonl"


def shipped_results_path(variant: str) -> Path:
    """``results/solver/<variant>.jsonl`` (relative to the working folder): the shipped
    results, read by default for the solver's verdicts (:func:`test_deal_verdicts`)."""
    return RESULTS_DIR / f"{variant}.jsonl"


# ---------------------------------------------------------------------- the results file
def read_records(path: str | Path) -> tuple[list[dict[str, Any]], bool]:
    """The records of a results file, in file order; a missing file has none.

    A last line without its newline that is not valid JSON (a run killed while writing it)
    is left out (and cut off by the next :func:`~.solve.run_deals`). A record without
    ``rules_version`` gets ``rules_version`` 1 (module docstring). Returns
    ``(records, ends_cleanly)``; ``ends_cleanly`` is False when the file does not end with a
    newline.

    Raises:
        SolverResultsError: the file cannot be read or is not a regular file (a FIFO:
            :func:`fortythieves_env.records.files.open_user_file`), or a line is not a record (the
            message names the file and the line number).
    """
    path = Path(path)
    if not path.exists():
        return [], True
    try:
        text = read_user_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SolverResultsError(f"{path}: cannot read the solver results ({reason})") from None
    lines = text.split("\n")
    ends_cleanly = lines[-1] == ""
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):  # an unfinished last line
                continue
            raise SolverResultsError(f"{path} line {number}: not JSON ({exc})") from None
        records.append(_checked_record(record, path, number))
    return records, ends_cleanly


def _checked_record(record: object, path: Path, number: int) -> dict[str, Any]:
    where = f"{path} line {number}"
    if not isinstance(record, dict):
        raise SolverResultsError(f"{where}: not a solver record (a JSON object)")
    for name, types in _FIELDS.items():
        if name not in record:
            raise SolverResultsError(f"{where}: not a solver record (no {name!r})")
        value = record[name]
        if not isinstance(value, types) or isinstance(value, bool):
            raise SolverResultsError(f"{where}: {name!r} has the wrong type: {value!r}")
    if record["status"] not in STATUSES:
        raise SolverResultsError(f"{where}: unknown status {record['status']!r}")
    try:
        record["rules_version"] = recorded_rules_version(record.get("rules_version"))
    except ValueError as exc:
        raise SolverResultsError(f"{where}: {exc}") from None
    return record


def _key(record: dict[str, Any]) -> Key:
    return (
        record["variant"],
        record["seed"],
        record["nodes_budget"],
        record["solver_version"],
        record["rules_version"],
    )


def latest_records(records: Iterable[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """The last record of each key ``(variant, seed, nodes_budget, solver_version,
    rules_version)`` (records as :func:`read_records` returns them)."""
    return {_key(r): r for r in records}


def foreign_rules(records: Iterable[dict[str, Any]], variant: str) -> dict[int, int]:
    """The records of ``variant`` made under other rules than the current
    :data:`~fortythieves_env.RULES_VERSION`: rules version -> number of records."""
    from fortythieves_env import RULES_VERSION

    counts = Counter(
        r["rules_version"]
        for r in records
        if r["variant"] == variant and r["rules_version"] != RULES_VERSION
    )
    return dict(sorted(counts.items()))


def foreign_rules_note(
    path: str | Path,
    records: Iterable[dict[str, Any]],
    variant: str,
    seeds: Iterable[int] | None = None,
    nodes: int | None = None,
) -> str:
    """``""``, or the one line ``solve`` prints when ``path`` holds records of ``variant``
    made under other rules, which it does not count as done: it names both versions.

    With ``seeds`` and ``nodes`` (the run's deals and node budget), only the records that
    make the run solve a deal again count: of those deals, at that budget and the current
    solver version, of a deal with no record of the current rules there (so a re-run, or
    a run of other deals or another budget, prints nothing)."""
    from fortythieves_env import RULES_VERSION
    from fortythieves_env.solver import SOLVER_VERSION

    records = list(records)
    if seeds is not None and nodes is not None:
        wanted = set(seeds)
        here = [
            r
            for r in records
            if r["seed"] in wanted
            and r["nodes_budget"] == nodes
            and r["solver_version"] == SOLVER_VERSION
        ]
        done = {r["seed"] for r in here if r["rules_version"] == RULES_VERSION}
        records = [r for r in here if r["seed"] not in done]
    other = foreign_rules(records, variant)
    if not other:
        return ""
    return (
        f"{path}: {sum(other.values())} {variant} record(s) {rules_version_mismatch(*other)}: "
        "their deals are solved again"
    )


def _is_done(record: dict[str, Any] | None, seconds: float | None) -> bool:
    """A deal needs no new search: it has a result not cut by a smaller seconds cap."""
    if record is None:
        return False
    if record["stopped_by"] != "seconds":
        return True
    cap = record["seconds_cap"]
    return seconds is not None and cap is not None and seconds <= cap


def _mend_last_line(path: Path) -> None:
    """Make ``path`` end with a newline before appending: a last line that is a whole record
    gets its newline, an unfinished one (not JSON, see :func:`read_records`) is cut off."""
    with open(path, "r+b") as file:
        data = file.read()
        start = data.rfind(b"\n") + 1
        try:
            json.loads(data[start:])
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            file.truncate(start)
        else:
            file.write(b"\n")


def solver_verdicts(path: str | Path, variant: str, seeds: Iterable[int]) -> dict[int, str] | None:
    """The solver's verdict on each deal of ``seeds``, from a results file, or None when
    the file lacks a record of ``variant`` for some seed (or does not exist).

    Every record of the deal made under the current rules
    (:data:`~fortythieves_env.RULES_VERSION`) counts, whatever its node budget or solver
    version: a ``won`` line was replayed to a win, a ``lost`` was an exhaustive search, so
    neither expires. A deal is ``"won"`` if any record says so, else ``"lost"`` if any says
    so, else ``"unknown"`` (a budget ran out every time). Records made under other rules are
    not used.

    Raises:
        SolverResultsError: the file cannot be read or is not a results file; or the only
            records of some deal were made under other rules (the message names both rules
            versions and how many deals).
    """
    from fortythieves_env import RULES_VERSION

    seeds = list(seeds)
    found: dict[int, set[str]] = {}
    other: dict[int, set[int]] = {}
    for record in read_records(path)[0]:
        if record["variant"] != variant:
            continue
        if record["rules_version"] == RULES_VERSION:
            found.setdefault(record["seed"], set()).add(record["status"])
        else:
            other.setdefault(record["seed"], set()).add(record["rules_version"])
    stale = [s for s in seeds if s not in found and s in other]
    if stale:
        raise SolverResultsError(
            f"{path}: the {variant} results of {len(stale)} of the {len(seeds)} deals were "
            f"{rules_version_mismatch(*set().union(*(other[s] for s in stale)))} "
            f"(`fortythieves solve {variant} --deals {len(seeds)} --nodes K --results {path}` "
            "solves them again)"
        )
    out: dict[int, str] = {}
    for seed in seeds:
        statuses = found.get(seed)
        if statuses is None:
            return None
        out[seed] = next(s for s in STATUSES if s in statuses)
    return out


def test_deal_verdicts(
    variant: str,
    episodes: int,
    given: str | Path | None = None,
    command: str = "evaluate",
    first_deal: int = 0,
) -> dict[int, str] | None:
    """The solver's verdicts on the first ``episodes`` test deals (the deals ``evaluate``
    and ``train``'s final evaluation play; from test deal ``first_deal`` if given), or None:
    then no ceiling is reported.

    Reads ``given``, or by default :func:`shipped_results_path`; where that file is missing
    (outside a checkout), the protocol's labels shipped with the package
    (:func:`fortythieves_agents.evaluation.labels.protocol_verdicts`: the first 200 test deals; more
    deals get None). A default file that is damaged or does not cover every deal is skipped
    with one line on stderr (``fortythieves COMMAND: solver results not used: ...``).

    Raises:
        SolverResultsError: ``given`` is missing, damaged or does not cover every deal.
    """
    path = Path(given) if given is not None else shipped_results_path(variant)
    if given is None and not path.exists():  # outside a checkout: the shipped labels
        from .labels import protocol_verdicts

        return protocol_verdicts(variant, seeds_for_test(episodes, first_deal))
    try:
        if given is not None and not path.exists():  # a FIFO or a folder: read_records says
            raise SolverResultsError(f"{path}: no such file")
        verdicts = solver_verdicts(path, variant, seeds_for_test(episodes, first_deal))
        if verdicts is None:
            raise SolverResultsError(
                f"{path}: no {variant} result for some of the {episodes} deals played "
                f"(`fortythieves solve {variant} --deals {first_deal + episodes} --nodes K "
                f"--results {path}` "
                "adds them)"
            )
    except SolverResultsError as exc:
        if given is not None:
            raise
        if path.exists():
            print(f"fortythieves {command}: solver results not used: {exc}", file=sys.stderr)
        return None
    return verdicts
