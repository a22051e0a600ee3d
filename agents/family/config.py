"""The configuration of a family run: a training config with a ``family:`` section.

A config file (or its ``base:`` chain) with a top-level ``family:`` key is a family config:
:func:`load_family_config` (``fortythieves train``'s loader) validates it with
:class:`FamilyConfig` (the per-variant :class:`~fortythieves_agents.config.Config` read by
:func:`~fortythieves_agents.config.load_config`: the same layers, ``--set`` overrides and
one-line errors naming the file or ``--set`` and the key), and ``fortythieves train`` runs it
with :func:`fortythieves_agents.family.train.train_family`. The shipped one is
``configs/family.yaml`` (``fortythieves train family``).

What differs from a per-variant config:

- ``env.variant`` is ``Family`` (the shared encoding, ``FortyThieves/Family-v0``), and
  ``env.custom_variant`` must be null: the rule sets are ``family.*``'s;
- ``family.rule_set``: null (a rule set drawn per episode from the training distribution,
  or from ``family.bounds``), or one rule set played every episode through the shared
  encoding (a variant id, a held-out game's id or a rule-set id: fine-tuning);
- ``family.bounds``: null (the family's bounds), or a narrower box (a mapping of
  :class:`~fortythieves_env.envs.family.FamilyBounds` fields: ``n_columns: [9, 11]``,
  ``builds: [same_suit]``, ...);
- ``family.start_model``: a family model zip whose weights the run starts from
  (fine-tuning; instead of a teacher's clone);
- ``family.zero_shot``: the final evaluation of a run on the training distribution, on
  every held-out game (:mod:`fortythieves_agents.family.zero_shot`);
- ``policy.network`` must be ``player`` (the family's network is the player network on the
  shared encoding), ``train.vec_env`` ``batched``; ``train.teacher`` ``greedy`` or null;
  no ``train.shaping`` and no expert iteration.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..config import load_config
from ..config_models import Config, EnvConfig, _Section

__all__ = [
    "FAMILY_TEACHERS",
    "FamilyConfig",
    "FamilyEnvConfig",
    "FamilySection",
    "ZeroShotConfig",
    "config_model",
    "held_out_ids",
    "load_family_config",
]

FAMILY_TEACHERS = ("greedy",)
"""The teachers a family run may clone (greedy, read from the shared observation:
:class:`fortythieves_agents.family.agents.FamilyGreedyAgent`)."""

_SPANS = ("n_columns", "face_down", "face_up", "deal_count", "redeals")
_CHOICES = ("builds", "sequence_moves", "empty_columns", "aces_on_foundations")


def held_out_ids() -> list[str]:
    """The held-out games, in the report's order: the nine variants, then PySolFC's."""
    from fortythieves_env.envs.family import HELD_OUT

    return list(HELD_OUT)


class FamilyEnvConfig(EnvConfig):
    """``env`` of a family config: :class:`~fortythieves_agents.config.EnvConfig` with
    ``variant: Family`` (the shared encoding) and no ``custom_variant``."""

    variant: Literal["Family"] = Field(  # type: ignore[assignment]
        default="Family",
        description="Family: the shared encoding (FortyThieves/Family-v0); the rule sets "
        "are family.rule_set's or family.bounds'",
    )

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str, info: Any) -> str:  # replaces EnvConfig's
        if info.data.get("custom_variant") is not None:
            raise ValueError(
                "a family run plays the family's rule sets: set env.custom_variant: null and "
                "name one rule set with family.rule_set"
            )
        return value


class ZeroShotConfig(_Section):
    """The zero-shot evaluation that ends a run on the training distribution."""

    episodes: int = Field(
        default=500, ge=0, le=10**9, description="test deals per held-out game; 0 skips it"
    )
    outside: int = Field(
        default=200,
        ge=0,
        le=10**9,
        description="deals outside every seed range (3_000_000_000 + i) per named variant; 0: none",
    )
    games: list[str] = Field(
        default_factory=held_out_ids,
        description="the held-out games played (ids of fortythieves_env.envs.family.HELD_OUT)",
    )

    @field_validator("games")
    @classmethod
    def _held_out(cls, value: list[str]) -> list[str]:
        known = held_out_ids()
        unknown = [g for g in value if g not in known]
        if unknown:
            raise ValueError(
                f"not a held-out game: {', '.join(unknown)}; held-out games: {', '.join(known)}"
            )
        if not value:
            raise ValueError("name at least one held-out game (or set zero_shot.episodes: 0)")
        return list(dict.fromkeys(value))


class FamilySection(_Section):
    """``family:``: which rule sets a run plays, where it starts, how it ends."""

    rule_set: str | None = Field(
        default=None,
        description="null: a rule set drawn per episode (the training distribution); or one "
        "rule set played every episode (a variant or held-out game id, or a rule-set id)",
    )
    bounds: dict[str, Any] | None = Field(
        default=None,
        description="null: the family's bounds; or a narrower box of FamilyBounds fields "
        "(n_columns: [lo, hi], builds: [same_suit, ...], ...)",
    )
    start_model: str | None = Field(
        default=None,
        min_length=1,
        description="a family model zip the run starts from (fine-tuning; needs "
        "train.teacher: null)",
    )
    zero_shot: ZeroShotConfig = Field(default_factory=ZeroShotConfig)

    @field_validator("rule_set")
    @classmethod
    def _known_rule_set(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from fortythieves_env.envs.family import FAMILY_BOUNDS, HELD_OUT, get_rule_set

        try:
            spec = get_rule_set(value)
        except ValueError:
            raise ValueError(
                f"unknown rule set {value!r}: a held-out game ({', '.join(HELD_OUT)}) or a "
                "rule-set id such as R10c0d4u_SS_one_any_deal1_redeal0"
            ) from None
        why = FAMILY_BOUNDS.outside(spec)
        if why:
            raise ValueError(f"rule set {value!r} is outside the family's bounds: {why}")
        return value

    @field_validator("bounds")
    @classmethod
    def _valid_bounds(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        from fortythieves_env.envs.family import FamilyBounds, RuleSetSampler

        allowed = (*_SPANS, *_CHOICES)
        unknown = [str(k) for k in value if k not in allowed]
        if unknown:
            raise ValueError(
                f"unknown bounds field(s) {', '.join(unknown)} (fields: {', '.join(allowed)})"
            )
        kwargs: dict[str, Any] = {}
        for name, given in value.items():
            if name in _SPANS:
                if not isinstance(given, list) or len(given) != 2:
                    raise ValueError(f"{name} must be [low, high], got {given!r}")
                kwargs[name] = tuple(given)
            else:
                if not isinstance(given, list):
                    raise ValueError(f"{name} must be a list of values, got {given!r}")
                kwargs[name] = tuple(given)
        try:
            sampler = RuleSetSampler(FamilyBounds(**kwargs))
        except (ValueError, TypeError) as exc:
            raise ValueError(str(exc)) from None
        if not sampler.support_size:
            raise ValueError(
                "the box holds no rule set to train on: every one is held out or cannot be dealt"
            )
        return value


class FamilyConfig(Config):
    """A family run's configuration (module docstring)."""

    env: FamilyEnvConfig  # type: ignore[assignment]
    family: FamilySection = Field(default_factory=FamilySection)

    @model_validator(mode="after")
    def _family_machinery(self) -> FamilyConfig:
        if self.policy.network != "player":
            raise ValueError(
                "policy.network: a family run trains the player network on the shared "
                f"encoding (set policy.network: player, got {self.policy.network!r})"
            )
        if self.policy.player.unseen_inputs:
            raise ValueError(
                "policy.player.unseen_inputs: the family's network has no such inputs (set it "
                "to false)"
            )
        if self.train.vec_env != "batched":
            raise ValueError(
                f"train.vec_env: a family run needs batched (got {self.train.vec_env!r})"
            )
        if self.train.teacher not in (None, *FAMILY_TEACHERS):
            raise ValueError(
                f"train.teacher: a family run clones {', '.join(FAMILY_TEACHERS)} or nothing "
                f"(null), got {self.train.teacher!r}"
            )
        if self.train.shaping is not None:
            raise ValueError("train.shaping: not with a family run (set train.shaping: null)")
        if self.expert.iterations:
            raise ValueError("expert.iterations: no expert iteration in a family run (set it to 0)")
        if self.teacher.imitation_coef:
            raise ValueError(
                "teacher.imitation_coef: not with a family run (set teacher.imitation_coef: 0)"
            )
        if self.family.start_model is not None and self.train.teacher is not None:
            raise ValueError(
                "family.start_model replaces the teacher's clone: set train.teacher: null "
                f"(got train.teacher: {self.train.teacher})"
            )
        if self.family.rule_set is not None and self.family.bounds is not None:
            raise ValueError(
                "family.rule_set and family.bounds: give one (a fixed rule set, or a box to "
                "draw rule sets from)"
            )
        return self

    def rule_set_spec(self) -> Any:
        """The fixed rule set's spec (``family.rule_set``), or None."""
        if self.family.rule_set is None:
            return None
        from fortythieves_env.envs.family import get_rule_set

        return get_rule_set(self.family.rule_set)

    def sampler(self) -> Any:
        """The :class:`~fortythieves_env.envs.family.RuleSetSampler` of ``family.bounds`` (None:
        the training distribution, or a fixed rule set)."""
        if self.family.bounds is None:
            return None
        from fortythieves_env.envs.family import FamilyBounds, RuleSetSampler

        return RuleSetSampler(FamilyBounds(**{k: tuple(v) for k, v in self.family.bounds.items()}))

    def bounds_dict(self) -> dict[str, Any]:
        """The box the run draws from, as data (``FamilyBounds.as_dict``)."""
        from fortythieves_env.envs.family import FAMILY_BOUNDS

        sampler = self.sampler()
        return (sampler.bounds if sampler is not None else FAMILY_BOUNDS).as_dict()

    def run_name(self) -> str:
        """The default run folder's prefix: ``family`` or ``family-<rule set>``."""
        return "family" if self.family.rule_set is None else f"family-{self.family.rule_set}"


def config_model(merged: dict[str, Any]) -> type[Config]:
    """:class:`FamilyConfig` when the merged config data has a top-level ``family:`` key,
    else :class:`~fortythieves_agents.config.Config` (``load_config(..., model=config_model)``,
    as ``fortythieves train`` loads a config)."""
    return FamilyConfig if isinstance(merged, dict) and "family" in merged else Config


def load_family_config(path: str | Path, overrides: Sequence[str] = ()) -> Config:
    """:func:`fortythieves_agents.config.load_config` of ``path`` and ``overrides`` with
    :func:`config_model`: a :class:`FamilyConfig` for a family config (``family``, the
    shipped ``configs/family.yaml``), else the per-variant :class:`Config`.

    Raises:
        ConfigError: as ``load_config``.
    """
    return load_config(path, overrides, model=config_model)
