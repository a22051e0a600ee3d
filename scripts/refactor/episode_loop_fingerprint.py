"""A fingerprint of the games the agents' episode loops play: one SHA-256 over every move,
result and recorded array, to show that a change of the loops changes no game.

Plays, on 20 deals of Lucas, Number Ten and Forty Thieves each:

- :func:`~fortythieves_agents.evaluation.evaluate.play_deals` (the batched loop) for random, greedy,
a
  small search and an untrained network (deterministic and sampling), with the no-cycling
  rule and without, all deals at once and in batches of 3, with the game traces;
- :func:`~fortythieves_agents.evaluation.evaluate.play_episode` (one game at a time) for random,
  greedy and the network, with the rule and without (the one-game ``act`` protocol);
- ``evaluation._play_one_by_one`` (evaluate's loop for an agent of the one-game protocol)
  for random, with the game traces;
- :func:`~fortythieves_agents.evaluation.evaluate.evaluate_agents` for greedy (its per-deal rows);
- :func:`~fortythieves_agents.training.teacher.collect_teacher_games` for greedy on the Lucas,
Number
  Ten and Forty Thieves training envs (plain, ``teacher.ties: any``, the no-cycling rule,
  potential shaping), 20 games in batches of 6;
- :func:`~fortythieves_agents.training.expert.label_game` (expert iteration's DAgger games) for 2
  Lucas deals with a node-bounded solving search.

Run it from the repository root before and after a change and compare the last line::

    .venv/bin/python scripts/refactor/episode_loop_fingerprint.py

It prints one digest per part, then ``fingerprint <sha256>``. About a minute of CPU (one
torch thread).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import env_id_for, make_training_vec_env
from fortythieves_agents.evaluation.evaluate import (  # _play_one_by_one: evaluate's one-game loop
    EpisodeResult,
    GameTrace,
    ModelAgent,
    _play_one_by_one,
    evaluate_agents,
    play_deals,
    play_episode,
)
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.players.search import SearchAgent, SearchBudget
from fortythieves_agents.seeds import seeds_for_test
from fortythieves_agents.training.teacher import collect_teacher_games, make_teacher

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("Lucas", "NumberTen", "FortyThieves")
DEALS = 20
SEARCH = SearchBudget(samples=2, horizon=200)
SEARCH_DEALS = 6
"""The search plays fewer deals (it costs about 1,000 rollouts a move)."""
CONFIG_OF = {"Lucas": "lucas", "NumberTen": "numberten", "FortyThieves": "fortythieves"}
TEACHER = [
    "policy.network=card_slots",
    "train.teacher=greedy",
    "train.no_cycling=false",
    "train.n_envs=1",
    "ppo.n_steps=64",
    "ppo.batch_size=64",
    "train.vec_env=batched",
    "policy.features_dim=16",
    "policy.net_arch_pi=[16]",
    "policy.net_arch_vf=[16]",
]


class Digest:
    """A running SHA-256 over named parts, each with its own digest too."""

    def __init__(self) -> None:
        self.total = hashlib.sha256()
        self.part = hashlib.sha256()

    def add(self, value: Any) -> None:
        if isinstance(value, np.ndarray):
            self.part.update(f"{value.dtype}{value.shape}".encode())
            self.part.update(np.ascontiguousarray(value).tobytes())
        else:
            self.part.update(repr(value).encode())

    def close(self, name: str) -> None:
        digest = self.part.hexdigest()
        print(f"{name:60s} {digest[:16]}", flush=True)
        self.total.update(f"{name}:{digest}".encode())
        self.part = hashlib.sha256()


def _results(d: Digest, results: list[EpisodeResult], traces: list[GameTrace] | None) -> None:
    for r in results:
        d.add(r)
    for t in traces or []:
        d.add(sorted(t.start.items()))
        d.add(t.actions)


def _tiny_model(env_id: str) -> Any:
    """An untrained MaskablePPO (seeded: the same weights every run)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: gym.make(env_id)])
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [16]}, seed=3, device="cpu")
    venv.close()
    return model


def _batched(d: Digest, variant: str, env_id: str, model: Any) -> None:
    seeds = seeds_for_test(DEALS)
    makers: dict[str, Callable[[], Any]] = {
        "random": lambda: make_baseline("random", 5),
        "greedy": lambda: make_baseline("greedy", 0),
        "ppo": lambda: ModelAgent(model, "ppo"),
        "ppo-sampled": lambda: ModelAgent(model, "ppo-sampled", deterministic=False, seed=7),
        "search": lambda: SearchAgent(4, SEARCH),
    }
    for name, make in makers.items():
        deals = seeds[:SEARCH_DEALS] if name == "search" else seeds
        for allow_cycles in (False, True):
            if name == "search" and allow_cycles:
                continue
            for batch in (None, 3):
                traces: list[GameTrace] = []
                ended: list[int] = []
                results = play_deals(
                    make(),
                    env_id,
                    deals,
                    batch,
                    traces=traces,
                    allow_cycles=allow_cycles,
                    first_game=2 if batch == 3 else 0,
                    on_result=lambda i, r, t, ended=ended: ended.append(i),
                )
                _results(d, results, traces)
                d.add(ended)  # the order in which the games ended
                d.close(f"play_deals {variant} {name} cycles={allow_cycles} batch={batch}")


