"""A policy that sees the game as a player does: columns by their top cards, moves by their effect.

:class:`PlayerPolicy` is a ``MaskableActorCriticPolicy`` for ``sb3_contrib.MaskablePPO``
(``policy.network: player`` in a config). It reads only the observation vector, through the
named slices of :class:`fortythieves_env.rules.observation.ObservationLayout`, plus tables built
once from the variant's :class:`fortythieves_env.rules.engine.Rules` (``n_actions``, ``decode``,
the build rule). Every weight is shared: one encoder for all columns, one scorer for all
moves, in the manner of DouZero and DRRN, which score each action from its own features.

For a batch of ``B`` observations of a variant with ``C`` columns, ``V`` face-up slots per
column and ``A`` actions:

1. **Cards.** A card code ``c`` (0 = none) is ``concat(E[c], fixed[c])``: a learnt
   embedding ``E`` (``card_dim``) and 7 fixed numbers (rank / 12, suit one-hot, red, is a
   card).
2. **Columns**, ``h`` of shape ``(B, C, column_dim)``. Each column's face-up cards are read
   *from the top down* (``t[0]`` = top card, ``t[k]`` = the card ``k`` below it, 0 past the
   bottom), so the top card always sits at the same input whatever the column's length.
   Inputs: the cards ``t[0..V-1]``, the bottom card of the built run at the end and the card
   under it, and the numbers: face-up length / V, face-down count / most dealt, run length /
   13, empty, has face-down cards, top card playable to a foundation. Two dense layers with
   the same weights for every column.
3. **State**, ``g`` of shape ``(B, state_dim)``: two dense layers over the mean and the
   maximum of ``h`` over the columns (so column order does not matter), the waste's top card,
   the 8 foundation heights / 13, waste size / W, stock size, redeals left, face-down cards
   left and empty columns (scaled to [0, 1]); with ``unseen_inputs=True`` also, per card,
   its copies unseen and its copies in the waste, and those two of each foundation's next
   card (:data:`N_UNSEEN_INPUTS` numbers, counts / 2).
4. **Moves.** Action ``a`` decodes (``Rules.decode``) to ``(kind, src, dst, n)``. Its features:
   the kind (one-hot of 6), ``n`` / 13, the card moved (waste top, or column ``src``'s card
   ``t[n-1]``), the card it uncovers (the waste's next card, or ``t[n]``), the card it lands on
   (column ``dst``'s top; none for a foundation, draw or redeal), and the numbers: empties a
   column, turns up a face-down card, lands in an empty column, moves the whole run, the
   uncovered card is playable to a foundation, face-down cards under the source / most,
   face-up cards left in the source / V, face-up cards in the destination / V; then ``h`` of
   the source and destination columns (zeros for the waste, a foundation or none) and ``g``.
   One MLP (``scorer_arch``, then one output) maps them to the move's logit.
5. **Value**: an MLP (``value_arch``, then one output) over the state encoding ``g`` of a
   second card embedding, column encoder and state encoder of the same shapes, the critic's
   own (``share_encoder=False``, the default), or over the actor's ``g``.

Swapping two columns in the observation therefore permutes the logits of the moves that
name them, and nothing else (``tests/agents/networks/test_policy.py`` checks it).

Which moves are scored: with an action mask (as MaskablePPO passes in every rollout and
update), only the legal ones, gathered with ``mask.nonzero()``; the others get logit 0 and
are masked by MaskablePPO's distribution, as with the stock policy. Without a mask, all
``B * A`` moves are scored (1193 per observation in sequence variants). The per-move index
tables are built once; ``forward`` has no Python loop over samples, columns or moves.

:func:`policy_logits` gives the ``(B, A)`` logits of either network (this one or SB3's stock
policy with :class:`fortythieves_agents.networks.features.CardSlotsExtractor`);
:class:`fortythieves_agents.evaluation.evaluate.ModelAgent`
plays through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import pairwise
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from fortythieves_env.rules.cards import RANK, RED, SUIT
from fortythieves_env.rules.engine import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    rules_for,
)
from fortythieves_env.rules.observation import OBSERVATION_VERSIONS, ObservationLayout
from fortythieves_env.rules.variants import VariantSpec, get_variant

__all__ = ["N_KINDS", "PlayerPolicy", "policy_logits"]

N_CODES = 53
"""Card codes 0..52 (0 = no card)."""
N_KINDS = 6
"""Kinds of move, as in :func:`fortythieves_env.rules.engine.Rules.decode`."""
N_FIXED = 7
"""Fixed numbers per card: rank / 12, suit one-hot (4), red, is a card."""
N_COLUMN_SCALARS = 6
N_MOVE_SCALARS = 10
N_UNSEEN_INPUTS = 52 + 52 + 16
"""State numbers added by ``unseen_inputs=True``: per card, its copies unseen and in the
waste (52 + 52); per foundation, its next card's copies unseen and in the waste (8 + 8)."""


