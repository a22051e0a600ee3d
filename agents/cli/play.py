"""``fortythieves play``: a person plays one deal in the terminal.

A prompt loop drawn with ``rich`` (already a dependency of the package, so the command needs
no extra): the table in colour (red suits red, face-down cards as ``##``), and at the prompt
``move>`` one of:

==================  =====================================================================
``t3>t7``, ``w>f``  a move in the rule book's notation (``RULES.md``, last section):
                    ``draw``, ``redeal``, ``SRC>DST`` or ``SRC>DSTxN``; ``d`` is ``draw``
``N``               move N of the numbered list of legal moves (``list``), as last shown
``l``, ``list``     the legal moves, numbered (in action order), each with what it moves
``h``, ``hint``     a suggested move: the greedy baseline's choice, or a trained model's
                    (``--hint-model``); it is shown, not played
``u``, ``undo``     take back the last move
``b``, ``board``    show the table again
``?``, ``help``     the commands
``q``, ``quit``     stop
==================  =====================================================================

Typed text is read case-insensitively and spaces are ignored (``T3 > T7`` is ``t3>t7``).
A malformed or illegal move is refused with the reason (``illegal move 't3>t7': 9H does
not go onto 5C (...)``) and nothing is played: the game goes on.

Decisions where the issue is silent:

* **The episode is the registered one**: the variant's step limit (``--max-steps`` changes
  it) and, only with ``--max-steps-without-progress K``, the environment's no-progress
  truncation. Every move typed counts one step; a refused move is not played, so it costs
  no step (unlike an agent's illegal action in the environment).
* **Undo** restores everything as it was before the move: the position, the step count of
  the ``TimeLimit`` wrapper and the environment's no-progress count. Each move keeps a
  copy of the environment (``copy.deepcopy``: an exact clone, see
  :class:`~fortythieves_env.FortyThievesEnv`, about 3 kB and 0.2 ms). Undo works after the
  game has ended too (take back the move that lost, and play on); there is no redo.
* **The end** is told apart: won (all cards on the foundations), no legal move (lost),
  the step limit, or no progress (``--max-steps-without-progress``). A game that ends by
  a win or no legal move on the very step of the limit counts as won or lost (Gymnasium's
  ``terminated`` comes first).
* **Without ``--seed`` or ``--pysol-deal``** a seed is drawn at random and shown in the
  header, so the same deal can be played again with ``--seed``.
* **The table shows what a player sees** (:meth:`~fortythieves_env.FortyThievesEnv.player_view`):
  face-down cards and the stock as counts, the waste's top three cards.
* **A number plays only the move it was shown for.** The numbers follow the legal moves of
  the position, so they change with every move: after ``l`` and a move, ``3`` would name a
  move the player never saw. A careful interface neither guesses nor plays it: a number N
  is played only when the list's entry N now (its notation and what it moves, e.g.
  ``w>t2 (7D onto 8S)``) is the entry N last shown to the player, by ``l`` or by a hint's
  "move N". Otherwise it is refused, nothing is played, and the list of the position is
  shown at once, so the next number typed is read from what is on the screen. Refusing
  and showing beats showing alone: the number was typed for another list, so playing
  either reading of it would be a guess. (A number that is on no list, ``99``, is refused
  as before; notation like ``t3>t7`` never depends on a list.)
* **``--save FILE``** writes a game record (:mod:`fortythieves_env.records`, replayable by
  ``fortythieves replay FILE``) of the moves that stand (taken-back moves are not in it),
  with ``{"name": "human", "hints": H, "undos": U}`` as the agent: when the game ends
  (again after an undo and a new end), and when the player stops first (``q``, the end of
  the input, Ctrl-C), then marked unfinished (the outcome's ``unfinished`` is true;
  ``replay`` checks the moves and says "unfinished"), so a game can be kept and looked at
  later. The moves played are printed too.
* **A hint model made for an older id version** (a ``FortyThieves/LittleForty-v0`` model,
  trained before observation version 1) gives its hints from the observation of that
  version: the game is the same deal under the same rules, only what the model reads
  differs (``evaluate`` asks for ``--env-version``; ``play`` takes the model's own).
* **Input that is not a terminal** (a pipe or a file) is echoed after the prompt, so the
  transcript reads as a session; its end quits as ``q`` does.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import gymnasium as gym
import numpy as np
from gymnasium.wrappers import TimeLimit
from rich.columns import Columns
from rich.console import Console, Group
from rich.text import Text

from fortythieves_env import FortyThievesEnv, get_variant
from fortythieves_env.rules.actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
)
from fortythieves_env.rules.cards import CARD_NAMES, RED, SUITS
from fortythieves_env.rules.observation import LATEST_VERSION
from fortythieves_env.rules.view import PlayerView

__all__ = [
    "END_MESSAGES",
    "Game",
    "MoveError",
    "describe_move",
    "render_table",
    "run",
    "stopped",
]

End = Literal["won", "no legal move", "step limit", "no progress"]

END_MESSAGES: dict[str, str] = {
    "won": "You won: all {cards} cards are on the foundations, in {steps} moves.",
    "no legal move": (
        "No legal move left: the game is lost, with {cards}/104 cards on the foundations "
        "after {steps} moves."
    ),
    "step limit": (
        "Step limit reached: {steps} of {limit} moves played, the game stops here, with "
        "{cards}/104 cards on the foundations."
    ),
    "no progress": (
        "No progress in {idle} moves in a row (no card to a foundation, no draw or redeal, "
        "no card turned up): the game stops here, with {cards}/104 cards on the foundations "
        "after {steps} moves."
    ),
}
"""The end message of each way a game ends (``str.format`` fields: ``cards``, ``steps``,
``limit``, ``idle``)."""

HELP = """\
Type a move in the rule book's notation, or a number from the list:
  draw, d          deal from the stock onto the waste
  redeal           turn the waste over into the stock (variants with redeals)
  w>f   t3>f       the waste's top card / column 3's top card to a foundation
  w>t2  t3>t7      ... onto a column; t2>t0x3 moves a sequence of 3 cards
  N                play move N of the numbered list
  l, list          the legal moves, numbered
  h, hint          a suggested move ({hinter}); it is not played
  u, undo          take back the last move (the step count goes back too)
  b, board         show the table again
  ?, help          this help
  q, quit          stop"""

RED_STYLE = "bold red"
BLACK_STYLE = "bold"
DIM_STYLE = "dim"


class MoveError(ValueError):
    """Typed text that is not a legal move here (the message says why)."""


class HintAgent(Protocol):
    """What gives a hint: an agent of :mod:`fortythieves_agents.players.baselines` or a trained
    model."""

    name: str

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """A legal action of ``env`` in observation ``obs``."""
        ...


@dataclass
class Game:
    """One deal played by a person: the environment under its step limit, the moves that
    stand, and an undo stack.

    Args:
        variant: a variant id (or spec).
        seed: the deal ``reset(seed=seed)``.
        pysol_deal: PySolFC's game number instead (needs the ``pysol`` extra).
        max_steps: the step limit (``TimeLimit``); default the variant's registered
            ``max_episode_steps``.
        max_steps_without_progress: the environment's no-progress truncation (default off).
        observation_version: the observation the hint agent reads (default the newest,
            :data:`~fortythieves_env.rules.observation.LATEST_VERSION`); a hint model made for
            an older id version (``LittleForty-v0``) gets that one. The table does not
            depend on it.

    Raises:
        ValueError: both ``seed`` and ``pysol_deal``; no PySolFC deal for the variant
            (Lucas) or a bad game number; a step limit < 1; an unknown observation version.
        ImportError: ``pysol_deal`` without ``pysol-cards``.
    """

    variant: str
    seed: int | None = None
    pysol_deal: int | None = None
    max_steps: int | None = None
    max_steps_without_progress: int | None = None
    observation_version: int = LATEST_VERSION
    env: TimeLimit = field(init=False)
    obs: np.ndarray = field(init=False)
    moves: list[str] = field(init=False, default_factory=list)
    """The moves that stand, in notation (taken-back moves are removed)."""
    end: End | None = field(init=False, default=None)
    """How the game ended, None while it goes on."""
    hints: int = field(init=False, default=0)
    """Hints asked for."""
    undos: int = field(init=False, default=0)
    """Moves taken back."""
    start: dict[str, Any] = field(init=False)
    """The starting position (rule-book format, every card)."""
    _history: list[tuple[TimeLimit, np.ndarray]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        spec = get_variant(self.variant)
        self.variant = spec.id
        if self.seed is not None and self.pysol_deal is not None:
            raise ValueError("give a seed or a PySolFC deal number, not both")
        if self.max_steps is None:
            self.max_steps = spec.max_episode_steps
        if self.max_steps < 1:
            raise ValueError(f"the step limit must be >= 1, got {self.max_steps}")
        if self.seed is None and self.pysol_deal is None:
            self.seed = secrets.randbelow(1_000_000_000)
        base = FortyThievesEnv(
            spec,
            max_steps_without_progress=self.max_steps_without_progress,
            observation_version=self.observation_version,
        )
        self.env = TimeLimit(base, max_episode_steps=self.max_steps)
        if self.pysol_deal is not None:
            self.obs, _ = self.env.reset(options={"pysol_deal": self.pysol_deal})
        else:
            self.obs, _ = self.env.reset(seed=self.seed)
        self.start = base.get_state()
        if not self.legal_actions():  # only a custom variant without a stock
            self.end = "no legal move"

    # ------------------------------------------------------------------ reading
    @property
    def base(self) -> FortyThievesEnv:
        """The environment under the ``TimeLimit`` wrapper."""
        return self.env.unwrapped  # type: ignore[return-value]

    @property
    def steps(self) -> int:
        """Steps played (the ``TimeLimit`` count: every move that stands)."""
        return self.env._elapsed_steps  # type: ignore[no-any-return]

    @property
    def source(self) -> tuple[Literal["seed", "pysol_deal"], int]:
        """Where the deal comes from: ``("seed", s)`` or ``("pysol_deal", n)``."""
        if self.pysol_deal is not None:
            return "pysol_deal", self.pysol_deal
        assert self.seed is not None
        return "seed", self.seed

    def view(self) -> PlayerView:
        """What the player sees (:func:`fortythieves_env.rules.view.player_view`)."""
        return self.base.player_view()

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending (empty once the game has ended)."""
        if self.end is not None:
            return []
        return np.flatnonzero(self.base.action_masks()).tolist()

    def end_message(self) -> str:
        """The message of :attr:`end` (``""`` while the game goes on)."""
        if self.end is None:
            return ""
        return END_MESSAGES[self.end].format(
            cards=self.view().foundation_cards,
            steps=self.steps,
            limit=self.max_steps,
            idle=self.max_steps_without_progress,
        )

    # ------------------------------------------------------------------ playing
    def parse(self, text: str) -> int:
        """The legal action that ``text`` names: a move in notation (``d`` for ``draw``;
        case and spaces ignored) or a number ``N`` of the numbered list (1-based, in action
        order: :meth:`legal_actions`; decimal digits, of any script, as ``int`` reads them).

        Raises:
            MoveError: the game is over, the text is not a move, the number is not on the
                list, or the move is illegal here (the message gives the rule-book reason).
        """
        if self.end is not None:
            raise MoveError("the game is over: undo (u) to take back the last move, or quit (q)")
        word = "".join(text.split()).lower()
        legal = self.legal_actions()
        if word.isdecimal():  # not isdigit(): "²" is a digit that int() refuses
            k = int(word)
            if not 1 <= k <= len(legal):
                raise MoveError(f"there is no move {k}: the list has 1..{len(legal)} (type l)")
            return legal[k - 1]
        if word == "d":
            word = "draw"
        try:
            action = self.base.move_to_action(word)
        except ValueError as exc:
            raise MoveError(str(exc)) from None
        if action not in legal:
            reason = self.base.rules.why_illegal(self.base.state, action)
            raise MoveError(f"illegal move {word!r}: {reason}")
        return action

    def play(self, action: int) -> None:
        """Play a legal action (as :meth:`parse` returns it) and note how the game ends.

        Raises:
            MoveError: the game is over or the action is not legal here.
        """
        if self.end is not None or action not in self.legal_actions():
            raise MoveError(f"action {action} is not a legal move here")
        self._history.append((copy.deepcopy(self.env), self.obs))
        move = self.base.action_to_move(action)
        self.obs, _, terminated, truncated, info = self.env.step(action)
        self.moves.append(move)
        if terminated:
            self.end = "won" if info["is_success"] else "no legal move"
        elif truncated:
            self.end = "step limit" if self.steps >= self.max_steps else "no progress"  # type: ignore[operator]

    def undo(self) -> str | None:
        """Take back the last move: position, step count and no-progress count as before
        it, the game running again. Returns the move taken back (notation), or None when
        there is none."""
        if not self._history:
            return None
        self.env, self.obs = self._history.pop()
        self.end = None
        self.undos += 1
        return self.moves.pop()

    def hint(self, agent: HintAgent) -> int:
        """``agent``'s choice here (not played); counted in :attr:`hints`.

        Raises:
            MoveError: the game is over.
        """
        if self.end is not None:
            raise MoveError("the game is over: there is no move to suggest")
        self.hints += 1
        return int(agent.act(self.obs, self.env))

    def record(self) -> Any:
        """The game record of the moves that stand
        (:class:`fortythieves_env.records.GameRecord`): of the finished game, or, while it
        goes on, of the game so far, marked unfinished (outcome ``unfinished`` true,
        ``terminated`` and ``truncated`` false)."""
        from fortythieves_env.records.record import make_record

        base = self.base
        terminated = self.end in ("won", "no legal move")
        return make_record(
            base.variant,
            self.source,
            {"name": "human", "hints": self.hints, "undos": self.undos},
            self.start,
            [base.move_to_action(m) for m in self.moves],
            {
                "won": self.end == "won",
                "foundation_cards": self.view().foundation_cards,
                "length": len(self.moves),
                "terminated": terminated,
                "truncated": self.end is not None and not terminated,
                "unfinished": self.end is None,
            },
            step_limit=self.max_steps,
            max_steps_without_progress=self.max_steps_without_progress,
        )