class OneGame:
    """An agent of the one-game protocol only (``act``, ``reset``; ``action_scores``)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name

    def reset(self, env: gym.Env) -> None:
        self.inner.reset(env)

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        return int(self.inner.act(obs, env))

    def start_games(self, spec: Any, games: np.ndarray) -> None:
        self.inner.start_games(spec, games)

    def end_games(self, games: np.ndarray) -> None:
        self.inner.end_games(games)

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        return self.inner.action_scores(obs, masks, games)


def _one_by_one(d: Digest, variant: str, env_id: str, model: Any) -> None:
    seeds = seeds_for_test(DEALS)[:8]
    makers: dict[str, Callable[[], Any]] = {
        "random": lambda: make_baseline("random", 5),
        "greedy": lambda: make_baseline("greedy", 0),
        "ppo-sampled": lambda: ModelAgent(model, "ppo-sampled", deterministic=False, seed=7),
    }
    env = gym.make(env_id)
    for name, make in makers.items():
        for allow_cycles in (False, True):
            agent = make()
            for i, seed in enumerate(seeds):
                actions: list[int] = []
                d.add(play_episode(env, agent, seed, actions, game=i, allow_cycles=allow_cycles))
                d.add(actions)
            d.close(f"play_episode {variant} {name} cycles={allow_cycles}")
    env.close()
    for allow_cycles in (False, True):  # evaluate's loop for agents of the one-game protocol
        traces: list[GameTrace] = []
        done: list[int] = []
        results = _play_one_by_one(
            OneGame(make_baseline("random", 5)),
            env_id,
            seeds,
            done.append,
            traces,
            allow_cycles,
            first_game=3,
            on_result=lambda i, r, t, done=done: done.append(-i),
        )
        _results(d, results, traces)
        d.add(done)
        d.close(f"_play_one_by_one {variant} random cycles={allow_cycles}")


def _evaluate(d: Digest, variant: str) -> None:
    report = evaluate_agents([make_baseline("greedy", 0)], variant, DEALS, per_episode=True)
    d.add(sorted(report["results"]["greedy"].items()))
    d.close(f"evaluate_agents {variant} greedy")


def _teacher(d: Digest, variant: str) -> None:
    settings = {
        "plain": [],
        "ties": ["teacher.ties=any"],
        "no_cycling": ["train.no_cycling=true", "teacher.no_cycling=true"],
        "shaping": ["train.shaping={face_down: 1.0, empty_columns: 2.0, built_runs: 0.5}"],
    }
    for label, extra in settings.items():
        path = ROOT / "configs" / f"{CONFIG_OF[variant]}.yaml"
        config = load_config(path, [*TEACHER, "env.max_episode_steps=150", *extra])
        data = collect_teacher_games(config, make_teacher("greedy", config.seed), DEALS, batch=6)
        for key in ("obs", "masks", "actions", "returns", "game", "foundation_cards", "won"):
            d.add(getattr(data, key))
        d.add(data.lengths)
        d.add(data.n_actions)
        d.add(data.ties if data.ties is not None else "no ties")
        d.close(f"collect_teacher_games {variant} {label}")


def _expert(d: Digest) -> None:
    from fortythieves_agents.training.expert import DaggerPlayer, label_game
    from fortythieves_agents.training.train import build_model

    config = load_config(
        ROOT / "configs" / "lucas.yaml",
        [*TEACHER, "policy.network=player", "env.max_episode_steps=120"],
    )
    torch.manual_seed(0)
    model = build_model(config, make_training_vec_env(config), None)
    budget = SearchBudget(samples=2, horizon=200, method="solve", nodes=100)
    env_id = env_id_for("Lucas")
    for game, seed in enumerate([11, 12]):
        player = DaggerPlayer(ModelAgent(model), SearchAgent(4, budget), 0.5, 4, 0, "soft")
        arrays = label_game(player, env_id, seed, game, 0.99, config)
        for key in sorted(arrays):
            d.add(key)
            d.add(np.asarray(arrays[key]))
    d.close("label_game Lucas")


def main() -> None:
    torch.set_num_threads(1)
    start = time.perf_counter()
    d = Digest()
    for variant in VARIANTS:
        env_id = env_id_for(variant)
        model = _tiny_model(env_id)
        _batched(d, variant, env_id, model)
        _one_by_one(d, variant, env_id, model)
        _evaluate(d, variant)
        _teacher(d, variant)
    _expert(d)
    print(f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    print(f"fingerprint {d.total.hexdigest()}")


if __name__ == "__main__":
    main()
