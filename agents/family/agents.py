"""Agents of the family: the family network on a variant's own id, and greedy on the shared
encoding.

A family network (:class:`~fortythieves_agents.networks.family_policy.FamilyPlayerPolicy`)
reads the shared observation and scores the shared actions. :class:`FamilyModelAgent` plays
it on any rule set's **own** id (a variant's registered game, so the evaluation, its test
deals, its solver labels, the baselines beside it and the game records are those of every
other agent): each observation and mask of the rule set is carried into the shared
encoding (:meth:`fortythieves_env.envs.family.RuleSetMap.to_shared_obs`, the same numbers
``Family-v0`` with ``variant=`` gives: ``tests/env/test_family.py``), the network scores the
shared moves, and the scores of the rule set's own actions are read back
(``scores[:, to_shared]``; the order of the actions is kept, so ties fall as they do through
the family env). ``tests/agents/family/test_family_agents.py`` checks that a named variant
played so gives, deal by deal, the games of the same network played through ``Family-v0``
(:func:`fortythieves_agents.family.envs.play_family_deals`). A *sampling* network draws the
same moves both ways too, but under the no-cycling rule the moves after a refused draw are
ranked by noise keyed on the action's number
(:func:`fortythieves_agents.players.baselines.sampled_scores`), which the two encodings
number apart: there its games differ (the evaluation's default, the most likely move, does
not sample).

:class:`FamilyGreedyAgent` is the greedy baseline read from shared observations: each row's
rule set is read from the observation's rule-set part (:func:`rule_set_of_observation`), its
own observation and mask are taken back out of the shared ones, and greedy's scores of its
own actions are put on the shared ones. It is the family's teacher (behaviour cloning on
sampled rule sets), and greedy through ``Family-v0``.

A family model zip records ``fortythieves_variant: Family``, ``fortythieves_env_id:
FortyThieves/Family-v0`` and ``fortythieves_family`` (the sampler's bounds, the fixed rule
set of a fine-tuned run, the training deal seeds): :func:`is_family_model` reads it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from fortythieves_env.envs.family import (
    FAMILY_BOUNDS,
    FAMILY_CODEC,
    FAMILY_LAYOUT,
    RuleSetMap,
    rule_set,
    rule_set_map,
)
from fortythieves_env.envs.registration import FAMILY_ENV_ID
from fortythieves_env.rules.observation import LATEST_VERSION, ObservationLayout
from fortythieves_env.rules.variants import Build, EmptyColumn, VariantSpec

from ..evaluation.evaluate import ModelAgent, file_digest
from ..networks.family_policy import FAMILY_NETWORK_NAME
from ..networks.model_zip import ModelMismatchError, model_data
from ..players.baselines import greedy_actions

__all__ = [
    "FAMILY_ATTR",
    "FamilyGreedyAgent",
    "FamilyModelAgent",
    "is_family_model",
    "load_family_agent",
    "load_family_model",
    "rule_set_of_observation",
    "tag_family_model",
    "trained_on",
]

FAMILY_ATTR = "fortythieves_family"
"""Attribute of a saved family model: what it was trained on (``bounds``, ``rule_set``,
``training_seeds``)."""

_P = FAMILY_LAYOUT.cards.size
_BUILDS = tuple(Build)


@functools.lru_cache(maxsize=4096)
def _rule_set_of_key(key: tuple[int, ...]) -> VariantSpec:
    c, fd, fu, b0, b1, b2, seq, kings, deal, redeals, aces = key
    build = _BUILDS[int(np.argmax([b0, b1, b2]))]
    empty = EmptyColumn.KINGS if kings else EmptyColumn.ANY
    return rule_set(c, fd, fu, build, bool(seq), empty, deal, redeals, bool(aces))


def rule_set_of_observation(obs: np.ndarray) -> VariantSpec:
    """The rule set (canonical spec: :func:`fortythieves_env.envs.family.rule_set`) a shared
    observation states in its rule-set part.

    Raises:
        ValueError: the rule-set part names no rule set (an observation of nothing).
    """
    return _rule_set_of_key(tuple(int(v) for v in obs[_P : _P + 11]))


def _own_layout_fits(spec: VariantSpec, size: int) -> RuleSetMap:
    """``spec``'s map to the shared encoding, if its observations have ``size`` entries (the
    latest observation version, the one the map reads).

    Raises:
        ValueError: another size (an older observation version).
    """
    layout = ObservationLayout.for_variant(spec, LATEST_VERSION)
    if layout.size != size:
        raise ValueError(
            f"{spec.id}: the family network reads observations of version {LATEST_VERSION} "
            f"({layout.size} entries), got {size}"
        )
    return rule_set_map(spec)


class FamilyModelAgent(ModelAgent):
    """A family network playing a rule set's own id (module docstring): the
    :class:`~fortythieves_agents.evaluation.evaluate.ModelAgent` of the shared encoding,
    translated. ``start_games(spec, ...)`` gives the rule set (it must lie in
    :data:`~fortythieves_env.envs.family.FAMILY_BOUNDS`).

    Raises (``start_games``, ``act``):
        ValueError: the rule set is outside the family's bounds, or the observations are
            of another version.
    """

    def __init__(
        self, model: Any, name: str = "ppo", deterministic: bool = True, seed: int = 0
    ) -> None:
        super().__init__(model, name, deterministic, seed)
        self._map: RuleSetMap | None = None

    def _bind(self, spec: VariantSpec) -> RuleSetMap:
        if self._map is None or self._map.spec != spec:
            FAMILY_BOUNDS.check(spec)
            self._map = rule_set_map(spec)
        return self._map

    def start_games(self, spec: Any, games: np.ndarray) -> None:
        self._bind(spec)
        super().start_games(spec, games)

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        self._bind(env.unwrapped.variant)  # type: ignore[attr-defined]
        return super().act(obs, env)

    def logits(self, obs: np.ndarray, masks: Any = None) -> Any:
        """The network's logits of the rule set's own actions (``(B, n)``), from its own
        observations ``obs`` (``(B, size)``) and masks (a bool tensor ``(B, n)``)."""
        import torch

        if self._map is None:
            raise RuntimeError("FamilyModelAgent: no rule set yet (start_games first)")
        m = _own_layout_fits(self._map.spec, obs.shape[1])
        shared = np.zeros((obs.shape[0], FAMILY_LAYOUT.size), dtype=np.uint8)
        shared[:, m.obs_index] = obs
        shared[:, FAMILY_LAYOUT.rules] = m.features
        index = torch.from_numpy(m.to_shared.copy())
        shared_masks = None
        if masks is not None:
            shared_masks = torch.zeros((obs.shape[0], FAMILY_CODEC.n_actions), dtype=torch.bool)
            shared_masks[:, index] = masks.to(torch.bool).cpu()
        logits = super().logits(shared, shared_masks)
        return logits[:, index.to(logits.device)]


class FamilyGreedyAgent:
    """Greedy (:class:`fortythieves_agents.players.baselines.GreedyAgent`'s rule) on shared
    observations and masks of any rule sets (module docstring); deterministic."""

    def __init__(self, seed: int = 0) -> None:
        del seed
        self.name = "greedy"

    def start_games(self, spec: Any, games: np.ndarray) -> None:
        """Nothing to remember: each row states its rule set."""

    def end_games(self, games: np.ndarray) -> None:
        """Nothing to drop."""

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """Greedy's score of every shared action (``-inf`` where illegal), ``float64
        (B, 2057)``: each rule set's own scores put on its shared actions."""
        out = np.full(masks.shape, -np.inf, dtype=np.float64)
        groups: dict[VariantSpec, list[int]] = {}
        for b in range(obs.shape[0]):
            groups.setdefault(rule_set_of_observation(obs[b]), []).append(b)
        for spec, rows in groups.items():
            m = rule_set_map(spec)
            own_obs = np.ascontiguousarray(obs[rows][:, m.obs_index])
            own_masks = np.ascontiguousarray(masks[rows][:, m.to_shared])
            scores = np.empty(own_masks.shape, dtype=np.float64)
            greedy_actions(spec, own_obs, own_masks, scores)
            out[np.ix_(rows, m.to_shared)] = scores
        return out

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The best-scored legal shared action of each row (lowest index on ties)."""
        return np.argmax(self.action_scores(obs, masks, games), axis=1).astype(np.int64)


# ---------------------------------------------------------------------- model zips
def is_family_model(path: str | Path) -> bool:
    """Whether the model zip at ``path`` holds a family network (it records
    ``fortythieves_variant: Family``); False for any other zip, or none."""
    try:
        return model_data(path).get("fortythieves_variant") == FAMILY_NETWORK_NAME
    except ModelMismatchError:
        return False


def trained_on(path: str | Path) -> dict[str, Any]:
    """What a family model zip records it was trained on (:data:`FAMILY_ATTR`, with its
    ``timesteps``; ``{}`` when it records nothing)."""
    data = model_data(path)
    value = data.get(FAMILY_ATTR)
    record = dict(value) if isinstance(value, dict) else {}
    steps = data.get("num_timesteps")
    if isinstance(steps, int) and not isinstance(steps, bool):
        record["timesteps"] = steps
    return record


def family_spaces() -> tuple[gym.spaces.Box, gym.spaces.Discrete]:
    """The shared observation and action spaces (``Family-v0``'s)."""
    env = gym.make(FAMILY_ENV_ID)
    try:
        return env.observation_space, env.action_space  # type: ignore[return-value]
    finally:
        env.close()


def load_family_model(path: str | Path) -> Any:
    """A family model zip's network, rebuilt from its weights and plain metadata
    (:func:`fortythieves_agents.networks.model_zip.load_inference_model`: no code from the
    zip runs).

    Raises:
        ModelMismatchError: not a family model, another rules version, other spaces, or a
            zip that needs unpickling (one line naming the path).
    """
    from ..networks.model_zip import load_inference_model

    if not is_family_model(path):
        raise ModelMismatchError(f"{path}: not a family model (it records no variant Family)")
    obs_space, action_space = family_spaces()
    return load_inference_model(path, obs_space, action_space, env_name="the family")


def load_family_agent(
    path: str | Path,
    variant: str | None,
    deterministic: bool = True,
    seed: int = 0,
    env_version: int | None = None,
) -> tuple[FamilyModelAgent, str]:
    """A family model zip as an agent of ``variant``'s own id
    (:func:`fortythieves_agents.evaluation.evaluate.load_model_agent` of a family model).

    Raises:
        ModelMismatchError: no ``variant`` (a family network plays any rule set: it must be
            named), a variant outside the family's bounds, an id version whose observation
            is not the latest, or the zip cannot be loaded (:func:`load_family_model`).
    """
    from fortythieves_env.rules.variants import get_variant

    from ..envs import env_id_for

    if variant is None:
        raise ModelMismatchError(
            f"{path}: a family model plays any rule set of the family; pass --variant"
        )
    spec = get_variant(variant)
    why = FAMILY_BOUNDS.outside(spec)
    if why:
        raise ModelMismatchError(
            f"{path}: a family model plays the rule sets of the family's bounds; "
            f"{variant} is outside them ({why})"
        )
    wanted = env_id_for(variant, env_version)
    env = gym.make(wanted)
    try:
        size = int(np.prod(env.observation_space.shape))  # type: ignore[arg-type]
    finally:
        env.close()
    if ObservationLayout.for_variant(spec, LATEST_VERSION).size != size:
        raise ModelMismatchError(
            f"{path}: a family model reads observation version {LATEST_VERSION}; "
            f"{wanted} has another (drop --env-version)"
        )
    model = load_family_model(path)
    name = "ppo" if deterministic else "ppo-sampled"
    agent = FamilyModelAgent(model, name, deterministic, seed)
    agent.path = str(path)
    agent.digest = file_digest(path)
    return agent, variant


def tag_family_model(model: Any, record: dict[str, Any]) -> None:
    """Record on ``model`` (before saving) that it is a family network, the rules version
    and what it was trained on (``record``: :data:`FAMILY_ATTR`)."""
    from fortythieves_env import RULES_VERSION

    from ..envs import ENV_ID_ATTR, RULES_VERSION_ATTR, VARIANT_ATTR, VARIANT_SPEC_ATTR

    setattr(model, VARIANT_ATTR, FAMILY_NETWORK_NAME)
    setattr(model, RULES_VERSION_ATTR, RULES_VERSION)
    setattr(model, VARIANT_SPEC_ATTR, None)
    setattr(model, ENV_ID_ATTR, FAMILY_ENV_ID)
    setattr(model, FAMILY_ATTR, record)
