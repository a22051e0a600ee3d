"""The ``MaskablePPO`` model of a config: its policy (``policy.network``: ``card_slots`` or
``player``), a fresh model, and how a checkpoint's network differs from a config's."""

from __future__ import annotations

from typing import Any

from ..config import Config
from ..envs import n_card_slots, tag_model

__all__ = [
    "build_model",
    "policy_differences",
    "policy_for",
]


def policy_for(config: Config, n_slots: int) -> tuple[Any, dict[str, Any]]:
    """``MaskablePPO``'s policy and ``policy_kwargs`` for ``config.policy``.

    ``policy.network`` chooses SB3's stock ``"MlpPolicy"`` over
    :class:`fortythieves_agents.networks.features.CardSlotsExtractor` with ``n_slots`` card slots
    (``card_slots``), or :class:`fortythieves_agents.networks.policy.PlayerPolicy` (``player``).
    """
    import torch

    from ..networks.features import CardSlotsExtractor
    from ..networks.policy import PlayerPolicy

    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[config.policy.activation]
    if config.policy.network == "player":
        spec = config.env.variant_spec()
        return PlayerPolicy, {
            "variant": spec if spec is not None else config.env.variant,
            **config.policy.player.model_dump(),
            "activation_fn": activation,
        }
    return "MlpPolicy", {
        "features_extractor_class": CardSlotsExtractor,
        "features_extractor_kwargs": {
            "n_card_slots": n_slots,
            "card_embedding_dim": config.policy.card_embedding_dim,
            "features_dim": config.policy.features_dim,
            "activation": config.policy.activation,
        },
        "net_arch": {"pi": list(config.policy.net_arch_pi), "vf": list(config.policy.net_arch_vf)},
        "activation_fn": activation,
    }


def build_model(config: Config, env: Any, tensorboard_log: str | None) -> Any:
    """A fresh ``MaskablePPO`` for ``config`` on vectorised ``env`` (see :func:`policy_for`).

    SB3 seeds the process-wide generators here with ``config.seed`` (Python's ``random``,
    numpy's global generator and torch's, through ``set_random_seed``); they are not put back.
    """
    from sb3_contrib import MaskablePPO

    policy, policy_kwargs = policy_for(config, n_card_slots(env))
    model = MaskablePPO(
        policy,
        env,
        **config.ppo.model_dump(),
        policy_kwargs=policy_kwargs,
        tensorboard_log=tensorboard_log,
        seed=config.seed,
        device=config.train.device,
        verbose=0,
    )
    tag_model(model, config.env)
    return model


def policy_differences(saved: dict[str, Any], config: Config) -> list[str]:
    """The ``policy.*`` keys of ``config`` whose network differs from a checkpoint's.

    Args:
        saved: the checkpoint's ``policy_kwargs`` (``model.policy_kwargs`` after loading).
        config: the configuration to compare.

    Returns:
        One ``"policy.<key> is <saved> in the checkpoint, <config> in the config"`` line per
        difference (empty when the network is the same).
    """
    from ..networks.features import CardSlotsExtractor

    extractor = saved.get("features_extractor_class")
    network = "card_slots" if extractor is CardSlotsExtractor else "player"
    if "card_dim" not in saved and network == "player":
        name = getattr(extractor, "__name__", repr(extractor))
        return [f"policy: the checkpoint's network ({name}) is neither card_slots nor player"]
    if network != config.policy.network:
        return [
            f"policy.network is {network} in the checkpoint, {config.policy.network} in the config"
        ]
    if network == "player":
        defaults = {k: f.default for k, f in type(config.policy.player).model_fields.items()}
        pairs = {  # a key older checkpoints lack (unseen_inputs) holds its default
            f"player.{key}": list(saved[key])
            if isinstance(saved.get(key), tuple)
            else saved.get(key, defaults[key])
            for key in config.policy.player.model_dump()
        }
        current = {f"player.{k}": v for k, v in config.policy.player.model_dump().items()}
    else:
        features = saved.get("features_extractor_kwargs", {})
        net_arch = saved.get("net_arch", {})
        net_arch = net_arch if isinstance(net_arch, dict) else {"pi": net_arch, "vf": net_arch}
        pairs = {
            "card_embedding_dim": features.get("card_embedding_dim"),
            "features_dim": features.get("features_dim"),
            "activation": features.get("activation"),
            "net_arch_pi": list(net_arch.get("pi", [])),
            "net_arch_vf": list(net_arch.get("vf", [])),
        }
        current = {key: getattr(config.policy, key) for key in pairs}
    return [
        f"policy.{key} is {old} in the checkpoint, {current[key]} in the config"
        for key, old in pairs.items()
        if old != current[key]
    ]
