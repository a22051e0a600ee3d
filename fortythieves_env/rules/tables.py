"""One variant's tables, made in one place: a :class:`~fortythieves_env.VariantSpec` turned
into its action codec, its rule table, its observation layout and the packed table array
the compiled rules core (:mod:`.core`) reads.

:class:`FastTables` (through :func:`tables_for`, which keeps one per variant, observation
version and layout) is the only code that derives these from a spec:
:class:`~fortythieves_env.Rules` takes its codec and rule table from it, the environments
and the backends their observation layout, the kernels of :mod:`.core` (and the solver,
the search and the family's shared encoding) their table array. No numba here: the rules'
Python API gets its tables without loading the compiled core.

State array (``int16``, shape ``(state_size,)``), for ``C`` columns, ``V`` =
:attr:`VariantSpec.max_visible` slots per column and ``S`` = :attr:`VariantSpec.stock_size`:

=========================  =================================================================
indices                    meaning
=========================  =================================================================
``0 .. C*V-1``             column i's cards (face down ones included), bottom to top, at
                           ``i*V ..``; unused slots hold 0. A reachable column never holds
                           more than ``V`` cards (see :mod:`.positions`, condition 6).
``len0 .. len0+C-1``       cards in each column (``len0 = C*V``)
``fd0 .. fd0+C-1``         face-down cards at the bottom of each column (``fd0 = len0 + C``)
``stock0 .. stock0+S-1``   the stock, bottom to top (``stock0 = fd0 + C``)
``waste0 .. waste0+S-1``   the waste, bottom to top (``waste0 = stock0 + S``)
``found0 .. found0+7``     the 8 foundation heights (``found0 = waste0 + S``)
``found0+8 .. found0+11``  cards in the stock, cards in the waste, redeals left,
                           cards on the foundations
=========================  =================================================================

Table array (``int32``): a header of :data:`N_HEADER` constants (named ``H_*`` below: sizes
and the offsets above, plus where the observation's parts start), then the build rule's
``accepts[top * 53 + card]`` (0/1, 53*53 entries; top 0 is an empty column), then the action
decode table of :class:`~fortythieves_env.rules.actions.ActionCodec`, 4 entries per action: kind,
source column, destination column, cards, then the build rule's table read by column, as
sets: for each card code, the cards (1..52) that take it on a column
(:func:`~fortythieves_env.core._taken`; two entries per card, :data:`N_TAKEN` in all).
:func:`table_size` gives the length.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

import numpy as np

from .actions import ActionCodec, codec_for
from .observation import LATEST_VERSION, ObservationLayout
from .rule_table import accepts_table
from .state import GameState
from .variants import Build, EmptyColumn, VariantSpec

__all__ = ["N_HEADER", "N_TAKEN", "FastTables", "table_size", "tables_for"]

# ---------------------------------------------------------------------- table header
(
    H_C,  # columns
    H_V,  # card slots per column (state and observation)
    H_M,  # max_move: 13 with sequence moves, else 1
    H_NACT,  # number of actions
    H_DEAL,  # cards per draw
    H_S,  # stock / waste slots
    H_LEN,  # state offsets ...
    H_FD,
    H_STOCK,
    H_WASTE,
    H_FOUND,
    H_SCAL,
    H_OBS_WASTE,  # observation offsets ...
    H_OBS_FOUND,
    H_OBS_FD,
    H_OBS_STOCK,
    H_OBS_KNOWN,  # the known-stock slots (observation version 1), -1 if none
    H_REDEALS,  # the variant's redeals (the stock is known once fewer are left)
    H_ACCEPTS,  # table offsets ...
    H_DECODE,
    H_TAKEN,
) = range(21)
N_HEADER = 21
"""Entries in the table array's header."""

N_TAKEN = 2 * 53
"""Entries of the table array's *taken* part (:func:`~fortythieves_env.core._taken`): two
per card code 0..52."""
_TAKEN_SPLIT = 31
"""Bits of a taken set in its first entry (the rest in the second; both stay positive)."""


