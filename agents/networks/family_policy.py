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

from .policy import PlayerPolicy

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

    def _rule_part(self, x: torch.Tensor) -> torch.Tensor:
        """The rule-set part of shared observations' codes ``(B, 24)``."""
        return x[:, _P : _P + N_RULE_FEATURES]

    def _columns_present(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, 13)`` float: the rule set's column flags (``488 .. 500``)."""
        return (self._rule_part(x)[:, 11:] > 0).float()

    def _lies_on(self, x: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """By each row's build rule (its one-hot at ``480 .. 482``)."""
        build = self._rule_part(x)[:, 3:6].argmax(-1)  # (B,) the build rule's index
        return self.builds_on_by_rule[build.view(-1, *([1] * (pairs.dim() - 1))), pairs]

    def _state_inputs(
        self, x: torch.Tensor, waste: torch.Tensor, found: torch.Tensor
    ) -> list[torch.Tensor]:
        """The rule numbers (``477 .. 487``) brought to [0, 1]."""
        del waste, found
        return [self._rule_part(x)[:, :N_RULE_INPUTS].float() * self.rule_scales]


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
