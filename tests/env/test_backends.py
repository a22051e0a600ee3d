"""The backend objects behind FortyThievesEnv (:mod:`fortythieves_env.envs.backends`): one
protocol, two implementations that agree on everything through it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import fortythieves_env
import fortythieves_env.envs.backends as backends_module
from fortythieves_env import VARIANTS, FortyThievesEnv
from fortythieves_env.envs.backends import (
    NumbaBackend,
    PythonBackend,
    make_backend,
    resolve_backend,
)
from fortythieves_env.rules.engine import rules_for

KINDS = {"python": PythonBackend, "numba": NumbaBackend}


def test_the_backend_fixture_reaches_the_environment(backend: str) -> None:
    """``backend="auto"`` (the default) follows the fixture, so the env tests run on both."""
    env = FortyThievesEnv("Maria")
    assert env.backend == backend and type(env._backend) is KINDS[backend]
    made = gym.make(fortythieves_env.env_id("Maria"))
    assert made.unwrapped.backend == backend


def test_resolve_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_backend("python") == "python"
    assert resolve_backend("auto") == backends_module._AUTO_BACKEND
    with pytest.raises(ValueError, match="backend must be 'auto', 'numba' or 'python', got 'cuda'"):
        resolve_backend("cuda")
    monkeypatch.setattr(backends_module, "_HAVE_NUMBA", False)
    with pytest.raises(ValueError, match=r"backend='numba' needs numba \(pip install numba\)"):
        FortyThievesEnv("Maria", backend="numba")


@pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")
@pytest.mark.parametrize("variant", ["FortyThieves", "NumberTen", "LittleForty"])
def test_both_backends_agree_through_the_protocol(variant: str) -> None:
    spec = VARIANTS[variant]
    rules = rules_for(spec)
    py, nb = make_backend("python", spec), make_backend("numba", spec)
    assert (py.name, nb.name) == ("python", "numba")
    for b in (py, nb):  # no game yet: every action is refused, nothing to read
        assert not b.has_game and b.position() is None and b.snapshot() is None
        assert b.legal_actions() == [] and b.step(0) == -1
        assert not b.obs.any() and not b.mask.any()
    rng = np.random.default_rng(5)
    state = rules.deal(rng)
    assert py.load(state.copy()) == nb.load(state.copy()) == len(rules.legal_actions(state))
    for _ in range(300):
        legal = py.legal_actions()
        assert legal == nb.legal_actions() == np.flatnonzero(py.mask).tolist()
        assert np.array_equal(py.obs, nb.obs) and np.array_equal(py.mask, nb.mask)
        assert py.position() == nb.position() == py.snapshot()
        if not legal:
            break
        illegal = int(np.flatnonzero(py.mask == 0)[0])
        assert py.step(illegal) == nb.step(illegal) == -1
        action = legal[int(rng.integers(len(legal)))]
        code = py.step(action)
        assert code == nb.step(action) >= 0
        assert code >> 8 == len(py.legal_actions())
        assert (code >> 1) & 127 == py.position().foundation_cards
    snap = nb.snapshot()
    snap.tableau[0].append(1)  # a snapshot is independent of the game
    assert nb.position() == py.position()
    for b in (py, nb):  # loading None clears the game
        assert b.load(None) == 0
        assert not b.has_game and b.position() is None and b.step(0) == -1
        assert not b.obs.any() and not b.mask.any()