# ---------------------------------------------------------------------- drawing
def _card(code: int) -> Text:
    return Text(CARD_NAMES[code], style=RED_STYLE if RED[code] else BLACK_STYLE)


def render_table(game: Game) -> Group:
    """The table in colour, from what the player sees: a header (variant, deal, steps,
    no-progress count), the stock count, the waste's top three cards (the last one
    playable), the 8 foundations (top card, or ``-S`` for an empty pile of suit S), then
    the columns ``t0``, ``t1``, ... side by side, face-down cards as ``##``."""
    spec = game.base.variant
    view = game.view()
    kind, value = game.source
    deal = f"seed {value}" if kind == "seed" else f"PySolFC deal {value}"
    header = Text(f"{spec.name}, {deal}", style="bold")
    header.append(f"   step {game.steps}/{game.max_steps}")
    if game.max_steps_without_progress is not None:
        header.append(
            f"   no progress {game.base.steps_without_progress}/{game.max_steps_without_progress}"
        )
    line = Text(f"stock {view.stock_size}   waste ")
    if view.waste:
        for code in view.waste[-3:]:
            line.append_text(_card(code))
            line.append(" ")
        line.append(f"({len(view.waste)})")
    else:
        line.append("--", style=DIM_STYLE)
    if spec.redeals:
        line.append(f"   redeals left {view.redeals_left}")
    line.append(f"   foundations {view.foundation_cards}/104")
    found = Text("foundations ")
    for pile, height in enumerate(view.foundations):
        suit = pile // 2
        if height:
            found.append_text(_card(suit * 13 + height))
        else:
            found.append(f"-{SUITS[suit]}", style=DIM_STYLE)
        found.append(" ")
    labels = Text("".join(f"t{i:<3}" for i in range(spec.n_columns)).rstrip())
    rows = [header, line, found, Text(""), labels]
    height = max((d + len(c) for d, c in zip(view.face_down, view.tableau, strict=True)), default=0)
    for r in range(height):
        row = Text()
        for down, cards in zip(view.face_down, view.tableau, strict=True):
            if r < down:
                row.append("##", style=DIM_STYLE)
            elif r < down + len(cards):
                row.append_text(_card(cards[r - down]))
            else:
                row.append("  ")
            row.append("  ")
        row.rstrip()
        rows.append(row)
    if not height:
        rows.append(Text("(every column is empty)", style=DIM_STYLE))
    return Group(*rows)


