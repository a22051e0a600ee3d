from __future__ import annotations

import pytest

import fortythieves_env.envs.backends as backends_module

BACKENDS = ["python", "numba"] if backends_module._HAVE_NUMBA else ["python"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test once per backend: ``backend="auto"`` (the default) means this one."""
    monkeypatch.setattr(backends_module, "_AUTO_BACKEND", request.param)
    return request.param
