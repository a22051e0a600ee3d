"""Game records: one JSON file per played game, replayed and checked move by move.

A record says where the deal came from, the variant's full rules, the step limit, who played,
the starting position, every move in the rule book's notation and how the game ended, so
anyone can replay it with this package (or any engine that reads the rule book's position and
move notation) and check it. ``fortythieves evaluate --save-games DIR`` writes one per test
deal and agent; ``fortythieves replay FILE`` shows one (text, ``--gif``, ``--html``).

Format (``format_version`` 5; a JSON object, every field required):

- ``format_version`` (int): 5 (version 4, without ``digest``, is still read; version 3,
  without ``rules_version`` either, read as rules version 1; version 2, without
  ``outcome.unfinished`` either, and version 1, without ``outcome.stuck`` either, are still
  read, as false). A record of another version is refused.
- ``package_version`` (str): the ``fortythieves_env`` version that wrote it.
- ``rules_version`` (int): the :data:`~fortythieves_env.RULES_VERSION` the game was played
  under. A record made under other rules than this package's is read (and described) but
  not replayed: :func:`verify` and the pictures refuse it, naming both versions.
- ``variant`` (object): every :class:`~fortythieves_env.VariantSpec` field (``id``, ``name``,
  ``n_columns``, ``face_down``, ``face_up``, ``build`` as its string, ``sequence_moves``,
  ``deal_count``, ``redeals``, ``aces_on_foundations``, ``max_episode_steps``,
  ``pysol_id``, and ``empty_column`` as its string when it is not the rule book's ``"any"``:
  a record without it means ``"any"``), so a custom variant replays without being
  registered.
- ``step_limit`` (int or null): the game was truncated after this many steps (the
  registered ``TimeLimit``); null: no limit.
- ``max_steps_without_progress`` (int or null): the environment's no-progress truncation.
- ``source`` (object): the deal, ``{"kind": "seed", "value": s}`` (``env.reset(seed=s)``),
  ``{"kind": "pysol_deal", "value": n}`` (PySolFC's game number) or
  ``{"kind": "position", "value": null}`` (``reset(options={"state": start})``).
- ``agent`` (object): ``name`` (str) plus what else identifies the player (for a trained
  model: ``model`` path, ``model_digest`` (the zip's SHA-256), ``deterministic``, ``seed``;
  for the random baseline ``seed``; for the search agent ``seed`` and ``settings``, its
  budget; from ``evaluate``, ``no_cycling``: whether the player followed the no-cycling
  rule). ``evaluate --resume`` reads a record only for the same player.
- ``start`` (object): the starting position in the rule book's format (every card, the
  face-down ones and the stock's order included).
- ``moves`` (list of str): the moves played, in the rule book's notation (``"t2>t0x3"``).
- ``outcome`` (object): ``won`` (bool), ``foundation_cards`` (int, 0..104),
  ``length`` (int, steps = ``len(moves)``), ``terminated`` (bool: won or no legal move),
  ``truncated`` (bool: ended by the step limit or the no-progress rule, not terminated),
  ``stuck`` (bool: the player's no-cycling rule ended it, neither terminated nor truncated:
  every legal move led back to a view of the player already seen in the game; see
  :mod:`fortythieves_agents.cycles`), ``unfinished`` (bool: the player stopped before the game
  ended, e.g. ``fortythieves play --save FILE`` then ``q``; neither terminated, truncated nor
  stuck: the record holds the moves played so far).
- ``digest`` (str): ``"sha256:"`` and the SHA-256 of every other field, as JSON with sorted
  keys and no spaces (:meth:`GameRecord.content_digest`). A record changed after it was
  written, by hand or by another program, no longer matches it (:attr:`GameRecord.intact`):
  ``evaluate --resume`` then plays its deal again. It tells edits from the record as written,
  not a forger who writes a new digest: the replay (:func:`verify`) is the check of the game.

Checks (:func:`verify`): the record was made under the current rules, the start is what the
source deals (a seed always; a PySolFC number when ``pysol-cards`` is installed), every move
is legal where it is played, the game does not end before the last move, and it ends after
it exactly as ``outcome`` says (an unfinished game has not ended after it, a game that has
not ended is marked stuck or unfinished); a stuck game has not ended, and every legal move
after its last one leads to a player's view (:func:`~fortythieves_env.rules.view.player_view`) seen
earlier in the game. Any failure is a :class:`RecordError` with a one-line message naming the
field or the move (or both rules versions).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..envs.env import FortyThievesEnv
from ..rules.checks import MAX_JSON_NESTING, json_depth
from ..rules.checks import is_int as _is_int
from ..rules.variants import (
    RULES_VERSION,
    EmptyColumn,
    VariantSpec,
    recorded_rules_version,
    rules_version_mismatch,
)
from .files import read_user_text

__all__ = [
    "FORMAT_VERSION",
    "GameRecord",
    "RecordError",
    "boards",
    "describe",
    "load_record",
    "make_record",
    "verify",
    "write_gif",
    "write_html",
]

FORMAT_VERSION = 5
"""The version of the record format this module writes (it reads 1 to 4 too)."""

_READS = (1, 2, 3, 4, 5)
_RULES_VERSION_FROM = 4
"""The first format that records ``rules_version`` (older records: rules version 1)."""
_DIGEST_FROM = 5
"""The first format that carries a ``digest`` of the record."""
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")

SourceKind = Literal["seed", "pysol_deal", "position"]
_SOURCE_KINDS = ("seed", "pysol_deal", "position")
_OUTCOME_KEYS = (
    "won",
    "foundation_cards",
    "length",
    "terminated",
    "truncated",
    "stuck",
    "unfinished",
)
_OUTCOME_KEYS_OF = {
    1: _OUTCOME_KEYS[:5],
    2: _OUTCOME_KEYS[:6],
    3: _OUTCOME_KEYS,
    4: _OUTCOME_KEYS,
    5: _OUTCOME_KEYS,
}
"""The outcome keys of each format version (1: no ``stuck``; 2: no ``unfinished``)."""
_OUTCOME_FLAGS = ("stuck", "unfinished")
"""Outcome keys that :func:`make_record` and an older record leave false when missing."""


class RecordError(ValueError):
    """A game record is malformed, or does not replay to what it says (one-line message)."""


@dataclass(frozen=True)
class GameRecord:
    """One played game; the fields are those of the JSON format (module docstring)."""

    variant: VariantSpec
    step_limit: int | None
    max_steps_without_progress: int | None
    source: dict[str, Any]
    agent: dict[str, Any]
    start: dict[str, Any]
    moves: list[str]
    outcome: dict[str, Any]
    package_version: str = field(default_factory=lambda: _package_version())
    format_version: int = FORMAT_VERSION
    rules_version: int = RULES_VERSION
    digest: str | None = field(default=None, compare=False)
    """The digest the record was read with; None for a record made here (:meth:`to_json`
    computes it) or read from a format before 5."""

    def content_digest(self) -> str:
        """``"sha256:"`` and the SHA-256 of the record's fields but ``digest``, as JSON with
        sorted keys and no spaces (ASCII): what :meth:`to_json` writes as ``digest``."""
        content = self._fields_json()
        text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()

    @property
    def intact(self) -> bool:
        """Whether the record is as it was written: read with a ``digest`` (format 5 on) that
        matches its content (:meth:`content_digest`)."""
        return self.digest is not None and self.digest == self.content_digest()

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (keys in the order of the format): ``digest``, for
        format 5 on, the one it was read with, else its :meth:`content_digest`."""
        out = self._fields_json()
        if self.format_version >= _DIGEST_FROM:
            out["digest"] = self.digest if self.digest is not None else self.content_digest()
        return out

    def _fields_json(self) -> dict[str, Any]:
        """:meth:`to_json` without ``digest``."""
        spec = asdict(self.variant)
        spec["build"] = self.variant.build.value
        if self.variant.empty_column is EmptyColumn.ANY:
            del spec["empty_column"]  # the rule book's: readable by versions before the field
        else:
            spec["empty_column"] = self.variant.empty_column.value
        out: dict[str, Any] = {
            "format_version": self.format_version,
            "package_version": self.package_version,
            "rules_version": self.rules_version,
            "variant": spec,
            "step_limit": self.step_limit,
            "max_steps_without_progress": self.max_steps_without_progress,
            "source": dict(self.source),
            "agent": dict(self.agent),
            "start": self.start,
            "moves": list(self.moves),
            "outcome": dict(self.outcome),
        }
        if self.format_version < _RULES_VERSION_FROM:  # as read: an older format has none
            del out["rules_version"]
        return out

    def save(self, path: str | Path) -> None:
        """Write the record as JSON (its folder created if missing). Raises ``OSError``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n", "utf-8")

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Read a record from its JSON dict, checking the types of every field.

        Raises:
            RecordError: a field is missing, of the wrong type, or unknown; another
                ``format_version``; a variant spec that is not playable. (A record made
                under other rules is read: :func:`verify` refuses it.)
        """
        if not isinstance(data, Mapping):
            raise RecordError(f"a game record is a JSON object, got {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        version = data.get("format_version")
        if _is_int(version) and version < _RULES_VERSION_FROM:
            names.remove("rules_version")  # formats 1 to 3: rules version 1
        if _is_int(version) and version < _DIGEST_FROM:
            names.remove("digest")  # formats 1 to 4: none
        missing = [n for n in names if n not in data]
        unknown = sorted(set(data) - set(names))
        if missing or unknown:
            raise RecordError(
                "game record: "
                + "; ".join(
                    ([f"missing field(s) {', '.join(missing)}"] if missing else [])
                    + ([f"unknown field(s) {', '.join(unknown)}"] if unknown else [])
                )
            )
        if data["format_version"] not in _READS or not _is_int(data["format_version"]):
            raise RecordError(
                f"game record format_version {data['format_version']!r} is not supported "
                f"(this version reads {', '.join(map(str, _READS))})"
            )
        spec_fields = data["variant"]
        if not isinstance(spec_fields, Mapping):
            raise RecordError("game record field variant: must be an object of VariantSpec fields")
        try:
            spec = VariantSpec(**spec_fields)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"game record field variant: {exc}") from None
        for name in ("step_limit", "max_steps_without_progress"):
            value = data[name]
            if value is not None and (not _is_int(value) or value < 1):
                raise RecordError(
                    f"game record field {name}: must be a positive integer or null, got {value!r}"
                )
        source = data["source"]
        if (
            not isinstance(source, Mapping)
            or set(source) != {"kind", "value"}
            or source["kind"] not in _SOURCE_KINDS
            or (source["kind"] == "position") != (source["value"] is None)
            or (
                source["value"] is not None
                and (not _is_int(source["value"]) or source["value"] < 0)
            )
        ):
            raise RecordError(
                "game record field source: must be {'kind': 'seed' or 'pysol_deal', 'value': "
                f"a non-negative integer}} or {{'kind': 'position', 'value': null}}, got {source!r}"
            )
        agent = data["agent"]
        if not isinstance(agent, Mapping) or not isinstance(agent.get("name"), str):
            raise RecordError("game record field agent: must be an object with a string 'name'")
        if not isinstance(data["start"], Mapping):
            raise RecordError("game record field start: must be a position (a JSON object)")
        moves = data["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RecordError("game record field moves: must be a list of move strings")
        outcome = data["outcome"]
        keys = _OUTCOME_KEYS_OF[int(data["format_version"])]
        if not isinstance(outcome, Mapping) or set(outcome) != set(keys):
            raise RecordError(
                f"game record field outcome: must have exactly the keys {', '.join(keys)}"
            )
        # version 1 had no stuck games, versions 1 and 2 no unfinished ones
        outcome = {**dict.fromkeys(_OUTCOME_FLAGS, False), **outcome}
        if not isinstance(data["package_version"], str):
            raise RecordError("game record field package_version: must be a string")
        rules_version = recorded_rules_version(None)  # formats 1 to 3
        if "rules_version" in data:
            value = data["rules_version"]
            if not _is_int(value) or value < 1:
                raise RecordError(
                    f"game record field rules_version: must be a positive integer, got {value!r}"
                )
            rules_version = int(value)
        digest = data.get("digest")
        if "digest" in data and (not isinstance(digest, str) or not _DIGEST.match(digest)):
            raise RecordError(
                "game record field digest: must be 'sha256:' and 64 lowercase hex digits, "
                f"got {digest!r:.80}"
            )
        return cls(
            variant=spec,
            step_limit=_int_or_none(data["step_limit"]),
            max_steps_without_progress=_int_or_none(data["max_steps_without_progress"]),
            source={"kind": source["kind"], "value": _int_or_none(source["value"])},
            agent=dict(agent),
            start=dict(data["start"]),
            moves=list(moves),
            outcome=dict(outcome),
            package_version=data["package_version"],
            format_version=int(data["format_version"]),
            rules_version=rules_version,
            digest=digest,
        )


def _int_or_none(value: Any) -> int | None:
    """A checked integer field as a plain ``int`` (a NumPy integer would not serialize)."""
    return None if value is None else int(value)


def _package_version() -> str:
    from .. import __version__

    return __version__


MAX_RECORD_BYTES = 64 * 2**20
"""The largest record file read (64 MiB: a record takes about 10 bytes a move; the longest
game allowed by the training configs, a million moves, about 10 MB)."""


def load_record(path: str | Path) -> GameRecord:
    """Read a record file (not yet replayed: see :func:`verify`).

    Raises:
        RecordError: the file cannot be read, is not a regular file (a FIFO: see
            :func:`~fortythieves_env.records.files.open_user_file`) or is over
            :data:`MAX_RECORD_BYTES`, is not JSON, nests arrays and objects deeper
            than :data:`~fortythieves_env.rules.checks.MAX_JSON_NESTING` levels (a record has 4;
            ``json`` would raise ``RecursionError`` at about 1,000), or is not a valid record;
            the message (one line) starts with the path.
    """
    try:
        text = read_user_text(path, MAX_RECORD_BYTES)
        depth = json_depth(text)
        if depth > MAX_JSON_NESTING:
            raise RecordError(
                f"{path}: not a game record: nested {depth} levels deep; at most "
                f"{MAX_JSON_NESTING} are allowed"
            )
        data = json.loads(text)
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the record ({exc.strerror or exc})") from None
    except RecordError:
        raise
    except ValueError as exc:
        raise RecordError(f"{path}: not a JSON file ({exc})") from None
    try:
        return GameRecord.from_json(data)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


def make_record(
    variant: VariantSpec,
    source: tuple[SourceKind, int | None],
    agent: Mapping[str, Any],
    start: dict[str, Any],
    actions: Sequence[int] | np.ndarray,
    outcome: Mapping[str, Any],
    step_limit: int | None,
    max_steps_without_progress: int | None = None,
) -> GameRecord:
    """A record of a game played from ``start`` with ``actions`` (action indices), which are
    written in move notation here (the conversion runs once per game, after it).

    Args:
        variant: the variant played.
        source: ``("seed", s)``, ``("pysol_deal", n)`` or ``("position", None)``.
        agent: ``{"name": ..., ...}``.
        start: the starting position (rule-book format).
        actions: the actions played, in order.
        outcome: ``won``, ``foundation_cards``, ``length``, ``terminated``, ``truncated``,
            ``stuck`` and ``unfinished`` (the last two False if missing).
        step_limit: the ``TimeLimit`` of the game (None: none).
        max_steps_without_progress: the environment's setting.

    Raises:
        RecordError: an action outside the variant's action space.
    """
    from ..rules.engine import rules_for

    rules = rules_for(variant)
    try:
        moves = [rules.action_to_move(int(a)) for a in actions]
    except ValueError as exc:
        raise RecordError(f"cannot write the moves: {exc}") from None
    kind, value = source
    return GameRecord(
        variant=variant,
        step_limit=step_limit,
        max_steps_without_progress=max_steps_without_progress,
        source={"kind": kind, "value": value},
        agent=dict(agent),
        start=start,
        moves=moves,
        outcome={
            k: outcome.get(k, False) if k in _OUTCOME_FLAGS else outcome[k] for k in _OUTCOME_KEYS
        },
    )


def _replay(record: GameRecord, render_mode: str | None = None) -> Iterator[FortyThievesEnv]:
    """The environment at the start and after each move (the same object each time);
    checks everything listed in the module docstring, raising :class:`RecordError`."""
    from ..rules.engine import InvalidPositionError

    mismatch = rules_version_mismatch(record.rules_version)
    if mismatch:
        raise RecordError(f"the record was {mismatch}: it does not replay under these rules")

    env = FortyThievesEnv(
        record.variant,
        render_mode=render_mode,
        max_steps_without_progress=record.max_steps_without_progress,
    )
    kind, value = record.source["kind"], record.source["value"]
    if kind == "seed" or (kind == "pysol_deal" and _has_pysol()):
        options = None if kind == "seed" else {"pysol_deal": value}
        env.reset(seed=value if kind == "seed" else None, options=options)
        if env.get_state() != record.start:
            raise RecordError(
                f"the start position is not the deal of {kind} {value} of {record.variant.id}"
            )
    try:
        env.reset(options={"state": record.start})
    except (InvalidPositionError, ValueError) as exc:
        raise RecordError(f"the start position is refused: {exc}") from None
    yield env
    views = bool(record.outcome.get("stuck"))  # the stuck check needs the views seen
    seen = {env.player_view()} if views else set()
    limit = record.step_limit
    terminated = truncated = False
    info: dict[str, Any] = {}
    n = len(record.moves)
    for k, move in enumerate(record.moves, start=1):
        if terminated or truncated:
            raise RecordError(
                f"the game ended after move {k - 1} of {n}, yet the record goes on with {move!r}"
            )
        try:
            action = env.move_to_action(move)
        except ValueError as exc:
            raise RecordError(f"move {k} {move!r}: {exc}") from None
        if not env.action_masks()[action]:
            raise RecordError(
                f"move {k} {move!r} is illegal there (legal: {' '.join(env.legal_moves())})"
            )
        _, _, terminated, truncated, info = env.step(action)
        if limit is not None and k >= limit:
            truncated = True
        if views:
            seen.add(env.player_view())
        yield env
    stuck = bool(record.outcome.get("stuck")) and not (terminated or truncated)
    unfinished = bool(record.outcome.get("unfinished")) and not (terminated or truncated or stuck)
    got = {
        "won": bool(info.get("is_success", False)),
        "foundation_cards": env.player_view().foundation_cards,
        "length": n,
        "terminated": bool(terminated),
        "truncated": bool(truncated and not terminated),
        "stuck": stuck,
        "unfinished": unfinished,
    }
    if not (terminated or truncated or stuck or unfinished):
        raise RecordError(
            f"the game has not ended after the record's {n} moves (and is not marked unfinished)"
        )
    if stuck:
        _check_stuck(env, seen)
    wrong = [
        f"{k} {record.outcome[k]!r} (replay: {got[k]!r})"
        for k in _OUTCOME_KEYS
        if record.outcome[k] != got[k]
    ]
    if wrong:
        raise RecordError("the outcome differs from the replay: " + ", ".join(wrong))


def _check_stuck(env: FortyThievesEnv, seen: set[Any]) -> None:
    """A stuck game: every legal move at the end leads to a view in ``seen`` (the player's
    views of the game so far).

    Raises:
        RecordError: a legal move leads to a new view (the rule did not end the game).
    """
    from ..rules.view import player_view

    rules = env.rules
    state = env.state
    assert state is not None
    for action in rules.legal_actions(state):
        after = state.copy()
        rules.apply(after, action)
        if player_view(rules, after) not in seen:
            raise RecordError(
                f"the record says stuck, yet {rules.action_to_move(action)!r} leads to a "
                "view not seen in the game"
            )


def _has_pysol() -> bool:
    try:
        import pysol_cards  # noqa: F401
    except ImportError:
        return False
    return True


def verify(record: GameRecord) -> dict[str, Any]:
    """Replay the record and check it (module docstring, Checks); return its outcome.

    Raises:
        RecordError: what does not replay, on one line (the move number and notation for
            an illegal move, the fields for a different outcome).
    """
    for _ in _replay(record):
        pass
    return dict(record.outcome)


def boards(
    record: GameRecord, render_mode: Literal["ansi", "rgb_array"] = "ansi", moves: int | None = None
) -> Iterator[tuple[str | None, Any]]:
    """``(move, board)`` for the start (move None) and after each of the first ``moves``
    moves (all: None); ``board`` is the text board (``"ansi"``) or the picture
    (``"rgb_array"``: ``uint8`` ``(H, W, 3)``). Checks as :func:`verify` as it goes
    (call :func:`verify` first to refuse a bad record before showing any of it).

    Raises:
        RecordError: see :func:`verify`.
    """
    for k, env in enumerate(_replay(record, render_mode)):
        if moves is not None and k > moves:
            return
        yield (record.moves[k - 1] if k else None), env.render()


def _caption(record: GameRecord, k: int, move: str | None) -> str:
    n = len(record.moves)
    return "start" if move is None else f"move {k}/{n}: {move}"


def write_gif(
    record: GameRecord, path: str | Path, fps: float = 4.0, moves: int | None = None
) -> int:
    """Write an animated GIF of the game (a frame per position, Pillow); return the frames.

    Each frame is quantised to 256 colours as it is drawn; Pillow holds every frame until
    the file is written (about 0.5 MB each: ``moves`` shortens a long game). The last frame
    is held 2 s.

    Raises:
        RecordError: see :func:`verify`. ``OSError``: the file cannot be written.
        ValueError: ``fps`` not positive.
    """
    from PIL import Image

    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    frames = [
        Image.fromarray(frame).quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        for _, frame in boards(record, "rgb_array", moves)
    ]
    durations = [round(1000 / fps)] * len(frames)
    durations[-1] = 2000
    frames[0].save(
        path, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=False
    )
    return len(frames)


_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; background: #165f34; color: #f5f5eb; margin: 1.5em; }}
pre {{ background: #fcfcf7; color: #141414; padding: 1em; font-size: 15px; line-height: 1.3;
      display: inline-block; min-width: 40em; }}
button {{ font-size: 1em; margin-right: .3em; }}
#pos {{ width: 40em; }}
</style></head><body>
<h2>{title}</h2>
<p>{subtitle}</p>
<div><button id="first">|&lt;</button><button id="prev">&lt;</button>
<button id="play">play</button><button id="next">&gt;</button><button id="last">&gt;|</button>
<input id="pos" type="range" min="0" value="0"> <span id="caption"></span></div>
<pre id="board"></pre>
<p>Keys: left/right arrows step, space plays or pauses, Home/End jump.</p>
<script id="data" type="application/json">{data}</script>
<script>
const d = JSON.parse(document.getElementById("data").textContent);
const board = document.getElementById("board"), cap = document.getElementById("caption");
const pos = document.getElementById("pos");
pos.max = d.boards.length - 1;
let k = 0, timer = null;
function show(i) {{
  k = Math.max(0, Math.min(d.boards.length - 1, i));
  board.textContent = d.boards[k];
  cap.textContent = d.captions[k];
  pos.value = k;
}}
function play() {{
  if (timer) {{ clearInterval(timer); timer = null; return; }}
  timer = setInterval(() => {{ if (k >= d.boards.length - 1) play(); else show(k + 1); }}, 250);
}}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(k - 1);
document.getElementById("next").onclick = () => show(k + 1);
document.getElementById("last").onclick = () => show(d.boards.length - 1);
document.getElementById("play").onclick = play;
pos.oninput = () => show(parseInt(pos.value));
document.onkeydown = (e) => {{
  if (e.key === "ArrowRight") show(k + 1);
  else if (e.key === "ArrowLeft") show(k - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(d.boards.length - 1);
  else if (e.key === " ") {{ play(); e.preventDefault(); }}
}};
show(0);
</script></body></html>
"""


def describe(record: GameRecord) -> str:
    """One line: variant, deal, agent and outcome."""
    o = record.outcome
    source = record.source
    deal = (
        "a given position"
        if source["kind"] == "position"
        else f"{source['kind']} {source['value']}"
    )
    if o.get("unfinished"):
        end = "unfinished (stopped before the end),"
    elif o["won"]:
        end = "won"
    else:
        end = "truncated" if o["truncated"] else ("stuck" if o.get("stuck") else "lost")
    return (
        f"{record.variant.name}, {deal}, played by {record.agent['name']}: {end} with "
        f"{_count(o['foundation_cards'], 'foundation card')} in {_count(o['length'], 'move')}"
    )


def _count(n: int, noun: str) -> str:
    """``1 move``, ``2 moves``, ``0 moves``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def write_html(record: GameRecord, path: str | Path, moves: int | None = None) -> int:
    """Write one self-contained HTML page that steps through the game (the text boards and a
    small script: no file or network access); return the positions shown.

    The text boards keep the page small (about 1 kB per position) where pictures would
    take ~30 kB each.

    Raises:
        RecordError: see :func:`verify`. ``OSError``: the file cannot be written.
    """
    texts, captions = [], []
    for k, (move, text) in enumerate(boards(record, "ansi", moves)):
        texts.append(text)
        captions.append(_caption(record, k, move))
    data = json.dumps({"boards": texts, "captions": captions}).replace("</", "<\\/")
    page = _HTML.format(
        title=html.escape(f"{record.variant.name}: {record.agent['name']}"),
        subtitle=html.escape(describe(record)),
        data=data,
    )
    Path(path).write_text(page, "utf-8")
    return len(texts)
