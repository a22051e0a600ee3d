"""Config overrides shared by the tests that train or build models.

The shipped configs train the ``player`` network, start from a greedy teacher (behaviour
cloning of 200 games) and follow the no-cycling rule in training (batched env only). Tests of
the training machinery (run folders, resume, vector envs, Ray, the CLI) do not need any of
that and must stay fast, so they start from :data:`PLAIN`; tests of the network, the teacher
or the rule set those keys themselves, after it.
"""

from __future__ import annotations

PLAIN = ["policy.network=card_slots", "train.teacher=null", "train.no_cycling=false"]
"""The stock network, no teacher, no no-cycling rule in training (any ``train.vec_env``)."""

TINY = [
    *PLAIN,
    "train.total_timesteps=64",
    "train.n_envs=1",
    "train.vec_env=dummy",
    "train.progress_bar=false",
    "train.tensorboard=false",
    "train.checkpoint_freq=0",
    "ppo.n_steps=64",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "policy.features_dim=16",
    "policy.net_arch_pi=[16]",
    "policy.net_arch_vf=[16]",
    "env.max_episode_steps=40",
    "eval.eval_freq=0",
    "eval.final_episodes=1",
    "expert.games=1",
    "expert.search_seconds=0.002",
    "expert.validation_games=1",
    "expert.epochs=1",
]
"""A training run of a few seconds (64 steps, tiny networks, one final deal; a config's
expert iterations, if it has any, one short game each): for the tests that run a shown
command or an installed package end to end."""


def with_set(overrides: list[str]) -> list[str]:
    """``overrides`` as command-line arguments: ``--set`` before each one."""
    return [arg for item in overrides for arg in ("--set", item)]


FAMILY_TINY = [
    "train.total_timesteps=64",
    "train.n_envs=2",
    "train.progress_bar=false",
    "train.tensorboard=false",
    "train.checkpoint_freq=0",
    "ppo.n_steps=32",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "teacher.games=2",
    "teacher.epochs=1",
    "eval.eval_freq=0",
    "eval.final_episodes=1",
    "family.zero_shot.episodes=1",
    "family.zero_shot.outside=1",
    "family.zero_shot.games=[NumberTen]",
]
"""A family run (``fortythieves train family``) of a few seconds: 64 steps, greedy's clone
on two games, one deal of the final evaluation (the zero-shot one on Number Ten)."""

FAMILY_SMALL = [
    "policy.player.card_dim=4",
    "policy.player.column_dim=8",
    "policy.player.state_dim=8",
    "policy.player.scorer_arch=[8]",
    "policy.player.value_arch=[8]",
]
"""A small family network (not with ``family.start_model``: the start model's sizes)."""