def describe_move(view: PlayerView, game: Game, action: int) -> Text:
    """What ``action`` moves, in words: ``7D onto 8S``, ``3 cards 7D.. onto 8C``, ``QH to a
    foundation``, ``KS into empty t4``, ``deal 3 cards``, ``turn the waste over``."""
    kind, src, dst, n = game.base.rules.codec.table[action]
    if kind == DRAW:
        k = min(game.base.variant.deal_count, view.stock_size)
        return Text(f"deal {k} card{'s' if k > 1 else ''}")
    if kind == REDEAL:
        return Text("turn the waste over")
    card = view.tableau[src][-n] if kind in (COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN) else 0
    if not card:
        card = view.waste[-1]
    out = Text(f"{n} cards " if n > 1 else "")
    out.append_text(_card(card))
    if n > 1:
        out.append("..")
    if kind in (WASTE_TO_COLUMN, COLUMN_TO_COLUMN):
        if view.tableau[dst] or view.face_down[dst]:
            out.append(" onto ")
            out.append_text(_card(view.tableau[dst][-1]))
        else:
            out.append(f" into empty t{dst}")
    else:
        out.append(" to a foundation")
    return out


def _entry(game: Game, view: PlayerView, action: int) -> Text:
    """A legal move as the list shows it: ``w>t2 (7D onto 8S)``."""
    item = Text(game.base.action_to_move(action), style="bold")
    item.append(" (")
    item.append_text(describe_move(view, game, action))
    item.append(")")
    return item


