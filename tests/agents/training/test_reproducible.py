"""Issue 9.6: the same seed and torch version give the same run.

Two runs of the shipped recipe (``player`` network, greedy teacher, no-cycling rule in
training, batched env), cut down to a few hundred steps, must produce the same weights and
the same final evaluation. The measured check at the quick start's budget (500 test deals)
is ``results/training/reproducibility/`` (``docs/results.md``, Reproducibility).
"""

from __future__ import annotations

from pathlib import Path

import torch
from fortythieves_agents.config import load_config
from fortythieves_agents.training.train import train
from helpers import STREETS

TINY = [
    "train.n_envs=4",
    "ppo.n_steps=32",
    "ppo.batch_size=64",
    "ppo.n_epochs=1",
    "train.total_timesteps=256",
    "train.checkpoint_freq=0",
    "train.progress_bar=false",
    "train.tensorboard=false",
    "teacher.games=6",
    "teacher.epochs=1",
    "eval.eval_freq=128",
    "eval.n_eval_episodes=3",
    "eval.final_episodes=4",
    "eval.baselines=[]",
    "env.max_episode_steps=80",
]


def _weights(model_zip: Path) -> dict[str, torch.Tensor]:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_zip, device="cpu")
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


def test_the_same_seed_gives_the_same_weights_and_figures(tmp_path: Path) -> None:
    config = load_config(STREETS, TINY)
    assert config.policy.network == "player" and config.train.teacher == "greedy"
    assert config.train.no_cycling
    results = [train(config, run_dir=tmp_path / f"run{i}", argv=["test"]) for i in range(2)]
    assert [r.status for r in results] == ["completed", "completed"]
    first, second = (_weights(r.model_path) for r in results)  # type: ignore[arg-type]
    assert first.keys() == second.keys()
    for key in first:
        assert torch.equal(first[key], second[key]), key
    assert results[0].evaluation is not None
    assert results[0].evaluation == results[1].evaluation

    # a different seed is a different run (the check above can fail)
    other = load_config(STREETS, [*TINY, "seed=1"])
    third = _weights(train(other, run_dir=tmp_path / "run2", argv=["test"]).model_path)  # type: ignore[arg-type]
    assert any(not torch.equal(first[k], third[k]) for k in first)
