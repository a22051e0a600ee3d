"""The ``player`` network on the family's shared encoding: one network for every rule set.

:class:`FamilyPlayerPolicy` is :class:`~fortythieves_agents.networks.policy.PlayerPolicy`
(the column encoder, the state encoder, the move scorer and the value head, with the same
weights for every column and every move) read from the shared observation of
:mod:`fortythieves_env.envs.family` (``Box(0, high, (501,), uint8)``) and scoring the shared
actions (``Discrete(2057)``, :data:`~fortythieves_env.envs.family.FAMILY_CODEC`). What the
per-variant network takes from its variant's spec it reads here from the observation's
rule-set part (:class:`~fortythieves_env.envs.family.FamilyLayout`, indices ``477 .. 500``):

- **the build rule** (one-hot at ``480 .. 482``) picks, per observation, which of the three
  build tables (same suit, alternate colour, any other suit) says whether a card lies on
  another: the length of the built run at each column's end, the bottom card of that run
  and the card under it, and "moves the whole run" of a move;
- **the columns it has** (``488 .. 500``): each column gets one more number, 1 if the rule
  set has it, and the state encoder pools the mean and the maximum of the column
  encodings over those columns only, so the 13 - ``n_columns`` columns a rule set lacks
  change nothing (they would otherwise read as empty columns, a resource);
- **the rest of the rules** (columns / 13, cards dealt down / 3 and up / 5, the build
  one-hot, sequence moves, Kings only, cards per draw / 3, redeals / 3, Aces out: 11
  numbers) go into the state encoder beside the 14 state numbers, whose scales are the
  family's bounds (face-down cards / 3, stock and waste / 97, redeals left / 3) and whose
  counts over columns (face-down cards left, empty columns, non-empty columns) are divided
  by the rule set's own number of columns.

Everything else (the card embedding and its 7 fixed numbers, the column inputs, the move
features) is the per-variant network's, on the shared layout's 13 columns of 20 slots and
the shared action table (every action decoded once: ``(kind, source, destination, cards)``
of :data:`~fortythieves_env.envs.family.FAMILY_CODEC`). A move the rule set lacks is never
legal, so it is never scored when the mask is given (as MaskablePPO and the agents give
it).

Swapping two columns that both exist permutes the logits of the moves that name them and
nothing else, as in the per-variant network; a column beyond the rule set's changes no
logit of a legal move (``tests/agents/networks/test_family_policy.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from fortythieves_env.envs.family import (
    FAMILY_BOUNDS,
    FAMILY_CODEC,
    FAMILY_LAYOUT,
    N_RULE_FEATURES,
    STOCK_SLOTS,
    rule_set,
)
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.variants import Build

from .policy import N_CODES, PlayerPolicy, _as_codes

__all__ = ["FAMILY_NETWORK_NAME", "FamilyPlayerPolicy", "family_policy_kwargs", "is_family_policy"]

FAMILY_NETWORK_NAME = "Family"
"""What a family network records as its ``variant`` (it has none: every rule set)."""

_P = FAMILY_LAYOUT.cards.size
"""The first index of the rule-set part of the shared observation (477)."""
_BUILDS = tuple(Build)
"""The build one-hot's order (``FamilyLayout.rule_features``)."""
N_RULE_INPUTS = 11
"""Rule numbers the state encoder reads (the rule-set part without the 13 column flags)."""


def _rule_scales() -> torch.Tensor:
    """Per entry of the rule part ``477 .. 487``: the factor that brings it to [0, 1]."""
    b = FAMILY_BOUNDS
    return torch.tensor(
        [
            1.0 / b.n_columns[1],
            1.0 / b.face_down[1],
            1.0 / b.face_up[1],
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0 / b.deal_count[1],
            1.0 / b.redeals[1],
            1.0,
        ]
    )


def is_family_policy(policy: Any) -> bool:
    """Whether ``policy`` reads the family's shared encoding."""
    return isinstance(policy, FamilyPlayerPolicy)