def _entries(game: Game) -> list[Text]:
    """The numbered list's entries, in action order (entry N is move N)."""
    view = game.view()
    return [_entry(game, view, action) for action in game.legal_actions()]


def _legal_list(entries: list[Text], shown: dict[int, str]) -> Columns:
    """The numbered list of ``entries``; each is noted in ``shown`` (number: plain text)."""
    items = []
    for k, entry in enumerate(entries, start=1):
        shown[k] = entry.plain
        item = Text(f"{k:>2} ", style="cyan")
        item.append_text(entry)
        items.append(item)
    return Columns(items, padding=(0, 3))


def _unseen_number(word: str, game: Game, shown: dict[int, str]) -> str | None:
    """Why the number ``word`` must not be played (the module docstring: a number plays
    only the move it was shown for), or None: it may (or it is no number of the list
    now, which :meth:`Game.parse` refuses)."""
    if not word.isdecimal() or game.end is not None:
        return None
    k = int(word)
    entries = _entries(game)
    if not 1 <= k <= len(entries):
        return None
    now = entries[k - 1].plain
    if k not in shown:
        return (
            f"move {k} not played: the numbered list has not been shown for this position "
            "(the numbers change with every move); here it is, type the number again"
        )
    if shown[k] != now:
        return (
            f"move {k} not played: the list has changed since it was shown ({k} was "
            f"{shown[k]}, now it is {now}); here it is, type the number again"
        )
    return None