def table_size(n_actions: int) -> int:
    """Entries of the table array of a variant (or rule set) with ``n_actions`` actions:
    header, build rule's table, decode table (4 per action) and taken part."""
    return N_HEADER + 53 * 53 + 4 * n_actions + N_TAKEN


# scalars after the foundations in the state array
S_NSTOCK, S_NWASTE, S_REDEALS, S_FCARDS = range(4)


@cache
def _rule_table(build: Build, empty_column: EmptyColumn) -> tuple[list[list[bool]], np.ndarray]:
    """The rule table of a build rule and an empty-column rule
    (:func:`~fortythieves_env.rules.rule_table.accepts_table`), as lists and as the table array's
    ``int32`` block (shape ``(53 * 53,)``, read-only); made once per pair, shared by every
    variant with those rules."""
    table = accepts_table(build, empty_column)
    block = np.array(table, dtype=np.int32).ravel()
    block.flags.writeable = False
    return table, block


class FastTables:
    """One variant's tables: its action codec, rule table and observation layout, its
    table array and the state array's offsets (for packing and unpacking). The one place
    a :class:`VariantSpec` becomes its tables (module docstring); take it from
    :func:`tables_for`, which shares one per variant.

    Args:
        spec: the variant.
        observation_version: the observation the kernels write (see
            :mod:`.observation`); the state array does not depend on it.
        layout: where the kernels write the observation: ``None`` (default) for the
            variant's own layout of ``observation_version``, or a larger
            :class:`ObservationLayout` with room for the variant (at least its columns,
            :attr:`VariantSpec.max_visible` slots per column and its stock in waste slots,
            and known-stock slots if it has redeals and the version shows them), such as
            the family's shared layout (:mod:`..envs.family`): then the state array has that
            layout's ``column_slots`` per column too, and the entries the variant does not
            fill (columns it lacks, slots past its own) are never written.

    Attributes:
        spec: the variant.
        codec: its :class:`~fortythieves_env.rules.actions.ActionCodec` (shared:
            :func:`~fortythieves_env.rules.actions.codec_for`).
        build_table: its rule table ``build_table[top][card]`` (``list`` of 53 lists of
            53 ``bool``; :func:`~fortythieves_env.rules.rule_table.accepts_table`), shared by
            the variants with the same build and empty-column rules; read only.
        layout: the :class:`ObservationLayout` the kernels write: the variant's own of
            ``observation_version``, or the ``layout`` given.
        table: ``int32`` array (header, accepts table, decode table); read by the kernels.
        state_size: length of a state array.

    Raises:
        ValueError: ``layout`` has no room for the variant (the message names the part).
    """

    def __init__(
        self,
        spec: VariantSpec,
        observation_version: int = LATEST_VERSION,
        layout: ObservationLayout | None = None,
    ) -> None:
        self.spec = spec
        codec = codec_for(spec)
        self.codec: ActionCodec = codec
        self.build_table, accepts = _rule_table(spec.build, spec.empty_column)
        own = ObservationLayout.for_variant(spec, observation_version)
        if layout is None:
            layout = own
        else:
            for part, need, room in (
                ("columns", own.n_columns, layout.n_columns),
                ("column slots", own.column_slots, layout.column_slots),
                ("waste slots", own.waste_slots, layout.waste_slots),
                ("known-stock slots", own.stock_slots, layout.stock_slots),
            ):
                if room < need:
                    raise ValueError(
                        f"the observation layout has {room} {part}, {spec.id} needs {need}"
                    )
        self.layout = layout
        c, v, s = spec.n_columns, layout.column_slots, spec.stock_size
        self.n_columns, self.slots, self.stock_slots = c, v, s
        self.len0 = c * v
        self.fd0 = self.len0 + c
        self.stock0 = self.fd0 + c
        self.waste0 = self.stock0 + s
        self.found0 = self.waste0 + s
        self.scal0 = self.found0 + 8
        self.state_size = self.scal0 + 4
        # the codec's decode table; the kernels' index arithmetic follows the same formula
        # (:mod:`.actions`), and the backend tests compare every mask with the engine's
        decode = np.array(codec.table, dtype=np.int32).reshape(-1)
        header = [0] * N_HEADER
        header[H_C], header[H_V], header[H_M] = c, v, spec.max_move
        header[H_NACT], header[H_DEAL], header[H_S] = codec.n_actions, spec.deal_count, s
        header[H_LEN], header[H_FD], header[H_STOCK] = self.len0, self.fd0, self.stock0
        header[H_WASTE], header[H_FOUND], header[H_SCAL] = self.waste0, self.found0, self.scal0
        header[H_OBS_WASTE] = layout.waste.start
        header[H_OBS_FOUND] = layout.foundations.start
        header[H_OBS_FD] = layout.face_down.start
        header[H_OBS_STOCK] = layout.stock
        # the known-stock slots only where the variant's own observation has them
        header[H_OBS_KNOWN] = layout.known_stock.start if own.stock_slots else -1
        header[H_REDEALS] = spec.redeals
        header[H_ACCEPTS] = N_HEADER
        header[H_DECODE] = N_HEADER + accepts.size
        header[H_TAKEN] = N_HEADER + accepts.size + decode.size
        # the build rule's table by column: bit h of card t's set when top h (1..52) takes t
        rows = accepts.reshape(53, 53)
        taken = np.zeros(N_TAKEN, dtype=np.int32)
        for card in range(53):
            bits = sum(1 << top for top in range(1, 53) if rows[top, card])
            taken[2 * card] = bits & ((1 << _TAKEN_SPLIT) - 1)
            taken[2 * card + 1] = bits >> _TAKEN_SPLIT
        self.table = np.concatenate([np.array(header, dtype=np.int32), accepts, decode, taken])
        assert self.table.size == table_size(codec.n_actions)
        self.table.flags.writeable = False

    def pack(self, state: GameState) -> np.ndarray:
        """Return ``state`` as a new state array (``int16``, shape ``(state_size,)``).

        Raises:
            ValueError: the state does not fit the variant's arrays (another number of
                columns, more cards in a column, the stock or the waste than their slots), or
                holds a card code outside 0..52 (0: a hidden card of a player's view), so
                that the compiled kernels never read outside their tables.
        """
        c, s = self.n_columns, self.stock_slots
        if len(state.tableau) != c or len(state.face_down) != c:
            raise ValueError(f"the state has {len(state.tableau)} columns, the variant {c}")
        if len(state.stock) > s or len(state.waste) > s:
            raise ValueError(f"the stock and the waste hold at most {s} cards each")
        st = np.zeros(self.state_size, dtype=np.int16)
        v = self.slots
        for i, col in enumerate(state.tableau):
            if len(col) > v:
                raise ValueError(f"column {i} holds {len(col)} cards, more than the {v} slots")
            st[i * v : i * v + len(col)] = col
        st[self.len0 : self.len0 + self.n_columns] = [len(col) for col in state.tableau]
        st[self.fd0 : self.fd0 + self.n_columns] = state.face_down
        st[self.stock0 : self.stock0 + len(state.stock)] = state.stock
        st[self.waste0 : self.waste0 + len(state.waste)] = state.waste
        st[self.found0 : self.found0 + 8] = state.foundations
        st[self.scal0 : self.scal0 + 4] = (
            len(state.stock),
            len(state.waste),
            state.redeals_left,
            state.foundation_cards,
        )
        cards = np.concatenate([st[: self.len0], st[self.stock0 : self.found0]])
        if cards.min() < 0 or cards.max() > 52:
            raise ValueError("card codes must be 0..52 (1..52 a card, 0 a hidden one)")
        return st

    def hidden_indices(self, face_down: Sequence[int], hidden_stock: int) -> np.ndarray:
        """The state-array indices of the cards a player cannot see, in the order
        :func:`~fortythieves_env.rules.view.determinize` fills them: the face-down cards of
        column 0 bottom to top, then column 1's, ..., then ``hidden_stock`` stock slots
        bottom to top (the whole stock while its order is unknown, else 0).

        So ``st[idx] = cards`` on ``pack(determinize(view, any))`` gives
        ``pack(determinize(view, cards))``: a search agent fills many samples at once.

        Returns:
            ``int64``, shape ``(sum(face_down) + hidden_stock,)``.

        Raises:
            ValueError: a count is negative or does not fit the columns or the stock.
        """
        if len(face_down) != self.n_columns or hidden_stock < 0 or min(face_down, default=0) < 0:
            raise ValueError("hidden_indices: need one face-down count >= 0 per column")
        if hidden_stock > self.stock_slots or max(face_down, default=0) > self.slots:
            raise ValueError("hidden_indices: more hidden cards than slots")
        v = self.slots
        parts = [np.arange(i * v, i * v + fd, dtype=np.int64) for i, fd in enumerate(face_down)]
        parts.append(np.arange(self.stock0, self.stock0 + hidden_stock, dtype=np.int64))
        return np.concatenate(parts)

    def unpack_into(self, st: np.ndarray, state: GameState) -> None:
        """Write state array ``st`` into ``state`` in place: every list keeps its identity
        (the columns too), so references held by callers see the new position."""
        v, c = self.slots, self.n_columns
        lengths = st[self.len0 : self.len0 + c].tolist()
        n_stock, n_waste, redeals, fcards = st[self.scal0 : self.scal0 + 4].tolist()
        for i, (col, n) in enumerate(zip(state.tableau, lengths, strict=True)):
            col[:] = st[i * v : i * v + n].tolist()
        state.face_down[:] = st[self.fd0 : self.fd0 + c].tolist()
        state.stock[:] = st[self.stock0 : self.stock0 + n_stock].tolist()
        state.waste[:] = st[self.waste0 : self.waste0 + n_waste].tolist()
        state.foundations[:] = st[self.found0 : self.found0 + 8].tolist()
        state.redeals_left = redeals
        state.foundation_cards = fcards

    def unpack(self, st: np.ndarray) -> GameState:
        """Return the :class:`GameState` of a state array (a new, independent object)."""
        v, c = self.slots, self.n_columns
        lengths = st[self.len0 : self.len0 + c].tolist()
        n_stock, n_waste, redeals, fcards = st[self.scal0 : self.scal0 + 4].tolist()
        return GameState(
            tableau=[st[i * v : i * v + n].tolist() for i, n in enumerate(lengths)],
            face_down=st[self.fd0 : self.fd0 + c].tolist(),
            stock=st[self.stock0 : self.stock0 + n_stock].tolist(),
            waste=st[self.waste0 : self.waste0 + n_waste].tolist(),
            foundations=st[self.found0 : self.found0 + 8].tolist(),
            redeals_left=redeals,
            foundation_cards=fcards,
        )


def tables_for(
    spec: VariantSpec,
    observation_version: int = LATEST_VERSION,
    layout: ObservationLayout | None = None,
) -> FastTables:
    """The (shared, read-only) :class:`FastTables` of ``spec`` (and observation version,
    and observation layout: see :class:`FastTables`), the same object however the arguments
    are passed. The last 512 are kept (see :func:`~fortythieves_env.rules.actions.codec_for`)."""
    return _tables(spec, observation_version, layout)


@lru_cache(maxsize=512)
def _tables(
    spec: VariantSpec, observation_version: int, layout: ObservationLayout | None
) -> FastTables:
    return FastTables(spec, observation_version, layout)
