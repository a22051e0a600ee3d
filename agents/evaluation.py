"""Fair evaluation: every agent plays the same held-out test deals, with the action mask.

:func:`evaluate_agents` plays, for each agent, one episode per seed of
:func:`agents.seeds.seeds_for_test` (``2_000_000_000 + i``) on a fresh environment made with
the variant's registered defaults (reward settings and step limit), so the results of
different runs and agents are comparable. Trained models act deterministically by default
(``predict(..., action_masks=mask, deterministic=True)``); with ``deterministic=False`` they
sample, with torch's generator seeded ``seed + i`` at the start of the i-th episode.

Reported per agent (:func:`summarize`):

- ``win_rate`` with a 95% Wilson score interval ``win_rate_ci95`` (within [0, 1]);
- ``mean_foundation_cards`` (0..104 at the episode end), its standard error and a 95% normal
  interval ``foundation_cards_ci95`` (mean +- 1.96 SE, clipped to [0, 104]);
- ``mean_episode_length`` (steps, truncated episodes included) and ``mean_return``.
"""

from __future__ import annotations

import json
import math
import sys
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from .baselines import Agent, legal_actions, make_baseline
from .seeds import TEST_START, seeds_for_test

__all__ = [
    "EpisodeResult",
    "ModelAgent",
    "ModelMismatchError",
    "baseline_agents",
    "evaluate_agents",
    "load_maskable_ppo",
    "load_model_agent",
    "model_variant",
    "play_episode",
    "render_table",
    "single_torch_thread",
    "summarize",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""


class ModelMismatchError(Exception):
    """A saved model does not fit the requested variant or its environment's spaces."""


@dataclass(frozen=True)
class EpisodeResult:
    """One played deal."""

    seed: int
    won: bool
    foundation_cards: int
    length: int
    ret: float
    truncated: bool


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


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; ``(0.0, 1.0)`` when ``n == 0``.

    Raises:
        ValueError: ``successes`` not in ``0..n``.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


class ModelAgent:
    """A trained MaskablePPO policy choosing among the legal actions only.

    Deterministic (most likely action) by default; with ``deterministic=False`` it samples,
    seeding torch with ``seed + i`` at the start of its i-th episode (reproducible).
    """

    def __init__(
        self, model: Any, name: str = "ppo", deterministic: bool = True, seed: int = 0
    ) -> None:
        self.name = name
        self.model = model
        self.deterministic = deterministic
        self.seed = seed
        self._episodes = 0

    def reset(self, env: gym.Env) -> None:
        """Seed the sampling of a stochastic policy for the next episode."""
        if not self.deterministic:
            import torch

            torch.manual_seed(self.seed + self._episodes)
        self._episodes += 1

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """The policy's action, restricted to the legal ones.

        Same result as ``model.predict(obs, action_masks=mask, deterministic=...)``, but only
        the actor is run (no value head, no distribution object): about 4x faster per step.
        Either network (:func:`agents.policy.policy_logits`).
        """
        import torch

        from .policy import policy_logits

        mask = torch.as_tensor(np.asarray(env.unwrapped.action_masks(), dtype=bool))  # type: ignore[attr-defined]
        policy = self.model.policy
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32, device=policy.device)[None]
            mask = mask.to(x.device)
            logits = policy_logits(policy, x, mask[None])[0]
            logits = logits.masked_fill(~mask, -torch.inf)
            if self.deterministic:
                return int(logits.argmax())
            return int(torch.distributions.Categorical(logits=logits).sample())


