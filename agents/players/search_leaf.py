"""A learned value for the samples the solver leaves unknown (issue 40, point 3).

The search agent's solving setting (:func:`~.search_scores.solve_scores`) values a sampled
child by solving it with a node cap (1,000 by default): 1 won, 0 lost, and, when the cap runs
out (on the hard variants most samples), ``cards / 208`` with ``cards`` the foundation cards
of the best line the solver met (``leaf="cards"``, the default). ``leaf="learned"`` replaces
that last value by a prediction of what a solve with many more nodes says of the same child
(:data:`DEEP_NODES`): a logistic model over a few features of the child (:func:`leaf_features`)
and the capped solve's own ``cards``, fitted per variant on sampled positions of training
deals by ``scripts/search/fit_leaf_value.py`` (soft labels: 1 won, 0 lost, ``cards / 208``
unknown, the same scale as the default's, so a win by the capped solve still counts more
than any unknown). It distils a deeper search into the leaf, the usual way to give a capped
search a better horizon; the child is a sample (clairvoyant within it, as the solve is), so
the features may read its face-down cards.

The fitted weights ship in ``leaf_values.json`` beside this module (one entry per variant,
with the command and the fit's figures); :func:`leaf_model` reads them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from fortythieves_env.rules.cards import N_CARDS
from fortythieves_env.rules.jit import kernel
from fortythieves_env.rules.tables import (
    H_ACCEPTS,
    H_C,
    H_FD,
    H_FOUND,
    H_LEN,
    H_SCAL,
    H_V,
    S_FCARDS,
    S_NSTOCK,
    S_NWASTE,
    S_REDEALS,
)

__all__ = [
    "DEEP_NODES",
    "FEATURES",
    "N_FEATURES",
    "UNKNOWN_WEIGHT",
    "LeafModel",
    "fitted_variants",
    "leaf_features",
    "leaf_model",
]

FEATURES = (
    "bias",
    "foundation_cards",
    "face_down",
    "stock",
    "waste",
    "empty_columns",
    "blockers",
    "built",
    "redeals_left",
    "lowest_foundation",
    "solve_cards",
)
"""The model's inputs, in order (:func:`leaf_features` writes all but the last; each a count
scaled to about [0, 1]): a constant 1; the cards on the foundations / 104; face-down cards in
the tableau / 104; cards in the stock / 104; in the waste / 104; empty columns / columns;
*blockers* / 104 (tableau cards lying above a lower card of their suit in their column, face
down or up: each must leave before that card can go up); *built* / 104 (cards lying face up
on a card that takes them by the build rule); the redeals left; the lowest foundation's
height / 13; and the capped solve's best-line foundation cards / 104."""

N_FEATURES = len(FEATURES)
UNKNOWN_WEIGHT = 0.5 / float(N_CARDS)
"""A sample whose solve ran out of nodes is worth ``cards / 208`` (below 1/2) by default
(``leaf="cards"``): less than a win, more than a proven loss, more with more foundation
cards on the line the solver met. The learned model's labels use the same scale."""
DEEP_NODES = 300_000
"""The node cap of the solve whose verdict the model predicts (the training labels)."""
_SCALE = 1.0 / float(N_CARDS)


@kernel
def leaf_features(st: np.ndarray, tb: np.ndarray, out: np.ndarray) -> None:
    """Write the features of state array ``st`` (``int16``) into ``out`` (``float64``, shape
    ``(N_FEATURES,)``): every entry of :data:`FEATURES` but the last, which is left as it
    is (the caller writes the solve's cards there). No allocation."""
    n_col = tb[H_C]
    slots = tb[H_V]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    found0 = tb[H_FOUND]
    scal = tb[H_SCAL]
    acc = tb[H_ACCEPTS]
    face_down = 0
    empty = 0
    blockers = 0
    built = 0
    for c in range(n_col):
        n = st[len0 + c]
        down = st[fd0 + c]
        face_down += down
        if n == 0:
            empty += 1
            continue
        base = c * slots
        for i in range(1, n):
            card = st[base + i] - 1
            suit = card // 13
            rank = card % 13
            for j in range(i):
                other = st[base + j] - 1
                if other // 13 == suit and other % 13 < rank:
                    blockers += 1
                    break
            if i > down and tb[acc + st[base + i - 1] * 53 + st[base + i]] != 0:
                built += 1
    lowest = 13
    for p in range(8):
        h = st[found0 + p]
        if h < lowest:
            lowest = h
    out[0] = 1.0
    out[1] = st[scal + S_FCARDS] * _SCALE
    out[2] = face_down * _SCALE
    out[3] = st[scal + S_NSTOCK] * _SCALE
    out[4] = st[scal + S_NWASTE] * _SCALE
    out[5] = empty / n_col
    out[6] = blockers * _SCALE
    out[7] = built * _SCALE
    out[8] = st[scal + S_REDEALS]
    out[9] = lowest / 13.0


@dataclass(frozen=True)
class LeafModel:
    """One variant's fitted leaf value: ``sigmoid(weights . features)``.

    Attributes:
        variant: the variant's id.
        weights: ``float64``, shape ``(N_FEATURES,)``, in :data:`FEATURES` order.
    """

    variant: str
    weights: np.ndarray

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (N_FEATURES,) or not np.all(np.isfinite(w)):
            raise ValueError(
                f"leaf model {self.variant}: need {N_FEATURES} finite weights, got shape {w.shape}"
            )
        object.__setattr__(self, "weights", w)

    def value(self, features: np.ndarray, cards: int) -> float:
        """The predicted deep value (in ``(0, 1)``) of a child whose features
        (:func:`leaf_features`, ``float64``) are ``features`` and whose capped solve ended
        with ``cards`` foundation cards on its best line; ``features[-1]`` is overwritten."""
        features[-1] = cards * _SCALE
        z = float(features @ self.weights)
        return 1.0 / (1.0 + np.exp(-z)) if z > -700.0 else 0.0


def _table() -> dict[str, dict]:
    text = resources.files(__package__).joinpath("leaf_values.json").read_text()
    return json.loads(text)["variants"]


def fitted_variants() -> tuple[str, ...]:
    """The variants with a shipped leaf model (``leaf_values.json``), sorted."""
    return tuple(sorted(_table()))


@cache
def leaf_model(variant: str) -> LeafModel:
    """The shipped leaf model of ``variant`` (its id, e.g. ``"Indian"``).

    Raises:
        ValueError: no model was fitted for ``variant`` (the message names those that were).
    """
    table = _table()
    if variant not in table:
        raise ValueError(
            f"search: no learned leaf value for {variant!r}; fitted for: "
            f"{', '.join(sorted(table)) or 'none'} (scripts/search/fit_leaf_value.py)"
        )
    return LeafModel(variant, np.array(table[variant]["weights"], dtype=np.float64))
