"""The one-hot card features extractor."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from fortythieves_agents.networks.features import N_CODES, CardSlotsExtractor

import fortythieves_env


@pytest.fixture(scope="module")
def env() -> gym.Env:
    return gym.make(fortythieves_env.env_id("Streets"))


@pytest.mark.parametrize("embedding", [0, 8])
def test_output_shape_and_dtype(env: gym.Env, embedding: int) -> None:
    slots = env.unwrapped.layout.n_card_slots
    extractor = CardSlotsExtractor(env.observation_space, slots, embedding, features_dim=32)
    obs = np.stack([env.reset(seed=s)[0] for s in range(3)])
    out = extractor(torch.as_tensor(obs, dtype=torch.float32))
    assert out.shape == (3, 32)
    assert out.dtype == torch.float32
    assert extractor.features_dim == 32


def test_card_codes_are_categories_not_magnitudes(env: gym.Env) -> None:
    """Without embedding the first layer sees exactly one-hot codes and scaled counts."""
    slots = env.unwrapped.layout.n_card_slots
    extractor = CardSlotsExtractor(env.observation_space, slots, 0, features_dim=4)
    linear = extractor.head[0]
    size = env.observation_space.shape[0]
    assert linear.in_features == slots * N_CODES + (size - slots)
    captured: list[torch.Tensor] = []
    linear.register_forward_hook(lambda _m, inputs, _o: captured.append(inputs[0]))
    obs, _ = env.reset(seed=5)
    extractor(torch.as_tensor(obs[None], dtype=torch.float32))
    x = captured[0][0]
    cards = x[: slots * N_CODES].reshape(slots, N_CODES)
    assert torch.equal(cards.sum(dim=1), torch.ones(slots))
    assert torch.equal(cards.argmax(dim=1), torch.as_tensor(obs[:slots], dtype=torch.long))
    counts = x[slots * N_CODES :]
    assert float(counts.min()) >= 0.0 and float(counts.max()) <= 1.0


def test_bad_arguments(env: gym.Env) -> None:
    with pytest.raises(ValueError, match="n_card_slots"):
        CardSlotsExtractor(env.observation_space, 10_000)
    with pytest.raises(ValueError, match="1-D Box"):
        CardSlotsExtractor(gym.spaces.Box(0, 1, (2, 2), dtype=np.uint8), 1)


def test_embedding_lookup_equals_the_one_hot_product(env: gym.Env) -> None:
    """The lookup the extractor uses gives exactly ``one_hot(codes) @ E.weight.T``, forward
    and backward."""
    slots = env.unwrapped.layout.n_card_slots
    torch.manual_seed(0)
    extractor = CardSlotsExtractor(env.observation_space, slots, 8, features_dim=16)
    obs = torch.as_tensor(np.stack([env.reset(seed=s)[0] for s in range(4)]), dtype=torch.float32)
    out = extractor(obs)
    out.sum().backward()
    grad = extractor.embed.weight.grad.clone()
    extractor.zero_grad()
    codes = obs[:, :slots].long()
    cards = extractor.embed(torch.nn.functional.one_hot(codes, N_CODES).float())
    counts = obs[:, slots:] * extractor.count_scale
    reference = extractor.head(torch.cat([cards.flatten(1), counts], dim=1))
    reference.sum().backward()
    assert torch.equal(out, reference)
    assert torch.allclose(grad, extractor.embed.weight.grad, rtol=1e-6, atol=1e-7)
