"""Built-in and custom ids work in ``spawn`` and ``forkserver`` workers (issue 7, point 4).

Such a worker starts with an empty Gymnasium registry (no ``FortyThieves`` namespace) and
never runs the test's ``register_variant`` call: what it needs must travel with the factory.
Worker start-up is slow (imports), so each test starts few, small workers.
"""

from __future__ import annotations

import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import fortythieves_env
from fortythieves_env import EnvFactory, VariantId, VariantSpec

# Streets' shapes (so the envs stack in one VecEnv) but other step limits: a worker that
# made Streets instead would show 1000.
SHORT = VariantSpec("ShortStreets", "Short Streets", 10, 0, 4, "alternate_colour", False,
                    max_episode_steps=7)  # fmt: skip
SHORTER = VariantSpec("ShorterStreets", "Shorter Streets", 10, 0, 4, "alternate_colour", False,
                      max_episode_steps=5)  # fmt: skip


def _specs(venv: SubprocVecEnv) -> list[tuple[str, int]]:
    return [(spec.id, spec.max_episode_steps) for spec in venv.get_attr("spec")]


def _truncation_steps(venv: SubprocVecEnv, n_steps: int) -> list[list[int]]:
    """The steps (1-based) at which each env's episode ended, playing its first legal move."""
    venv.reset()
    ends: list[list[int]] = [[] for _ in range(venv.num_envs)]
    for step in range(1, n_steps + 1):
        masks = venv.env_method("action_masks")
        _, _, dones, _ = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        for i in np.flatnonzero(dones):
            ends[i].append(step)
    return ends


def test_sb3_subprocess_workers_make_every_form_of_id() -> None:
    short_id = fortythieves_env.register_variant(SHORT)
    env_fns = [
        lambda: gym.make(short_id),  # the id register_variant returned
        lambda: gym.make("fortythieves_env:FortyThieves/Streets-v0"),  # the module prefix
        EnvFactory(SHORTER),  # a factory that carries the spec
    ]
    venv = SubprocVecEnv(env_fns, start_method="forkserver")  # SB3's default on Linux
    try:
        assert _specs(venv) == [
            ("FortyThieves/ShortStreets-v0", 7),
            ("FortyThieves/Streets-v0", 1000),
            ("FortyThieves/ShorterStreets-v0", 5),
        ]
        venv.reset()
        assert [s["variant"] for s in venv.env_method("get_state")] == [
            "ShortStreets",
            "Streets",
            "ShorterStreets",
        ]
        ends = _truncation_steps(venv, 10)
        assert ends[0] == [7] and ends[2] == [5, 10]
    finally:
        venv.close()


def test_sb3_spawn_worker_makes_the_returned_id() -> None:
    short_id = fortythieves_env.register_variant(SHORT)
    venv = SubprocVecEnv([lambda: gym.make(short_id)], start_method="spawn")
    try:
        assert _specs(venv) == [("FortyThieves/ShortStreets-v0", 7)]
        assert _truncation_steps(venv, 7) == [[7]]
    finally:
        venv.close()


@pytest.mark.parametrize("context", ["forkserver", "spawn"])
def test_gymnasium_async_workers_make_custom_ids(context: str) -> None:
    short_id = fortythieves_env.register_variant(SHORT)
    fortythieves_env.register_variant(SHORTER)
    # a plain lambda over the returned id, and gymnasium.make_vec of a typed id (it sends the
    # EnvSpec to its workers)
    by_lambda = AsyncVectorEnv([lambda: gym.make(short_id)], context=context)
    by_make_vec = gym.make_vec(
        "FortyThieves/ShorterStreets-v0",
        num_envs=1,
        vectorization_mode="async",
        vector_kwargs={"context": context},
    )
    try:
        for venv, limit in ((by_lambda, 7), (by_make_vec, 5)):
            _, info = venv.reset(seed=3)
            for step in range(1, limit + 1):
                action = np.array([int(np.flatnonzero(info["action_mask"][0])[0])])
                _, _, terminated, truncated, info = venv.step(action)
                assert bool(truncated[0]) == (step == limit) and not terminated[0]
    finally:
        by_lambda.close()
        by_make_vec.close()


def test_sb3_make_vec_env_with_the_returned_id() -> None:
    short_id = fortythieves_env.register_variant(SHORT)
    # render_mode=None: make_vec_env asks for "rgb_array" by default, which the env refuses
    venv = make_vec_env(
        short_id, n_envs=1, vec_env_cls=SubprocVecEnv, env_kwargs={"render_mode": None}
    )
    try:
        assert _specs(venv) == [("FortyThieves/ShortStreets-v0", 7)]
    finally:
        venv.close()


def test_variant_id_is_a_plain_equal_string_that_carries_its_spec() -> None:
    short_id = fortythieves_env.register_variant(SHORT)
    assert isinstance(short_id, VariantId) and isinstance(short_id, str)
    assert short_id == "FortyThieves/ShortStreets-v0" and short_id.spec == SHORT
    assert type(str(short_id)) is str
    assert {short_id: 1}["FortyThieves/ShortStreets-v0"] == 1
    copy = pickle.loads(pickle.dumps(short_id))
    assert copy == short_id and copy.spec == SHORT
    # a fresh interpreter, which has never registered the variant, makes it from the pickle
    code = (
        "import pickle, sys, gymnasium as gym\n"
        "env = gym.make(pickle.loads(sys.stdin.buffer.read()))\n"
        "print(env.spec.id, env.spec.max_episode_steps, env.unwrapped.variant.name)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps(short_id),
        capture_output=True,
        check=True,
    )
    assert out.stdout.decode().split() == ["FortyThieves/ShortStreets-v0", "7", "Short", "Streets"]


def test_env_factory_forms_and_errors() -> None:
    factory = EnvFactory("fortythieves_env:FortyThieves/Maria-v0", max_episode_steps=3)
    assert factory.spec.id == "FortyThieves/Maria-v0"
    env = factory(render_mode="ansi")
    assert env.spec.max_episode_steps == 3 and env.render_mode == "ansi"
    assert EnvFactory(factory.spec).spec == factory.spec
    assert repr(factory) == "EnvFactory('FortyThieves/Maria-v0', max_episode_steps=3)"
    again = pickle.loads(pickle.dumps(factory))
    assert again.spec == factory.spec and again.kwargs == {"max_episode_steps": 3}
    with pytest.raises(gym.error.NameNotFound):
        EnvFactory("FortyThieves/Klondike-v0")
    with pytest.raises(TypeError, match="EnvFactory takes an env id, a VariantSpec or an EnvSpec"):
        EnvFactory(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="already registered for a different variant"):
        EnvFactory(VariantSpec("Streets", "Not Streets", 9, 0, 4, "same_suit", False))