# ---------------------------------------------------------------------- the loop
def run(
    game: Game,
    console: Console,
    read: Callable[[str], str | None],
    hinter: HintAgent,
    save: str | Path | None = None,
    echo: bool = False,
) -> int:
    """Play ``game`` with a person until they quit (or the input ends).

    Args:
        game: the deal.
        console: where the table and messages go.
        read: shows a prompt and returns the line typed, or None when the input has ended.
        hinter: what ``hint`` asks (greedy, or a model).
        save: write the game record here when the game ends or the player stops first
            (then marked unfinished; see the module docstring).
        echo: print each line read after the prompt (for input that is not a terminal).

    Returns:
        0 (the exit code).
    """
    console.print(render_table(game))
    console.print("Type a move (e.g. draw, w>f, t3>t7), l for the legal moves, ? for help.")
    if game.end is not None:
        _ended(game, console, save)
    shown: dict[int, str] = {}  # the list entries last shown to the player, by number
    while True:
        line = read("move> " if game.end is None else "game over (u: undo, q: quit)> ")
        if line is None:
            if echo:
                console.print()
            break
        word = "".join(line.split()).lower()
        if echo:
            console.print(line.strip(), markup=False, highlight=False)
        if word in ("q", "quit", "exit"):
            break
        if word == "":
            continue
        if word in ("?", "help"):
            console.print(HELP.format(hinter=hinter.name), markup=False, highlight=False)
        elif word in ("b", "board"):
            console.print(render_table(game))
        elif word in ("l", "list"):
            if game.end is None:
                console.print(_legal_list(_entries(game), shown))
            else:
                console.print("the game is over: no legal moves")
        elif word in ("u", "undo"):
            undone = game.undo()
            if undone is not None:
                console.print(f"took back {undone}", markup=False, highlight=False)
                console.print(render_table(game))
            else:
                console.print("nothing to undo")
        elif word in ("h", "hint"):
            try:
                action = game.hint(hinter)
            except MoveError as exc:
                console.print(str(exc), style="yellow", markup=False)
                continue
            number = game.legal_actions().index(action) + 1
            shown[number] = _entry(game, game.view(), action).plain
            text = Text(f"hint ({hinter.name}): ")
            text.append(game.base.action_to_move(action), style="bold")
            text.append(f" (move {number}: ")
            text.append_text(describe_move(game.view(), game, action))
            text.append(")")
            console.print(text)
        else:
            unseen = _unseen_number(word, game, shown)
            if unseen is not None:
                console.print(unseen, style="yellow", markup=False, highlight=False)
                console.print(_legal_list(_entries(game), shown))
                continue
            try:
                action = game.parse(line)
            except MoveError as exc:
                console.print(str(exc), style="yellow", markup=False, highlight=False)
                continue
            game.play(action)
            console.print(render_table(game))
            if game.end is not None:
                _ended(game, console, save)
    if game.end is None:
        stopped(game, console, save)
    return 0