def model_variant(path: str | Path) -> str | None:
    """The variant id saved with a model zip (attribute ``fortythieves_variant``), if any.

    Reads only the zip's ``data`` entry, without building the policy.

    Raises:
        ModelMismatchError: ``path`` is not an SB3 model zip.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data").decode("utf-8"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise ModelMismatchError(f"{path}: not a saved SB3 model ({exc})") from None
    value = data.get("fortythieves_variant")
    return value if isinstance(value, str) else None


def load_maskable_ppo(path: str | Path, **kwargs: Any) -> Any:
    """``MaskablePPO.load(path, **kwargs)``, any failure to read the file turned into one error.

    The zip is checked first (every member's CRC), then loaded; a damaged ``policy.pth``
    inside an intact zip, a missing member or a zip of another algorithm fail here.

    Raises:
        ModelMismatchError: the file is missing, not a zip, damaged, or not a MaskablePPO
            model; or (with ``env=``) its spaces do not fit the environment. The message
            names the path and the cause, on one line.
    """
    from sb3_contrib import MaskablePPO

    from .config import ConfigError
    from .paths import check_readable_file

    try:
        check_readable_file(path, "model", zip_archive=True)
    except ConfigError as exc:
        raise ModelMismatchError(str(exc)) from None
    try:
        return MaskablePPO.load(path, **kwargs)
    except Exception as exc:  # torch, pickle, zip and SB3 errors alike: the file is unusable
        cause = " ".join(str(exc).split())[:300]
        raise ModelMismatchError(
            f"{path}: cannot load the model ({type(exc).__name__}: {cause})"
        ) from None


def load_model_agent(
    path: str | Path, variant: str | None = None, deterministic: bool = True, seed: int = 0
) -> tuple[ModelAgent, str]:
    """Load a MaskablePPO zip for evaluation and check that it fits ``variant``.

    Args:
        path: the model ``.zip``.
        variant: the variant to evaluate on; None means the one saved with the model.
        deterministic: see :class:`ModelAgent` (the agent is named ``ppo-sampled`` if False).
        seed: seeds the sampling when not ``deterministic``.

    Returns:
        ``(agent, variant)``.

    Raises:
        ModelMismatchError: the file is missing or damaged (see :func:`load_maskable_ppo`),
            the model was trained for another variant (both are named), has no saved
            variant and none was given, or its observation/action spaces differ from the
            variant's environment.
    """
    from .envs import env_id_for, register_saved_variant

    register_saved_variant(path)  # a custom variant the model records becomes known
    saved = model_variant(path)
    if variant is None and saved is None:
        raise ModelMismatchError(f"{path}: the model records no variant; pass --variant")
    if variant is not None and saved is not None and variant != saved:
        raise ModelMismatchError(
            f"{path}: model trained for variant {saved!r}, refusing to evaluate it on {variant!r}"
        )
    chosen = variant or saved
    assert chosen is not None
    env = gym.make(env_id_for(chosen))
    model = load_maskable_ppo(path, device="cpu")
    for space in ("observation_space", "action_space"):
        mine, theirs = getattr(model, space), getattr(env, space)
        if mine != theirs:
            raise ModelMismatchError(
                f"{path}: the model's {space} {mine} does not match variant {chosen!r}'s {theirs}"
            )
    env.close()
    name = "ppo" if deterministic else "ppo-sampled"
    return ModelAgent(model, name, deterministic, seed), chosen


def play_episode(env: gym.Env, agent: Agent, seed: int) -> EpisodeResult:
    """Play one deal (``env.reset(seed=seed)``) to its end (termination or truncation).

    Raises:
        RuntimeError: the agent chose an illegal action.
    """
    obs, info = env.reset(seed=seed)
    agent.reset(env)
    total, length = 0.0, 0
    while True:
        action = agent.act(obs, env)
        if action not in legal_actions(env):
            raise RuntimeError(f"agent {agent.name} chose illegal action {action} on deal {seed}")
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        length += 1
        if terminated or truncated:
            return EpisodeResult(
                seed=seed,
                won=bool(info["is_success"]),
                foundation_cards=int(info["foundation_cards"]),
                length=length,
                ret=total,
                truncated=bool(truncated and not terminated),
            )


def summarize(results: Sequence[EpisodeResult]) -> dict[str, Any]:
    """Aggregate episode results (see the module docstring for the keys)."""
    n = len(results)
    wins = sum(r.won for r in results)
    cards = np.array([r.foundation_cards for r in results], dtype=float)
    mean = float(cards.mean()) if n else 0.0
    std = float(cards.std(ddof=1)) if n > 1 else 0.0
    sem = std / math.sqrt(n) if n else 0.0
    lo, hi = wilson_interval(wins, n)
    return {
        "episodes": n,
        "wins": wins,
        "win_rate": wins / n if n else 0.0,
        "win_rate_ci95": [lo, hi],
        "mean_foundation_cards": mean,
        "std_foundation_cards": std,
        "sem_foundation_cards": sem,
        "foundation_cards_ci95": [max(0.0, mean - Z95 * sem), min(104.0, mean + Z95 * sem)],
        "mean_episode_length": float(np.mean([r.length for r in results])) if n else 0.0,
        "truncated": sum(r.truncated for r in results),
        "mean_return": float(np.mean([r.ret for r in results])) if n else 0.0,
    }


def evaluate_agents(
    agents: Sequence[Agent],
    variant: str,
    episodes: int,
    per_episode: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Play the first ``episodes`` test deals of ``variant`` with each agent.

    Args:
        agents: the agents, played one after the other on the same deals.
        variant: the variant id (its registered game is played).
        episodes: the number of test deals.
        per_episode: also return one row per deal.
        progress: show one progress bar on stderr over all agents' deals, with the time
            left (tqdm; it draws nothing when stderr is not a terminal).

    Returns:
        A JSON-ready dict: ``variant``, ``env_id``, ``episodes``, ``seeds`` (the first seed
        and the count), ``results`` (agent name -> :func:`summarize` dict, plus
        ``per_episode`` rows if asked).

    Raises:
        ValueError: ``episodes`` < 1.
        KeyboardInterrupt: passed on as it comes (Ctrl-C); nothing is returned then, the
            caller says how to re-run.
    """
    from tqdm import tqdm

    from .envs import env_id_for

    if episodes < 1:
        raise ValueError(f"need at least one episode, got {episodes}")
    seeds = seeds_for_test(episodes)
    env_id = env_id_for(variant)
    out: dict[str, Any] = {
        "variant": variant,
        "env_id": env_id,
        "episodes": episodes,
        "seeds": {"first": TEST_START, "count": episodes, "rule": "2_000_000_000 + i"},
        "results": {},
    }
    with tqdm(
        total=episodes * len(agents),
        unit="deal",
        disable=not progress,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    ) as bar:
        for agent in agents:
            bar.set_description(f"{variant} {agent.name}")
            env = gym.make(env_id)
            results = []
            try:
                with single_torch_thread():
                    for seed in seeds:
                        results.append(play_episode(env, agent, seed))
                        bar.update()
            finally:
                env.close()
            summary = summarize(results)
            if per_episode:
                summary["per_episode"] = [asdict(r) for r in results]
            out["results"][agent.name] = summary
    return out


def baseline_agents(names: Sequence[str], seed: int = 0) -> list[Agent]:
    """Baseline agents by name (see :mod:`agents.baselines`)."""
    return [make_baseline(name, seed) for name in names]


def render_table(report: dict[str, Any]) -> Any:
    """A ``rich.table.Table`` of an :func:`evaluate_agents` report, one row per agent."""
    from rich.table import Table

    table = Table(
        title=f"{report['variant']}: {report['episodes']} test deals "
        f"(seeds {report['seeds']['first']}..{report['seeds']['first'] + report['episodes'] - 1})"
    )
    for column in (
        "agent",
        "win rate [95% CI]",
        "foundation cards [95% CI]",
        "ep. length",
        "truncated",
        "return",
    ):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for name, s in report["results"].items():
        lo, hi = s["win_rate_ci95"]
        clo, chi = s["foundation_cards_ci95"]
        table.add_row(
            name,
            f"{100 * s['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
            f"{s['mean_foundation_cards']:.1f} [{clo:.1f}, {chi:.1f}]",
            f"{s['mean_episode_length']:.0f}",
            f"{s['truncated']}/{s['episodes']}",
            f"{s['mean_return']:.1f}",
        )
    return table