def _mlp(sizes: Sequence[int], activation: type[nn.Module]) -> nn.Sequential:
    """Dense layers ``sizes[0] -> sizes[1] -> ...``, each followed by ``activation``."""
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), activation()]
    return nn.Sequential(*layers)


class _Encoder(nn.Module):
    """Card embedding, column encoder and state encoder: one set for the actor, one for the
    critic unless they share it."""

    def __init__(
        self,
        card_dim: int,
        column_in: int,
        column_dim: int,
        state_extra: int,
        state_dim: int,
        activation: type[nn.Module],
    ) -> None:
        super().__init__()
        self.card_embedding = nn.Embedding(N_CODES, card_dim)
        self.column_encoder = _mlp([column_in, column_dim, column_dim], activation)
        self.state_encoder = _mlp([2 * column_dim + state_extra, state_dim], activation)


def _as_codes(obs: torch.Tensor) -> torch.Tensor:
    """The observation as ``int64`` (SB3 passes ``uint8`` in rollouts, ``float32`` in updates)."""
    return (obs.round() if obs.is_floating_point() else obs).long()


class PlayerPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy with a shared column encoder and a shared move scorer.

    See the module docstring for the network. ``MaskablePPO("...", policy=PlayerPolicy,
    policy_kwargs={"variant": "Streets", ...})``; saved and loaded by ``MaskablePPO.save`` /
    ``load`` like the stock policy (the constructor keywords are plain values).

    Args:
        observation_space: the variant's ``Box`` observation space.
        action_space: the variant's ``Discrete(n_actions)``.
        lr_schedule: SB3's learning-rate schedule.
        variant: the variant id (or a :class:`~fortythieves_env.VariantSpec`): it fixes the
            observation layout and the move tables.
        card_dim: width of the learnt card embedding.
        column_dim: width of a column's encoding.
        state_dim: width of the state encoding.
        scorer_arch: hidden layer sizes of the move scorer.
        value_arch: hidden layer sizes of the value head.
        unseen_inputs: the state encoder also reads, per card, how many of its two copies are
            unseen (in the stock or face down: not in a column's face-up cards, the waste,
            the known stock or a foundation) and how many lie anywhere in the waste, and, per
            foundation, the same two counts of the card it takes next (the
            :data:`N_UNSEEN_INPUTS` numbers, each count / 2). Without them the network sees
            the waste's top two cards and its size only. They follow from the observation
            alone (as :attr:`fortythieves_env.rules.view.PlayerView.unseen` does).
        share_encoder: the critic uses the actor's card embedding, column encoder and state
            encoder (False: it has its own, so the value loss, whose gradients are about a
            hundred times the policy loss's at the start, does not drown the policy's signal
            in the shared layers or in the gradient clipping).
        activation_fn: activation class (``nn.ReLU`` or ``nn.Tanh``).
        ortho_init: orthogonal initialisation (gain sqrt(2) for hidden layers, 1 for the
            value output, and 1, not SB3's 0.01, for the move scorer's output: every move's
            logit passes through that one unit, and at 0.01 the gradients reaching the
            scorer and the encoder fell below Adam's epsilon after the gradient clipping, so
            the network barely learnt in 20k steps; at 1 the first logits have a spread of
            about 0.4).
        optimizer_class, optimizer_kwargs: as for ``MaskableActorCriticPolicy``.
        **kwargs: further ``MaskableActorCriticPolicy`` keywords (``net_arch`` and the
            features extractor are not used by this network).

    Raises:
        ValueError: the spaces do not match ``variant``'s observation size or action count,
            or a size is not positive.
    """

    column_extra = 0
    """Numbers a subclass adds to each column's input (after the 6 of the module docstring)."""
    state_extra = 0
    """Numbers a subclass adds to the state encoder's input (after the 14 state numbers)."""
    unseen_inputs = False
    """Whether the state encoder reads the unseen and waste counts (a constructor keyword)."""

    def __init__(
        self,
        observation_space: gym.spaces.Space,
        action_space: gym.spaces.Space,
        lr_schedule: Schedule,
        variant: str | VariantSpec = "FortyThieves",
        card_dim: int = 16,
        column_dim: int = 64,
        state_dim: int = 128,
        scorer_arch: Sequence[int] = (128,),
        value_arch: Sequence[int] = (128,),
        share_encoder: bool = False,
        unseen_inputs: bool = False,
        activation_fn: type[nn.Module] = nn.ReLU,
        ortho_init: bool = True,
        optimizer_class: type[torch.optim.Optimizer] = torch.optim.Adam,
        optimizer_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        spec = get_variant(variant)
        rules = rules_for(spec)
        try:  # any observation version (v1 adds the known stock, which is not read here)
            if not isinstance(observation_space, gym.spaces.Box):
                raise ValueError
            layout = ObservationLayout.for_size(spec, int(np.prod(observation_space.shape)))
            if observation_space.shape != (layout.size,):
                raise ValueError
        except ValueError:
            sizes = " or ".join(
                f"({n},)"
                for n in sorted(
                    {ObservationLayout.for_variant(spec, v).size for v in OBSERVATION_VERSIONS}
                )
            )
            raise ValueError(
                f"PlayerPolicy for {spec.id}: expected a Box observation space of shape "
                f"{sizes}, got {observation_space}"
            ) from None
        if not isinstance(action_space, gym.spaces.Discrete) or int(action_space.n) != (
            rules.n_actions
        ):
            raise ValueError(
                f"PlayerPolicy for {spec.id}: expected Discrete({rules.n_actions}) actions, "
                f"got {action_space}"
            )
        sizes = {"card_dim": card_dim, "column_dim": column_dim, "state_dim": state_dim}
        sizes.update({f"scorer_arch[{k}]": s for k, s in enumerate(scorer_arch)})
        sizes.update({f"value_arch[{k}]": s for k, s in enumerate(value_arch)})
        for name, size in sizes.items():
            if int(size) <= 0:
                raise ValueError(f"PlayerPolicy: {name} must be a positive integer, got {size}")
        # Set before super().__init__, which calls self._build.
        self.variant = variant if isinstance(variant, str) else spec
        self.card_dim = int(card_dim)
        self.column_dim = int(column_dim)
        self.state_dim = int(state_dim)
        self.scorer_arch = [int(s) for s in scorer_arch]
        self.value_arch = [int(s) for s in value_arch]
        self.share_encoder = bool(share_encoder)
        self.unseen_inputs = bool(unseen_inputs)
        self._spec = spec
        self._layout = layout
        self._rules = rules
        super().__init__(
            observation_space,
            action_space,
            lr_schedule,
            net_arch=[],
            activation_fn=activation_fn,
            ortho_init=ortho_init,
            optimizer_class=optimizer_class,
            optimizer_kwargs=optimizer_kwargs,
            **kwargs,
        )

    # ------------------------------------------------------------------ building
    def _register_tables(self) -> None:
        """Index tables and constants, built once from the layout and the rules."""
        spec, layout, rules = self._spec, self._layout, self._rules
        c, v = layout.n_columns, layout.column_slots
        self.n_columns, self.n_slots = c, v
        self.n_actions = rules.n_actions
        col_idx = torch.stack(
            [torch.arange(layout.column(i).start, layout.column(i).stop) for i in range(c)]
        )
        waste = layout.waste
        self.register_buffer("col_idx", col_idx, persistent=False)  # (C, V)
        self.register_buffer(
            "waste_idx", torch.arange(waste.start, waste.stop), persistent=False
        )  # (W,)
        found = layout.foundations
        self.register_buffer(
            "found_idx", torch.arange(found.start, found.stop), persistent=False
        )  # (8,)
        fd = layout.face_down
        self.register_buffer("fd_idx", torch.arange(fd.start, fd.stop), persistent=False)  # (C,)
        self.stock_index, self.redeals_index = layout.stock, layout.redeals_left
        self.fd_scale = 1.0 / max(spec.face_down, 1)
        self.stock_scale = 1.0 / max(spec.stock_size, 1)
        self.redeals_scale = 1.0 / max(spec.redeals, 1)
        self.waste_scale = 1.0 / max(layout.waste_slots, 1)

        # builds_on[under, card]: card lies on ``under`` by the build rule (no empty column).
        accepts = torch.tensor(rules.build_table, dtype=torch.bool)
        accepts[0] = False
        self.register_buffer("builds_on", accepts.flatten(), persistent=False)  # (53*53,)
        fixed = torch.zeros(N_CODES, N_FIXED)
        suit2 = torch.zeros(N_CODES, dtype=torch.long)
        rank = torch.full((N_CODES,), 99, dtype=torch.long)  # code 0 fits no foundation
        for code in range(1, N_CODES):
            fixed[code, 0] = RANK[code] / 12
            fixed[code, 1 + SUIT[code]] = 1.0
            fixed[code, 5] = float(RED[code])
            fixed[code, 6] = 1.0
            suit2[code] = 2 * SUIT[code]
            rank[code] = RANK[code]
        self.register_buffer("card_fixed", fixed, persistent=False)
        self.register_buffer("card_suit2", suit2, persistent=False)
        self.register_buffer("card_rank", rank, persistent=False)
        self.n_card_slots = layout.n_card_slots
        # the 8 foundations' suits, as the code of the suit's ace minus 1 (0, 13, 26, 39)
        self.register_buffer(
            "found_suit13", torch.arange(8, dtype=torch.long) // 2 * 13, persistent=False
        )

        # Per-action tables. A state's card table is the top-down face-up cards of every
        # column (V + 1 slots each, the last always 0) then the waste top, the waste's next
        # card, and "no card".
        stride = v + 1
        waste_top, waste_next, none = c * stride, c * stride + 1, c * stride + 2
        kind = torch.zeros(self.n_actions, dtype=torch.long)
        src = torch.full((self.n_actions,), c, dtype=torch.long)  # c: no column
        dst = torch.full((self.n_actions,), c, dtype=torch.long)
        count = torch.zeros(self.n_actions, dtype=torch.long)
        moved = torch.full((self.n_actions,), none, dtype=torch.long)
        uncovered = torch.full((self.n_actions,), none, dtype=torch.long)
        lands_on = torch.full((self.n_actions,), none, dtype=torch.long)
        for a in range(self.n_actions):
            k, i, j, n = rules.decode(a)
            kind[a], count[a] = k, n
            if k in (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN):
                moved[a], uncovered[a] = waste_top, waste_next
            elif k in (COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN):
                src[a] = i
                moved[a] = i * stride + n - 1
                uncovered[a] = i * stride + min(n, v)
            if k in (WASTE_TO_COLUMN, COLUMN_TO_COLUMN):
                dst[a] = j
                lands_on[a] = j * stride
        for name, table in (
            ("act_kind", kind),
            ("act_src", src),
            ("act_dst", dst),
            ("act_count", count),
            ("act_moved", moved),
            ("act_uncovered", uncovered),
            ("act_lands_on", lands_on),
        ):
            self.register_buffer(name, table, persistent=False)
        self.register_buffer("kind_eye", torch.eye(N_KINDS), persistent=False)
        self.register_buffer("one_two", torch.tensor([1, 2]), persistent=False)

    def _build(self, lr_schedule: Schedule) -> None:
        """Create the network and the optimizer (called by ``MaskableActorCriticPolicy``)."""
        self._register_tables()
        act = self.activation_fn
        card = self.card_dim + N_FIXED
        v = self.n_slots
        column_in = (v + 2) * card + N_COLUMN_SCALARS + self.column_extra
        state_in = card + 14 + self.state_extra + N_UNSEEN_INPUTS * self.unseen_inputs
        self.actor_encoder = _Encoder(
            self.card_dim, column_in, self.column_dim, state_in, self.state_dim, act
        )
        self.critic_encoder = (
            None
            if self.share_encoder
            else _Encoder(self.card_dim, column_in, self.column_dim, state_in, self.state_dim, act)
        )
        move_in = N_KINDS + 1 + 3 * card + N_MOVE_SCALARS + 2 * self.column_dim + self.state_dim
        self.move_scorer = _mlp([move_in, *self.scorer_arch], act)
        self.move_out = nn.Linear(self.scorer_arch[-1] if self.scorer_arch else move_in, 1)
        self.value_body = _mlp([self.state_dim, *self.value_arch], act)
        self.value_out = nn.Linear(self.value_arch[-1] if self.value_arch else self.state_dim, 1)
        if self.ortho_init:
            gains = {
                self.actor_encoder: np.sqrt(2),
                self.move_scorer: np.sqrt(2),
                self.value_body: np.sqrt(2),
                self.move_out: 1.0,
                self.value_out: 1.0,
            }
            if self.critic_encoder is not None:
                gains[self.critic_encoder] = np.sqrt(2)
            for module, gain in gains.items():
                module.apply(partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]
            **self.optimizer_kwargs,
        )

    def load_without_unseen(self, state_dict: dict[str, torch.Tensor]) -> None:
        """Set the weights of a network like this one but without ``unseen_inputs``: every
        tensor copied, the state encoders' first layer widened by the
        :data:`N_UNSEEN_INPUTS` columns of the new inputs, set to 0, so the network plays
        exactly as the narrow one did until it is trained (the optimizer starts afresh).

        Args:
            state_dict: the narrow network's ``state_dict()`` (SB3's ``params["policy"]``).

        Raises:
            ValueError: this network has no ``unseen_inputs``, or the weights are not those
                of the same network without them (the first differing key named).
        """
        if not self.unseen_inputs:
            raise ValueError("load_without_unseen: this network has no unseen_inputs")
        own = self.state_dict()
        n = N_UNSEEN_INPUTS
        fitted: dict[str, torch.Tensor] = {}
        for key, tensor in own.items():
            old = state_dict.get(key)
            wide = key.endswith("encoder.state_encoder.0.weight")  # (out, in): n columns more
            narrow = (tensor.shape[0], tensor.shape[1] - n) if wide else tuple(tensor.shape)
            if old is None or tuple(old.shape) != narrow:
                got = "missing" if old is None else tuple(old.shape)
                raise ValueError(
                    f"load_without_unseen: {key} is {got}, expected {narrow} (this network's "
                    "less the unseen inputs): not this network without them"
                )
            fitted[key] = torch.cat([old, old.new_zeros(old.shape[0], n)], dim=1) if wide else old
        extra = sorted(set(state_dict) - set(own))
        if extra:
            raise ValueError(f"load_without_unseen: {extra[0]} is not in this network")
        self.load_state_dict(fitted)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        for key in ("net_arch", "features_extractor_class", "features_extractor_kwargs"):
            data.pop(key, None)
        data.update(
            variant=self.variant,
            card_dim=self.card_dim,
            column_dim=self.column_dim,
            state_dim=self.state_dim,
            scorer_arch=self.scorer_arch,
            value_arch=self.value_arch,
            share_encoder=self.share_encoder,
            unseen_inputs=self.unseen_inputs,
        )
        return data

    # ------------------------------------------------------------------ encoding
    def _card_table(self, encoder: _Encoder) -> torch.Tensor:
        """``(53, card_dim + 7)``: every card code's features (indexed by code)."""
        return torch.cat([encoder.card_embedding.weight, self.card_fixed], dim=-1)

    def _fits_foundation(
        self, codes: torch.Tensor, found: torch.Tensor, rows: torch.Tensor | None = None
    ) -> torch.Tensor:
        """1.0 where card ``codes`` would go onto a foundation (``found``: heights, (B, 8))."""
        s2, rank = self.card_suit2[codes], self.card_rank[codes]
        if rows is None:
            rows = torch.arange(found.shape[0], device=found.device).view(
                -1, *([1] * (codes.dim() - 1))
            )
            rows = rows.expand_as(codes)
        fits = (found[rows, s2] == rank) | (found[rows, s2 + 1] == rank)
        return fits.float()

    def _columns_present(self, x: torch.Tensor) -> torch.Tensor | None:
        """``(B, C)`` float, 1 for the columns the position's rule set has, from the
        observation's codes ``x``; None: every column (the variant's network). The family's
        network reads it from its rule-set part; the column inputs then gain it as a 7th
        number and the counts over columns count those columns only."""
        del x
        return None

    def _lies_on(self, x: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """Whether each card lies on the one under it by the build rule: ``pairs`` holds
        ``under * 53 + card`` codes ``(B, ...)``; ``x``: the observation's codes (the
        family's network reads the build rule per row from it)."""
        del x
        return self.builds_on[pairs]

    def _state_inputs(
        self, x: torch.Tensor, waste: torch.Tensor, found: torch.Tensor
    ) -> list[torch.Tensor]:
        """The state encoder's inputs after the 14 state numbers: the unseen counts when
        ``unseen_inputs`` (:meth:`_unseen_counts`); the family's network: its rule numbers."""
        return [self._unseen_counts(x, waste, found)] if self.unseen_inputs else []

    def _read(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """What the network reads from observations ``(B, size)``, before any weight (with
        :meth:`_columns_present`, :meth:`_lies_on` and :meth:`_state_inputs` as a subclass
        sets them)."""
        x = _as_codes(obs)
        b, c, v = x.shape[0], self.n_columns, self.n_slots
        exists = self._columns_present(x)
        cols = x[:, self.col_idx]  # (B, C, V), bottom to top, then 0s
        length = (cols > 0).sum(-1)  # (B, C) face-up cards
        k = torch.arange(v, device=x.device)
        pos = (length.unsqueeze(-1) - 1 - k).clamp_(min=0)
        top_down = cols.gather(2, pos) * (k < length.unsqueeze(-1))  # (B, C, V), top first
        # run: the built run at the column's end (0 for an empty column)
        ok = self._lies_on(x, top_down[..., 1:] * N_CODES + top_down[..., :-1])  # (B, C, V-1)
        run = (1 + ok.long().cumprod(-1).sum(-1)) * (length > 0)
        top_down = torch.cat([top_down, top_down.new_zeros(b, c, 1)], dim=-1)  # (B, C, V+1)
        run_bottom = top_down.gather(2, (run - 1).clamp(min=0).unsqueeze(-1)).squeeze(-1)
        under_run = top_down.gather(2, run.unsqueeze(-1)).squeeze(-1)
        face_down = x[:, self.fd_idx]  # (B, C)
        found = x[:, self.found_idx]  # (B, 8)
        waste = x[:, self.waste_idx]
        if waste.shape[1] == 0:  # a variant without a stock has no waste: an empty one
            waste = waste.new_zeros(b, 1)
        waste_len = (waste > 0).sum(-1)  # (B,)
        wpos = torch.stack([waste_len - 1, waste_len - 2], dim=-1).clamp_(min=0)
        # (B, 2): the waste's top card and the one under it (0 if none)
        waste_two = waste.gather(1, wpos) * (self.one_two <= waste_len.unsqueeze(-1))
        lengthf, fdf = length.float(), face_down.float()
        columns = [
            lengthf / v,
            fdf * self.fd_scale,
            run.float() / 13,
            (length == 0).float(),
            (face_down > 0).float(),
            self._fits_foundation(top_down[..., 0], found),
        ]
        empties = (length == 0) & (face_down == 0)
        nonempty = (length > 0).float()
        if exists is None:  # every column: sums over all C of them
            n_cols: torch.Tensor | int = c
            fd_sum, n_empty, n_nonempty = fdf.sum(-1), empties.float().sum(-1), nonempty.sum(-1)
        else:  # the rule set's columns only
            columns.append(exists)
            n_cols = exists.sum(-1).clamp(min=1.0)  # (B,)
            fd_sum = (fdf * exists).sum(-1)
            n_empty = (empties & (exists > 0)).float().sum(-1)
            n_nonempty = (nonempty * exists).sum(-1)
        state_scalars = torch.cat(
            [
                found.float() / 13,
                torch.stack(
                    [
                        waste_len.float() * self.waste_scale,
                        x[:, self.stock_index].float() * self.stock_scale,
                        x[:, self.redeals_index].float() * self.redeals_scale,
                        fd_sum * self.fd_scale / n_cols,
                        n_empty / n_cols,
                        n_nonempty / n_cols,
                    ],
                    dim=-1,
                ),
                *self._state_inputs(x, waste, found),
            ],
            dim=-1,
        )
        card_table = torch.cat([top_down.flatten(1), waste_two, waste_two.new_zeros(b, 1)], dim=1)
        raw = {
            "top_down": top_down,
            "run_bottom": run_bottom,
            "under_run": under_run,
            "column_scalars": torch.stack(columns, dim=-1),
            "waste_top": waste_two[:, 0],
            "state_scalars": state_scalars,
            "card_table": card_table,  # (B, C*(V+1) + 3)
            "length": torch.cat([length, length.new_zeros(b, 1)], dim=1),  # (B, C+1)
            "face_down": torch.cat([face_down, face_down.new_zeros(b, 1)], dim=1),
            "run": torch.cat([run, run.new_zeros(b, 1)], dim=1),
            "found": found,
        }
        if exists is not None:
            raw["exists"] = exists
        return raw

    def _unseen_counts(
        self, x: torch.Tensor, waste: torch.Tensor, found: torch.Tensor
    ) -> torch.Tensor:
        """The :data:`N_UNSEEN_INPUTS` numbers of ``unseen_inputs`` (``(B, 120)`` float): per
        card code 1..52 its unseen copies / 2, then its copies in the waste / 2, then per
        foundation the same two of its next card (0 for a finished foundation). ``x``: the
        observation's codes ``(B, size)``; ``waste`` ``(B, W)``; ``found`` heights ``(B, 8)``."""
        b = x.shape[0]
        ones = torch.ones_like(x[:, : self.n_card_slots])
        seen = x.new_zeros(b, N_CODES).scatter_add_(1, x[:, : self.n_card_slots], ones)
        in_waste = x.new_zeros(b, N_CODES).scatter_add_(1, waste, torch.ones_like(waste))
        rank, suit2 = self.card_rank[1:], self.card_suit2[1:]  # (52,)
        on_found = (found[:, suit2] > rank).long() + (found[:, suit2 + 1] > rank).long()
        unseen = (2 - seen[:, 1:] - on_found).clamp_(min=0)  # (B, 52)
        in_waste = in_waste[:, 1:]
        nxt = self.found_suit13 + found.clamp(max=12)  # (B, 8): index of the next card
        open_ = (found < 13).long()
        return (
            torch.cat(
                [unseen, in_waste, unseen.gather(1, nxt) * open_, in_waste.gather(1, nxt) * open_],
                dim=-1,
            ).float()
            / 2
        )

    def _embed(
        self, encoder: _Encoder, raw: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Column encodings ``(B, C+1, D)`` (row C: zeros, "no column"), state encodings
        ``(B, G)`` and the card table ``(53, card_dim + 7)`` of one encoder."""
        cards = self._card_table(encoder)
        column_in = torch.cat(
            [
                cards[raw["top_down"][..., : self.n_slots]].flatten(2),
                cards[raw["run_bottom"]],
                cards[raw["under_run"]],
                raw["column_scalars"],
            ],
            dim=-1,
        )
        h = encoder.column_encoder(column_in)  # (B, C, D)
        state_in = torch.cat(
            [*self._pool(h, raw), cards[raw["waste_top"]], raw["state_scalars"]], dim=-1
        )
        g = encoder.state_encoder(state_in)  # (B, G)
        return torch.cat([h, h.new_zeros(h.shape[0], 1, h.shape[2])], dim=1), g, cards

    def _pool(
        self, h: torch.Tensor, raw: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The mean and the maximum of the column encodings ``h`` ``(B, C, D)`` over the
        columns (a subclass may leave columns out: the family's network, for the columns a
        rule set does not have)."""
        del raw
        return h.mean(1), h.amax(1)

    def _encode(
        self, obs: torch.Tensor, actor: bool = True, critic: bool = True
    ) -> dict[str, torch.Tensor]:
        """The read observation plus the actor's ``h``, ``g``, ``cards`` and the critic's
        ``g_critic`` (as asked)."""
        enc = self._read(obs)
        if actor or (critic and self.critic_encoder is None):
            enc["h"], enc["g"], enc["cards"] = self._embed(self.actor_encoder, enc)
        if critic:
            if self.critic_encoder is None:
                enc["g_critic"] = enc["g"]
            else:
                enc["g_critic"] = self._embed(self.critic_encoder, enc)[1]
        return enc

    def _score(
        self, enc: dict[str, torch.Tensor], rows: torch.Tensor, acts: torch.Tensor
    ) -> torch.Tensor:
        """Logits ``(K,)`` of actions ``acts`` in states ``rows`` (both ``(K,)``)."""
        src, dst, n = self.act_src[acts], self.act_dst[acts], self.act_count[acts]
        table, cards = enc["card_table"], enc["cards"]
        moved = table[rows, self.act_moved[acts]]
        uncovered = table[rows, self.act_uncovered[acts]]
        lands_on = table[rows, self.act_lands_on[acts]]
        src_len, src_fd = enc["length"][rows, src], enc["face_down"][rows, src]
        dst_len = enc["length"][rows, dst]
        is_tableau_src = src < self.n_columns
        leaves = is_tableau_src & (n == src_len)
        v = self.n_slots
        scalars = torch.stack(
            [
                (leaves & (src_fd == 0)).float(),  # empties a column
                (leaves & (src_fd > 0)).float(),  # turns up a face-down card
                ((dst < self.n_columns) & (dst_len == 0)).float(),  # lands in an empty column
                (is_tableau_src & (n == enc["run"][rows, src])).float(),  # the whole run
                self._fits_foundation(uncovered, enc["found"], rows),
                src_fd.float() * self.fd_scale,
                (src_len - n).clamp(min=0).float() * is_tableau_src / v,
                dst_len.float() / v,
                (src_len == 0).float() * is_tableau_src,
                n.float() / 13,
            ],
            dim=-1,
        )
        features = torch.cat(
            [
                self.kind_eye[self.act_kind[acts]],
                (n > 1).float().unsqueeze(-1),
                cards[moved],
                cards[uncovered],
                cards[lands_on],
                scalars,
                enc["h"][rows, src],
                enc["h"][rows, dst],
                enc["g"][rows],
            ],
            dim=-1,
        )
        return self.move_out(self.move_scorer(features)).squeeze(-1)

    def _logits(self, enc: dict[str, torch.Tensor], action_masks: Any = None) -> torch.Tensor:
        """``(B, A)`` logits: legal moves scored, the rest 0 (masked by the distribution)."""
        b, a = enc["g"].shape[0], self.n_actions
        device = enc["g"].device
        if action_masks is None:
            rows = torch.arange(b, device=device).repeat_interleave(a)
            acts = torch.arange(a, device=device).repeat(b)
        else:
            mask = torch.as_tensor(action_masks, device=device).reshape(b, a).bool()
            rows, acts = mask.nonzero(as_tuple=True)
        scores = self._score(enc, rows, acts)
        flat = scores.new_zeros(b * a).index_copy(0, rows * a + acts, scores)
        return flat.view(b, a)

    def _value(self, enc: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.value_out(self.value_body(enc["g_critic"]))

    # ------------------------------------------------------------------ SB3 interface
    def action_logits(self, obs: torch.Tensor, action_masks: Any = None) -> torch.Tensor:
        """``(B, A)`` move logits for observations ``(B, size)``, before masking.

        With ``action_masks`` (``(B, A)``, anything ``torch.as_tensor`` takes) only the legal
        moves are scored and the others are 0; without, every move is scored.
        """
        return self._logits(self._encode(obs, critic=False), action_masks)

    def _distribution(self, logits: torch.Tensor, action_masks: Any) -> MaskableDistribution:
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def forward(
        self,
        obs: torch.Tensor,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Actions ``(B,)``, values ``(B, 1)`` and log-probabilities ``(B,)``."""
        enc = self._encode(obs)
        distribution = self._distribution(self._logits(enc, action_masks), action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), self._value(enc), log_prob  # type: ignore[misc]

    def evaluate_actions(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        action_masks: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Values ``(B, 1)``, log-probabilities ``(B,)`` of ``actions`` and entropies ``(B,)``."""
        enc = self._encode(obs)
        distribution = self._distribution(self._logits(enc, action_masks), action_masks)
        return self._value(enc), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(
        self, obs: Any, action_masks: np.ndarray | None = None
    ) -> MaskableDistribution:
        """The masked move distribution for observations ``(B, size)``."""
        return self._distribution(self.action_logits(obs, action_masks), action_masks)

    def predict_values(self, obs: Any) -> torch.Tensor:
        """State values ``(B, 1)``."""
        return self._value(self._encode(obs, actor=False))


def policy_logits(policy: Any, obs: torch.Tensor, action_masks: Any = None) -> torch.Tensor:
    """``(B, A)`` move logits of a MaskablePPO policy for observations ``(B, size)``, unmasked.

    Works for :class:`PlayerPolicy` (which scores only the legal moves when given
    ``action_masks``; the rest are then 0) and for SB3's stock ``MaskableActorCriticPolicy``
    (features extractor, actor MLP, ``action_net``; the mask is not needed). Either way the
    caller masks the illegal moves.
    """
    if isinstance(policy, PlayerPolicy):
        return policy.action_logits(obs, action_masks)
    features = policy.extract_features(obs, policy.pi_features_extractor)
    if isinstance(features, tuple):  # separate actor and critic extractors
        features = features[0]
    return policy.action_net(policy.mlp_extractor.forward_actor(features))
