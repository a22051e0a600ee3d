"""A trained MaskablePPO policy as an agent of the test deals (:class:`ModelAgent`) and
loading one from a model zip, checked against the variant and rules it is played on
(:func:`load_model_agent`), without unpickling anything."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..networks.model_zip import ModelMismatchError, model_env_id, model_variant
from ..players.baselines import PerGameDraws, sampled_scores

__all__ = [
    "ModelAgent",
    "file_digest",
    "load_model_agent",
    "single_torch_thread",
]


@contextmanager
def single_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside the block (batch-1 inference is ~4x faster so)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class ModelAgent:
    """A trained MaskablePPO policy choosing among the legal actions only.

    Deterministic (the legal action of highest logit, lowest index on ties) by default.
    With ``deterministic=False`` it samples from the masked policy: in batches
    (:meth:`act_batch`) game ``i`` draws one uniform ``u`` per step from
    ``numpy.random.default_rng((seed, i))`` and takes the action where the cumulative
    probability (legal actions in index order, ``float64``) first exceeds ``u``; one game at
    a time (:meth:`act`) it seeds torch with ``seed + k`` at the start of its k-th episode.
    """

    def __init__(
        self, model: Any, name: str = "ppo", deterministic: bool = True, seed: int = 0
    ) -> None:
        self.name = name
        self.model = model
        self.deterministic = deterministic
        self.seed = seed
        self.path: str | None = None
        """The model zip's path, if loaded from one (for game records)."""
        self.digest: str | None = None
        """The model zip's ``sha256:`` digest, if loaded from one (for game records: a
        record of another zip at the same path is not this player's)."""
        self._episodes = 0
        self._draws = PerGameDraws(seed)

    def reset(self, env: gym.Env) -> None:
        """Seed the sampling of a stochastic policy for the next episode."""
        if not self.deterministic:
            import torch

            torch.manual_seed(self.seed + self._episodes)
        self._episodes += 1

    def logits(self, obs: np.ndarray, masks: Any = None) -> Any:
        """The actor's logits (a ``float32`` torch tensor, shape ``(B, n)``) of ``obs``
        (``uint8``, shape ``(B, size)``), without masking; call under ``torch.no_grad()``.

        ``masks`` (bool torch tensor ``(B, n)``, optional) lets the ``player`` network score
        only the legal moves (the others' logits are then 0: mask them). Only the actor runs
        (no value head, no distribution object): about 4x faster than ``model.predict`` per
        step. The one place the policy is read, for :meth:`act` and :meth:`act_batch` alike,
        for either network (:func:`fortythieves_agents.networks.policy.policy_logits`).
        """
        import torch

        from ..networks.policy import policy_logits

        policy = self.model.policy
        # converted in numpy: a new writable array (the batched env's rows are read-only)
        x = torch.as_tensor(obs.astype(np.float32), device=policy.device)
        if masks is not None:
            masks = masks.to(x.device)
        return policy_logits(policy, x, masks)

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """The policy's action, restricted to the legal ones.

        Same result as ``model.predict(obs, action_masks=mask, deterministic=...)``.
        """
        import torch

        mask = torch.as_tensor(np.asarray(env.unwrapped.action_masks(), dtype=bool))  # type: ignore[attr-defined]
        with torch.no_grad():
            logits = self.logits(obs[None], mask[None])[0]
            logits = logits.masked_fill(~mask.to(logits.device), -torch.inf)
            if self.deterministic:
                return int(logits.argmax())
            return int(torch.distributions.Categorical(logits=logits).sample())

    def start_games(self, spec: Any, games: np.ndarray) -> None:
        """Seed game ``i``'s generator with ``(seed, i)`` (sampling only)."""
        if not self.deterministic:
            self._draws.start(games)

    def end_games(self, games: np.ndarray) -> None:
        """Drop the games' generators."""
        self._draws.end(games)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """One forward pass for all rows; each row's legal action (see the class docstring).

        Returns:
            ``int64``, shape ``(B,)``.
        """
        import torch

        legal = torch.as_tensor(np.asarray(masks, dtype=bool))
        with torch.no_grad():
            logits = self.logits(obs, legal)
            logits = logits.masked_fill(~legal.to(logits.device), -torch.inf)
            if self.deterministic:
                return logits.argmax(dim=1).cpu().numpy().astype(np.int64)
            probs = torch.softmax(logits.double(), dim=1).cpu().numpy()
        cum = np.cumsum(probs, axis=1)
        u = self._draws.uniforms(games)
        return np.argmax(cum > (u * cum[:, -1])[:, None], axis=1).astype(np.int64)

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The ranking of :meth:`~fortythieves_agents.players.baselines.BatchAgent.action_scores`:
        the masked logits (``float64``, ``-inf`` where illegal) when deterministic; when sampling,
        the move :meth:`act_batch` would draw first, then the others by the Gumbel-max trick on
        the log-probabilities (:func:`fortythieves_agents.players.baselines.sampled_scores`, same
        draw).

        Returns:
            ``float64``, shape ``(B, n)``.
        """
        import torch

        legal = torch.as_tensor(np.asarray(masks, dtype=bool))
        with torch.no_grad():
            logits = self.logits(obs, legal)
            logits = logits.masked_fill(~legal.to(logits.device), -torch.inf)
            if self.deterministic:
                return logits.cpu().numpy().astype(np.float64)
            probs = torch.softmax(logits.double(), dim=1).cpu().numpy()  # as act_batch
            log_probs = torch.log_softmax(logits.double(), dim=1).cpu().numpy()
        cum = np.cumsum(probs, axis=1)
        u = self._draws.uniforms(games)
        chosen = np.argmax(cum > (u * cum[:, -1])[:, None], axis=1).astype(np.int64)
        return sampled_scores(masks, u, chosen, log_probs)


def load_model_agent(
    path: str | Path,
    variant: str | None = None,
    deterministic: bool = True,
    seed: int = 0,
    env_version: int | None = None,
) -> tuple[ModelAgent, str]:
    """Load a MaskablePPO zip for evaluation and check that it fits ``variant``.

    The zip may come from anyone: its policy is rebuilt from its weights and plain JSON
    metadata by :func:`fortythieves_agents.networks.model_zip.load_inference_model`, which never
    unpickles the zip's ``data`` and refuses a zip that would need it; no code from the zip runs.

    Args:
        path: the model ``.zip``.
        variant: the variant to evaluate on; None means the one saved with the model.
        deterministic: see :class:`ModelAgent` (the agent is named ``ppo-sampled`` if False).
        seed: seeds the sampling when not ``deterministic``.
        env_version: the id version to evaluate on (``-vN``); None: the variant's newest.
            A model made for another version of the id is refused (the message names both).

    Returns:
        ``(agent, variant)``.

    Raises:
        ModelMismatchError: the file is missing or damaged, the model was trained for
            another variant (both are named), or for another version of the variant's id
            (both ids are named: ``FortyThieves/LittleForty-v0`` against ``-v1``), has no
            saved variant and none was given, was trained under other rules (both rules
            versions are named: :func:`~fortythieves_agents.networks.model_zip.check_model_rules`),
            its observation/action spaces
            differ from the variant's environment, or it needs more than weights and plain
            JSON to rebuild (what it needs is named; see
            :mod:`fortythieves_agents.networks.model_zip`).
    """
    from ..envs import env_id_for, register_saved_variant

    saved = model_variant(path)
    register_saved_variant(path)  # a custom variant the model records becomes known
    if variant is None and saved is None:
        raise ModelMismatchError(f"{path}: the model records no variant; pass --variant")
    if variant is not None and saved is not None and variant != saved:
        raise ModelMismatchError(
            f"{path}: model trained for variant {saved!r}, refusing to evaluate it on {variant!r}"
        )
    chosen = variant or saved
    assert chosen is not None
    wanted = env_id_for(chosen, env_version)
    made_for = model_env_id(path)
    same_variant = (
        made_for is not None and made_for.rpartition("-v")[0] == (wanted.rpartition("-v")[0])
    )
    if same_variant and made_for != wanted:
        raise ModelMismatchError(
            f"{path}: model made for {made_for}, refusing to evaluate it on {wanted} "
            f"(another observation version; pass --env-version {made_for.rpartition('-v')[2]} "
            "to play the version it was made for)"
        )
    from ..networks.model_zip import load_inference_model

    env = gym.make(wanted)
    try:
        model = load_inference_model(
            path, env.observation_space, env.action_space, env_name=f"variant {chosen!r}"
        )
    finally:
        env.close()
    name = "ppo" if deterministic else "ppo-sampled"
    agent = ModelAgent(model, name, deterministic, seed)
    agent.path = str(path)
    agent.digest = file_digest(path)
    return agent, chosen


def file_digest(path: str | Path) -> str:
    """``"sha256:"`` and the SHA-256 of the file's bytes (read in 1 MiB blocks).

    Raises:
        OSError: the file cannot be read.
    """
    import hashlib

    sha = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(2**20):
            sha.update(block)
    return "sha256:" + sha.hexdigest()
