"""Policy input: one-hot card slots plus scaled counts.

The observation (``fortythieves_env``) is a flat ``uint8`` vector whose first
``n_card_slots`` entries are card codes (0 = empty, 1..52 = a card) and whose remaining
entries are small counts (foundation heights, face-down counts, stock size, redeals left).
A card code is a category, not a quantity, so feeding it as a number to an MLP is poor.
:class:`CardSlotsExtractor` computes, for a batch of ``B`` observations::

    cards  = one_hot(obs[:, :S], 53)                     # (B, S, 53)
    cards  = cards @ E            if card_embedding_dim  # (B, S, d), E shared by all slots
    counts = obs[:, S:] / high[S:]                       # (B, K), each in [0, 1]
    out    = act(Linear(concat(flatten(cards), counts))) # (B, features_dim)

where ``S = n_card_slots`` and ``high`` is the observation space's upper bound. The
per-slot map ``E`` (a ``Linear(53, d)`` without bias, equal to an embedding table) keeps the
first dense layer small: with ``S = 224`` (Streets) the raw one-hot would be 11 872 wide.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

__all__ = ["N_CODES", "CardSlotsExtractor"]

N_CODES = 53
"""Card codes 0..52 (0 = no card)."""


class CardSlotsExtractor(BaseFeaturesExtractor):
    """One-hot card slots (optionally embedded) and scaled counts, then one dense layer.

    Args:
        observation_space: a ``Box`` of shape ``(size,)``; its ``high`` scales the counts.
        n_card_slots: how many leading entries are card codes, from
            ``env.unwrapped.layout.n_card_slots``.
        card_embedding_dim: ``d`` of the shared per-slot linear map; 0 uses the raw one-hot.
        features_dim: output width.
        activation: ``"relu"`` or ``"tanh"``.

    Raises:
        ValueError: the space is not a 1-D ``Box`` or ``n_card_slots`` does not fit in it.
    """

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        n_card_slots: int,
        card_embedding_dim: int = 8,
        features_dim: int = 256,
        activation: str = "relu",
    ) -> None:
        if not isinstance(observation_space, gym.spaces.Box) or len(observation_space.shape) != 1:
            raise ValueError(f"expected a 1-D Box observation space, got {observation_space}")
        size = int(observation_space.shape[0])
        if not 0 < n_card_slots <= size:
            raise ValueError(f"n_card_slots must be in 1..{size}, got {n_card_slots}")
        super().__init__(observation_space, features_dim)
        self.n_card_slots = n_card_slots
        high = np.asarray(observation_space.high, dtype=np.float32)[n_card_slots:]
        self.register_buffer("count_scale", torch.as_tensor(1.0 / np.maximum(high, 1.0)))
        self.embed: nn.Module | None = None
        per_slot = N_CODES
        if card_embedding_dim > 0:
            self.embed = nn.Linear(N_CODES, card_embedding_dim, bias=False)
            per_slot = card_embedding_dim
        n_counts = size - n_card_slots
        act: type[nn.Module] = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]
        self.head = nn.Sequential(
            nn.Linear(n_card_slots * per_slot + n_counts, features_dim), act()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """Map ``(B, size)`` observations (float, as SB3 passes them) to ``(B, features_dim)``."""
        codes = observations[:, : self.n_card_slots].round().long().clamp_(0, N_CODES - 1)
        if self.embed is not None:
            # one_hot(codes) @ E.weight.T picks one column of E per slot: a lookup gives the
            # same numbers without building the (B, S, 53) one-hot (several times faster)
            cards = F.embedding(codes, self.embed.weight.t().contiguous())
        else:
            cards = F.one_hot(codes, N_CODES).to(observations.dtype)
        counts = observations[:, self.n_card_slots :] * self.count_scale
        return self.head(torch.cat([cards.flatten(1), counts], dim=1))