class FamilyPlayerPolicy(PlayerPolicy):
    """MaskablePPO policy on the family's shared encoding (module docstring).

    ``MaskablePPO(FamilyPlayerPolicy, env, policy_kwargs={...})`` on a
    :class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv` (or ``FortyThieves/Family-v0``);
    the keywords are :class:`~fortythieves_agents.networks.policy.PlayerPolicy`'s but
    ``variant``: the network serves every rule set of the family's bounds.

    Raises:
        ValueError: the spaces are not the shared ones (``Box`` of shape ``(501,)``,
            ``Discrete(2057)``), or a size is not positive.
    """

    column_extra = 1
    state_extra = N_RULE_INPUTS

    def __init__(
        self,
        observation_space: gym.spaces.Space,
        action_space: gym.spaces.Space,
        lr_schedule: Schedule,
        card_dim: int = 16,
        column_dim: int = 64,
        state_dim: int = 128,
        scorer_arch: Sequence[int] = (128,),
        value_arch: Sequence[int] = (128,),
        share_encoder: bool = False,
        activation_fn: type[nn.Module] = nn.ReLU,
        ortho_init: bool = True,
        optimizer_class: type[torch.optim.Optimizer] = torch.optim.Adam,
        optimizer_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(observation_space, gym.spaces.Box) or observation_space.shape != (
            FAMILY_LAYOUT.size,
        ):
            raise ValueError(
                f"FamilyPlayerPolicy: expected the family's Box observation space of shape "
                f"({FAMILY_LAYOUT.size},), got {observation_space}"
            )
        n = FAMILY_CODEC.n_actions
        if not isinstance(action_space, gym.spaces.Discrete) or int(action_space.n) != n:
            raise ValueError(
                f"FamilyPlayerPolicy: expected the family's Discrete({n}) actions, "
                f"got {action_space}"
            )
        sizes = {"card_dim": card_dim, "column_dim": column_dim, "state_dim": state_dim}
        sizes.update({f"scorer_arch[{k}]": s for k, s in enumerate(scorer_arch)})
        sizes.update({f"value_arch[{k}]": s for k, s in enumerate(value_arch)})
        for name, size in sizes.items():
            if int(size) <= 0:
                raise ValueError(
                    f"FamilyPlayerPolicy: {name} must be a positive integer, got {size}"
                )
        # a 13-column rule set with sequence moves decodes the shared actions
        # (FAMILY_CODEC); its other fields are not read (the scales are set below)
        envelope = rule_set(FAMILY_BOUNDS.n_columns[1], 0, 1, Build.SAME_SUIT, True)
        self.variant = FAMILY_NETWORK_NAME  # type: ignore[assignment]
        self.card_dim = int(card_dim)
        self.column_dim = int(column_dim)
        self.state_dim = int(state_dim)
        self.scorer_arch = [int(s) for s in scorer_arch]
        self.value_arch = [int(s) for s in value_arch]
        self.share_encoder = bool(share_encoder)
        self._spec = envelope
        self._layout = FAMILY_LAYOUT.cards
        self._rules = rules_for(envelope)
        MaskableActorCriticPolicy.__init__(
            self,
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

    def _register_tables(self) -> None:
        """The per-variant tables of a 13-column envelope (its action decoding is the shared
        one), then the family's own: the three build tables and the bounds' scales."""
        super()._register_tables()
        self.fd_scale = 1.0 / FAMILY_BOUNDS.face_down[1]
        self.stock_scale = 1.0 / STOCK_SLOTS
        self.redeals_scale = 1.0 / FAMILY_BOUNDS.redeals[1]
        tables = []
        for build in _BUILDS:
            accepts = torch.tensor(
                rules_for(rule_set(10, 0, 4, build, False)).build_table, dtype=torch.bool
            )
            accepts[0] = False
            tables.append(accepts.flatten())
        self.register_buffer("builds_on_by_rule", torch.stack(tables), persistent=False)
        self.register_buffer("rule_scales", _rule_scales(), persistent=False)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.pop("variant", None)
        for key in PLAYER_ONLY:  # the family's network has not these options
            data.pop(key, None)
        return data

    def _pool(
        self, h: torch.Tensor, raw: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The mean and the maximum of ``h`` over the columns the rule set has."""
        exists = raw["exists"].unsqueeze(-1)  # (B, C, 1)
        count = exists.sum(1).clamp(min=1.0)
        mean = (h * exists).sum(1) / count
        top = h.masked_fill(exists == 0, float("-inf")).amax(1)
        return mean, torch.nan_to_num(top, neginf=0.0)  # no column at all: 0

    def _read(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """What the network reads from shared observations ``(B, 501)``, before any weight
        (the per-variant :meth:`PlayerPolicy._read` with the rules read per row)."""
        x = _as_codes(obs)
        b, c, v = x.shape[0], self.n_columns, self.n_slots
        rules = x[:, _P : _P + N_RULE_FEATURES]
        build = rules[:, 3:6].argmax(-1)  # (B,) the build rule's index
        exists = (rules[:, 11:] > 0).float()  # (B, C)
        n_cols = exists.sum(-1).clamp(min=1.0)  # (B,)
        cols = x[:, self.col_idx]  # (B, C, V), bottom to top, then 0s
        length = (cols > 0).sum(-1)  # (B, C) face-up cards
        k = torch.arange(v, device=x.device)
        pos = (length.unsqueeze(-1) - 1 - k).clamp_(min=0)
        top_down = cols.gather(2, pos) * (k < length.unsqueeze(-1))  # (B, C, V), top first
        # run: the built run at the column's end, by the row's build rule
        pairs = top_down[..., 1:] * N_CODES + top_down[..., :-1]  # (B, C, V-1)
        ok = self.builds_on_by_rule[build.view(b, 1, 1), pairs]
        run = (1 + ok.long().cumprod(-1).sum(-1)) * (length > 0)
        top_down = torch.cat([top_down, top_down.new_zeros(b, c, 1)], dim=-1)  # (B, C, V+1)
        run_bottom = top_down.gather(2, (run - 1).clamp(min=0).unsqueeze(-1)).squeeze(-1)
        under_run = top_down.gather(2, run.unsqueeze(-1)).squeeze(-1)
        face_down = x[:, self.fd_idx]  # (B, C)
        found = x[:, self.found_idx]  # (B, 8)
        waste = x[:, self.waste_idx]
        waste_len = (waste > 0).sum(-1)  # (B,)
        wpos = torch.stack([waste_len - 1, waste_len - 2], dim=-1).clamp_(min=0)
        waste_two = waste.gather(1, wpos) * (self.one_two <= waste_len.unsqueeze(-1))
        lengthf, fdf = length.float(), face_down.float()
        column_scalars = torch.stack(
            [
                lengthf / v,
                fdf * self.fd_scale,
                run.float() / 13,
                (length == 0).float(),
                (face_down > 0).float(),
                self._fits_foundation(top_down[..., 0], found),
                exists,
            ],
            dim=-1,
        )
        empties = (length == 0) & (face_down == 0) & (exists > 0)
        state_scalars = torch.cat(
            [
                found.float() / 13,
                torch.stack(
                    [
                        waste_len.float() * self.waste_scale,
                        x[:, self.stock_index].float() * self.stock_scale,
                        x[:, self.redeals_index].float() * self.redeals_scale,
                        (fdf * exists).sum(-1) * self.fd_scale / n_cols,
                        empties.float().sum(-1) / n_cols,
                        ((length > 0).float() * exists).sum(-1) / n_cols,
                    ],
                    dim=-1,
                ),
                rules[:, :N_RULE_INPUTS].float() * self.rule_scales,
            ],
            dim=-1,
        )
        card_table = torch.cat([top_down.flatten(1), waste_two, waste_two.new_zeros(b, 1)], dim=1)
        return {
            "top_down": top_down,
            "run_bottom": run_bottom,
            "under_run": under_run,
            "column_scalars": column_scalars,
            "waste_top": waste_two[:, 0],
            "state_scalars": state_scalars,
            "card_table": card_table,  # (B, C*(V+1) + 3)
            "length": torch.cat([length, length.new_zeros(b, 1)], dim=1),  # (B, C+1)
            "face_down": torch.cat([face_down, face_down.new_zeros(b, 1)], dim=1),
            "run": torch.cat([run, run.new_zeros(b, 1)], dim=1),
            "found": found,
            "exists": exists,
        }


PLAYER_ONLY = ("unseen_inputs",)
"""``policy.player`` settings of the player network that the family's network has not (its
inputs are the shared encoding's): left out of its sizes (:func:`family_player_sizes`) and of
its saved constructor parameters; a family config refuses them set
(:class:`~fortythieves_agents.family.config.FamilyConfig`)."""


def family_player_sizes(player: dict[str, Any]) -> dict[str, Any]:
    """The family's network's settings among a config's ``policy.player`` ones (all but
    :data:`PLAYER_ONLY`)."""
    return {key: value for key, value in player.items() if key not in PLAYER_ONLY}


def family_policy_kwargs(player: dict[str, Any], activation: str) -> dict[str, Any]:
    """``policy_kwargs`` of :class:`FamilyPlayerPolicy` from a config's ``policy.player``
    sizes and ``policy.activation`` (``relu`` or ``tanh``)."""
    act = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]
    return {**family_player_sizes(player), "activation_fn": act}