def stopped(game: Game, console: Console, save: str | Path | None) -> None:
    """The player stopped before the end: print the moves played and, with ``save``, write
    the record of the game so far, marked unfinished."""
    n = len(game.moves)
    if n == 0:
        played = "no move played"
    elif n == 1:
        played = f"the move played: {game.moves[0]}"
    else:
        played = f"the {n} moves played: " + " ".join(game.moves)
    console.print(f"stopped before the end; {played}", markup=False, highlight=False)
    if save is not None:
        _save(game, console, save)


def _ended(game: Game, console: Console, save: str | Path | None) -> None:
    style = "bold green" if game.end == "won" else "bold yellow"
    console.print(game.end_message(), style=style, markup=False, highlight=False)
    if save is not None:
        _save(game, console, save)


def _save(game: Game, console: Console, save: str | Path) -> None:
    """Write the game's record to ``save`` (an unfinished one so marked); say so."""
    try:
        game.record().save(save)
    except OSError as exc:
        console.print(
            f"cannot write the game record to {save} ({exc.strerror or exc}); the moves: "
            + " ".join(game.moves),
            style="red",
            markup=False,
            highlight=False,
        )
    else:
        console.print(
            ("unfinished " if game.end is None else "")
            + f"game record written to {save} (fortythieves replay {save})",
            markup=False,
            highlight=False,
        )
