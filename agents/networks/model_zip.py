"""Load a model zip from someone else without running code from it.

A stable-baselines3 zip holds ``data`` (JSON), ``policy.pth`` (the policy's weights),
``policy.optimizer.pth``, ``pytorch_variables.pth`` and two text files. SB3's own loader
(``MaskablePPO.load``) unpickles with cloudpickle every ``data`` entry that was not plain
JSON when saved, its ``":serialized:"`` fields: ``policy_class``, ``policy_kwargs``, the
spaces, the schedules, the rollout buffer class. Unpickling calls whatever the pickle
names, so opening a zip someone sent could run any code. :func:`load_inference_model`,
which ``fortythieves evaluate`` (a model as ``RUN_OR_MODEL``), ``fortythieves play
--hint-model`` and the final evaluation of ``train`` use (through
:func:`fortythieves_agents.evaluation.evaluate.load_model_agent`), reads weights and documented
metadata only:

**Read.** From ``data``, parsed with :func:`json.loads` (at most
:data:`MAX_DATA_BYTES`, nested at most
:data:`~fortythieves_env.rules.checks.MAX_JSON_NESTING` levels), the plain JSON beside
the pickles and nothing else:

- ``policy_class``: its ``__module__`` and the class name in its ``__init__`` entry
  (``"<function PlayerPolicy.__init__ at 0x...>"``), looked up in :data:`POLICY_CLASSES`;
- ``policy_kwargs``: the keys of :data:`PLAYER_KEYS` (the family's network: without
  ``variant``) or :data:`STOCK_KEYS` (by the class),
  each a number, a list of numbers, a bool or one of the names of :data:`ACTIVATIONS`,
  :data:`EXTRACTORS` and ``"relu"``/``"tanh"``; ``optimizer_class`` and ``optimizer_kwargs``
  are ignored (an evaluated model builds no optimizer: :class:`NoOptimizer`);
- ``observation_space`` and ``action_space``: the type name, ``dtype``, ``_shape``,
  ``low``, ``high``, ``n``, ``start``, compared with the environment's spaces, which the
  model then uses (so they must be equal);
- ``num_timesteps`` and the ``fortythieves_variant_spec`` of a custom variant (plain values);
- ``fortythieves_rules_version``: the :data:`fortythieves_env.RULES_VERSION` the model was
  trained under (missing in a zip saved before it was recorded: rules version 1).

From ``policy.pth``: ``torch.load(..., weights_only=True)``, a mapping of names to tensors
(torch's restricted unpickler, which builds tensors and plain containers and refuses any
other object), loaded into the rebuilt policy with ``strict=True``.

**Never read.** ``":serialized:"`` fields, ``policy.optimizer.pth``,
``pytorch_variables.pth``, ``system_info.txt``.

**Refused** (:class:`ModelMismatchError`, one line naming the path
and what the zip needs): a model trained under other rules (``model.zip: the model was made
under rules version 2, not the current rules version 1; train it again under these rules``),
a policy class not in :data:`POLICY_CLASSES` (``model.zip: policy_class
evil.Policy is not one this package builds; refusing to unpickle it``), a ``policy_kwargs``
key this module does not read or a value of the wrong kind, an activation or features
extractor not in the tables, spaces that differ from the environment's or that the data
records only as a pickle, a ``policy.pth`` that is not plain weights or does not fit the
network the data describes.

**Own checkpoints.** ``train --resume`` continues from a zip with SB3's own loader
(:func:`load_maskable_ppo`), which unpickles: resuming needs the
optimizer state and the schedules, and the files are the user's own run's.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = [
    "ACTIVATIONS",
    "EXTRACTORS",
    "MAX_DATA_BYTES",
    "PLAYER_KEYS",
    "POLICY_CLASSES",
    "RENAMED",
    "STOCK_KEYS",
    "InferenceModel",
    "ModelMismatchError",
    "NoOptimizer",
    "check_model_rules",
    "check_model_spaces",
    "custom_objects",
    "load_inference_model",
    "load_maskable_ppo",
    "model_data",
    "model_env_id",
    "model_rules_version",
    "model_variant",
]

POLICY_CLASSES = (
    "fortythieves_agents.networks.policy.PlayerPolicy",
    "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy",
    "fortythieves_agents.networks.family_policy.FamilyPlayerPolicy",
)
"""The policy classes a zip may name (``policy.network: player``, SB3's ``"MlpPolicy"``
of ``policy.network: card_slots`` and of models made with the stock policy, and the
family's network, :mod:`fortythieves_agents.networks.family_policy`)."""

ACTIVATIONS = ("torch.nn.modules.activation.ReLU", "torch.nn.modules.activation.Tanh")
"""The ``activation_fn`` values read (the configs' ``relu`` and ``tanh``), as SB3 writes a
class in ``data``: ``"<class 'torch.nn.modules.activation.ReLU'>"``."""

EXTRACTORS = (
    "fortythieves_agents.networks.features.CardSlotsExtractor",
    "stable_baselines3.common.torch_layers.FlattenExtractor",
)
"""The ``features_extractor_class`` values read (the stock policy's; its default is
``FlattenExtractor``)."""

RENAMED = {
    "agents.policy.PlayerPolicy": POLICY_CLASSES[0],
    "agents.features.CardSlotsExtractor": EXTRACTORS[0],
    "fortythieves_agents.policy.PlayerPolicy": POLICY_CLASSES[0],
    "fortythieves_agents.features.CardSlotsExtractor": EXTRACTORS[0],
    "agents.networks.policy.PlayerPolicy": POLICY_CLASSES[0],
    "agents.networks.features.CardSlotsExtractor": EXTRACTORS[0],
}
"""Class names of models saved under earlier module paths, read as today's: the package's
import name was ``agents`` (the OpenAI Agents SDK's name) until version 0.x, and the
network modules stood at the package's top (``fortythieves_agents.policy``) until they moved
to ``fortythieves_agents.networks`` (every shipped model and any run made before either change);
a checkout's folder imported as ``agents`` (``python -m agents.cli.main``) writes
``agents.networks...``."""

_CLASS_TEXT = re.compile(r"<class '([\w.]+)'>")
_INIT_TEXT = re.compile(r"<function (\w+)\.__init__ at 0x[0-9a-fA-F]+>")
_SPACE_TYPES = {
    gym.spaces.Box: "<class 'gymnasium.spaces.box.Box'>",
    gym.spaces.Discrete: "<class 'gymnasium.spaces.discrete.Discrete'>",
}
_IGNORED_KEYS = frozenset({"optimizer_class", "optimizer_kwargs", ":type:", ":serialized:"})


class ModelMismatchError(Exception):
    """A saved model does not fit the requested variant or its environment's spaces."""


MAX_DATA_BYTES = 16 * 2**20
"""Largest ``data`` entry of a model zip read (a model's is about 30 KB)."""


def model_data(path: str | Path) -> dict[str, Any]:
    """A model zip's ``data`` entry, parsed as plain JSON (its pickles are left as text).

    Raises:
        ModelMismatchError: ``path`` is not a regular file (a FIFO is refused, not read:
            :func:`fortythieves_env.records.files.open_user_file`) or not an SB3 model zip, or its
            ``data`` is over
            :data:`MAX_DATA_BYTES` or nested deeper than ``MAX_JSON_NESTING``.
    """
    from fortythieves_env.records.files import UserFileError, open_user_file
    from fortythieves_env.rules.checks import MAX_JSON_NESTING, json_depth

    try:
        with open_user_file(path) as file, zipfile.ZipFile(file) as archive:
            if archive.getinfo("data").file_size > MAX_DATA_BYTES:
                raise ValueError(f"its data entry is over {MAX_DATA_BYTES} bytes")
            text = archive.read("data").decode("utf-8")
            if json_depth(text) > MAX_JSON_NESTING:
                raise ValueError(f"its data nests deeper than {MAX_JSON_NESTING} levels")
            data = json.loads(text)
    except UserFileError as exc:
        raise ModelMismatchError(str(exc)) from None
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise ModelMismatchError(f"{path}: not a saved SB3 model ({exc})") from None
    return data if isinstance(data, dict) else {}


def model_variant(path: str | Path) -> str | None:
    """The variant id saved with a model zip (attribute ``fortythieves_variant``), if any.

    Reads only the zip's ``data`` entry, without building the policy.

    Raises:
        ModelMismatchError: ``path`` is not an SB3 model zip.
    """
    value = model_data(path).get("fortythieves_variant")
    return value if isinstance(value, str) else None


def model_rules_version(path: str | Path) -> int:
    """The rules version a model zip was trained under (attribute
    ``fortythieves_rules_version``); 1 for a model saved before that attribute existed
    (every model until then was trained under rules version 1).

    Raises:
        ModelMismatchError: ``path`` is not an SB3 model zip, or the recorded version is
            not a positive integer.
    """
    return _rules_version(path, model_data(path))


def _rules_version(path: str | Path, data: dict[str, Any]) -> int:
    """:func:`model_rules_version` of a zip's parsed ``data``."""
    from fortythieves_env.rules.variants import recorded_rules_version

    value = data.get("fortythieves_rules_version")
    try:
        return recorded_rules_version(value)
    except ValueError:
        raise ModelMismatchError(
            f"{path}: fortythieves_rules_version must be a positive integer, got {value!r}"
        ) from None


def check_model_rules(path: str | Path, data: dict[str, Any] | None = None) -> None:
    """Refuse a model zip trained under other rules than the current
    :data:`fortythieves_env.RULES_VERSION` (its ``data`` is read unless given).

    Raises:
        ModelMismatchError: the model was trained under other rules (one line naming both
            rules versions: ``model.zip: the model was made under rules version 2, not the
            current rules version 1; train it again under these rules``), or
            :func:`model_rules_version` fails.
    """
    from fortythieves_env.rules.variants import rules_version_mismatch

    mismatch = rules_version_mismatch(
        _rules_version(path, model_data(path) if data is None else data)
    )
    if mismatch:
        raise ModelMismatchError(
            f"{path}: the model was {mismatch}; train it again under these rules"
        )


def check_model_spaces(
    path: str | Path,
    observation_space: gym.spaces.Space,
    action_space: gym.spaces.Space,
    env_name: str,
    data: dict[str, Any] | None = None,
) -> None:
    """Refuse a model zip whose saved spaces are not the environment's.

    Args:
        path: the model ``.zip`` (named in the message).
        observation_space, action_space: the environment's.
        env_name: how the environment is named in the message (``"variant 'Streets'"``).
        data: the zip's ``data`` entry if already read (:func:`model_data`).

    Raises:
        ModelMismatchError: a saved space is missing or differs (one line, both described).
    """
    data = model_data(path) if data is None else data
    for name, space in (("observation_space", observation_space), ("action_space", action_space)):
        if not _space_fits(data.get(name), space):
            raise ModelMismatchError(
                f"{path}: the model's {name} {_describe_saved(data.get(name))} does not "
                f"match {env_name}'s {_describe(space)}"
            )


def model_env_id(path: str | Path) -> str | None:
    """The env id a model zip was made for (attribute ``fortythieves_env_id``); for a model
    saved before that attribute existed, its variant's ``-v0`` id (the only version then);
    None if it records no variant either.

    Raises:
        ModelMismatchError: ``path`` is not an SB3 model zip.
    """
    from fortythieves_env.envs.registration import NAMESPACE

    data = model_data(path)
    value = data.get("fortythieves_env_id")
    if isinstance(value, str):
        return value
    variant = data.get("fortythieves_variant")
    return f"{NAMESPACE}/{variant}-v0" if isinstance(variant, str) else None


def load_maskable_ppo(path: str | Path, **kwargs: Any) -> Any:
    """``MaskablePPO.load(path, **kwargs)``, any failure to read the file turned into one error.

    SB3's own loader, which unpickles the zip's ``data`` (cloudpickle): only for the user's
    own files, to continue training (``train --resume``). A model to evaluate or to give
    hints is loaded from weights and plain metadata by
    :func:`fortythieves_agents.evaluation.model_agent.load_model_agent` (through
    :func:`load_inference_model`), which runs no code from the zip.

    The zip is checked first (every member's CRC), then loaded; a damaged ``policy.pth``
    inside an intact zip, a missing member or a zip of another algorithm fail here.

    Raises:
        ModelMismatchError: the file is missing, not a zip, damaged, or not a MaskablePPO
            model; or (with ``env=``) its spaces do not fit the environment. The message
            names the path and the cause, on one line.
    """
    from sb3_contrib import MaskablePPO

    from ..config import ConfigError
    from ..paths import check_readable_file

    try:
        check_readable_file(path, "model", zip_archive=True)
    except ConfigError as exc:
        raise ModelMismatchError(str(exc)) from None
    objects = {**custom_objects(path), **kwargs.pop("custom_objects", {})}
    try:
        return MaskablePPO.load(path, custom_objects=objects, **kwargs)
    except Exception as exc:  # torch, pickle, zip and SB3 errors alike: the file is unusable
        cause = " ".join(str(exc).split())[:300]
        raise ModelMismatchError(
            f"{path}: cannot load the model ({type(exc).__name__}: {cause})"
        ) from None


class _Refused(Exception):
    """A value of ``data`` this module will not read (the message says which)."""


class NoOptimizer:
    """Stands in for the policy's optimizer in a model loaded only to act.

    Building a torch optimizer imports ``torch._dynamo``, which takes as long as importing
    torch itself (about 1-4 s, more on a busy machine); a model that only plays needs no
    optimizer, and the saved optimizer state is not read.
    """

    def __init__(self, params: Any, **kwargs: Any) -> None:
        del params, kwargs

    def load_state_dict(self, state: Any, strict: bool = True) -> None:
        del state, strict


class InferenceModel:
    """A policy rebuilt from a zip's weights and plain metadata, to act with.

    What :class:`fortythieves_agents.evaluation.evaluate.ModelAgent` and SB3-style callers read of a
    ``MaskablePPO``: ``policy`` (in evaluation mode, with a :class:`NoOptimizer`),
    ``observation_space`` and ``action_space`` (the environment's, which the zip's matched),
    ``num_timesteps`` (0 when the zip records none) and :meth:`predict`. It cannot be
    trained or saved.
    """

    def __init__(
        self,
        policy: Any,
        observation_space: gym.spaces.Space,
        action_space: gym.spaces.Space,
        num_timesteps: int = 0,
    ) -> None:
        self.policy = policy
        self.observation_space = observation_space
        self.action_space = action_space
        self.num_timesteps = num_timesteps

    @property
    def device(self) -> Any:
        """The policy's torch device."""
        return self.policy.device

    def predict(
        self,
        observation: np.ndarray,
        state: tuple[np.ndarray, ...] | None = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...] | None]:
        """``MaskablePPO.predict``: the policy's action(s) and state (None)."""
        return self.policy.predict(  # type: ignore[no-any-return]
            observation, state, episode_start, deterministic, action_masks=action_masks
        )


# ------------------------------------------------------------------ plain values
def _class_name(value: object) -> str | None:
    """``"a.b.C"`` from SB3's text of a class (``"<class 'a.b.C'>"``), else None."""
    match = _CLASS_TEXT.fullmatch(value) if isinstance(value, str) else None
    return RENAMED.get(match.group(1), match.group(1)) if match else None


def _positive_int(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _Refused(f"policy_kwargs {key} must be a positive integer, got {value!r}")
    return value


def _count(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Refused(f"policy_kwargs {key} must be an integer >= 0, got {value!r}")
    return value


def _sizes(key: str, value: object) -> list[int]:
    if not isinstance(value, list):
        raise _Refused(f"policy_kwargs {key} must be a list of layer sizes, got {value!r}")
    return [_positive_int(f"{key}[{i}]", size) for i, size in enumerate(value)]


def _flag(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _Refused(f"policy_kwargs {key} must be true or false, got {value!r}")
    return value


def _activation(key: str, value: object) -> type[Any]:
    import torch

    name = _class_name(value)
    if name not in ACTIVATIONS:
        raise _Refused(
            f"policy_kwargs {key} {value!r} is not one this package builds "
            f"({', '.join(ACTIVATIONS)})"
        )
    return {"ReLU": torch.nn.ReLU, "Tanh": torch.nn.Tanh}[name.rpartition(".")[2]]


def _net_arch(key: str, value: object) -> list[int] | dict[str, list[int]]:
    if isinstance(value, dict):
        if set(value) != {"pi", "vf"}:
            raise _Refused(f"policy_kwargs {key} must have keys pi and vf, got {sorted(value)}")
        return {part: _sizes(f"{key}.{part}", value[part]) for part in ("pi", "vf")}
    return _sizes(key, value)


def _extractor(key: str, value: object) -> type[Any]:
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .features import CardSlotsExtractor

    name = _class_name(value)
    if name not in EXTRACTORS:
        raise _Refused(
            f"policy_kwargs {key} {value!r} is not one this package builds "
            f"({', '.join(EXTRACTORS)}); refusing to unpickle it"
        )
    return CardSlotsExtractor if name == EXTRACTORS[0] else FlattenExtractor


def _card_slots_kwargs(key: str, value: object) -> dict[str, Any]:
    """``features_extractor_kwargs`` of
    :class:`fortythieves_agents.networks.features.CardSlotsExtractor`."""
    readers: dict[str, Callable[[str, object], object]] = {
        "n_card_slots": _positive_int,
        "card_embedding_dim": _count,
        "features_dim": _positive_int,
        "activation": _activation_name,
    }
    if not isinstance(value, dict):
        raise _Refused(f"policy_kwargs {key} must be a mapping, got {value!r}")
    return _read_keys(key, value, readers)


def _activation_name(key: str, value: object) -> str:
    if value not in ("relu", "tanh"):
        raise _Refused(f"policy_kwargs {key} must be 'relu' or 'tanh', got {value!r}")
    return str(value)


def _read_keys(
    where: str, values: dict[str, Any], readers: dict[str, Callable[[str, object], object]]
) -> dict[str, Any]:
    """Each of ``values`` read by its reader; a key without one is refused."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in _IGNORED_KEYS:
            continue
        if key not in readers:
            raise _Refused(
                f"{where} key {key!r} is not one this package reads from plain JSON "
                f"({', '.join(readers)}); refusing to unpickle it"
            )
        out[key] = readers[key](f"{where}.{key}" if where != "policy_kwargs" else key, value)
    return out


PLAYER_KEYS: dict[str, Callable[[str, object], object]] = {
    "variant": lambda key, value: value,  # checked by _player_variant
    "card_dim": _positive_int,
    "column_dim": _positive_int,
    "state_dim": _positive_int,
    "scorer_arch": _sizes,
    "value_arch": _sizes,
    "share_encoder": _flag,
    "unseen_inputs": _flag,
    "activation_fn": _activation,
    "ortho_init": _flag,
}
""":class:`fortythieves_agents.networks.policy.PlayerPolicy`'s ``policy_kwargs`` keys read, and
how."""

STOCK_KEYS: dict[str, Callable[[str, object], object]] = {
    "net_arch": _net_arch,
    "activation_fn": _activation,
    "ortho_init": _flag,
    "features_extractor_class": _extractor,
    "features_extractor_kwargs": lambda key, value: value,  # read once the class is known
    "share_features_extractor": _flag,
    "normalize_images": _flag,
}
"""SB3's ``MaskableActorCriticPolicy``'s ``policy_kwargs`` keys read, and how."""


def _policy_class(entry: object) -> str:
    """``"module.Name"`` of ``data["policy_class"]``, from its plain fields only."""
    if not isinstance(entry, dict):
        raise _Refused("the data records no policy_class")
    module, init = entry.get("__module__"), entry.get("__init__")
    match = _INIT_TEXT.fullmatch(init) if isinstance(init, str) else None
    if not isinstance(module, str) or match is None:
        raise _Refused(
            "policy_class has no plain module and class name (it would have to be "
            "unpickled); refusing to unpickle it"
        )
    name = f"{module}.{match.group(1)}"
    return RENAMED.get(name, name)


def _player_variant(value: object, data: dict[str, Any]) -> Any:
    """The ``variant`` of a ``PlayerPolicy``: a registered variant id, or the custom
    variant the zip records as plain values (``fortythieves_variant_spec``)."""
    from fortythieves_env import VariantSpec
    from fortythieves_env.rules.variants import get_variant

    fields = data.get("fortythieves_variant_spec")
    if isinstance(fields, dict):
        try:
            return VariantSpec(**fields)
        except (TypeError, ValueError) as exc:
            raise _Refused(f"the recorded custom variant is invalid: {exc}") from None
    if not isinstance(value, str):
        raise _Refused(f"policy_kwargs variant must be a variant id, got {value!r}")
    try:
        get_variant(value)
    except (KeyError, ValueError) as exc:
        raise _Refused(f"policy_kwargs variant {value!r}: {exc}") from None
    return value


def _policy_kwargs(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """The constructor keywords of policy class ``name``, from the plain ``policy_kwargs``."""
    raw = data.get("policy_kwargs", {})
    if not isinstance(raw, dict):
        raise _Refused(f"policy_kwargs must be a mapping, got {raw!r}")
    if name == POLICY_CLASSES[2]:  # the family's network: every rule set, no variant
        keys = {k: read for k, read in PLAYER_KEYS.items() if k != "variant"}
        return _read_keys("policy_kwargs", raw, keys)
    if name == POLICY_CLASSES[0]:
        kwargs = _read_keys("policy_kwargs", raw, PLAYER_KEYS)
        kwargs["variant"] = _player_variant(kwargs.get("variant"), data)
        return kwargs
    kwargs = _read_keys("policy_kwargs", raw, STOCK_KEYS)
    extractor = kwargs.get("features_extractor_class")
    extractor_kwargs = kwargs.get("features_extractor_kwargs") or {}
    if extractor is not None and extractor.__name__ == "CardSlotsExtractor":
        kwargs["features_extractor_kwargs"] = _card_slots_kwargs(
            "features_extractor_kwargs", extractor_kwargs
        )
    elif extractor_kwargs:
        raise _Refused(
            "policy_kwargs features_extractor_kwargs are not read for FlattenExtractor "
            f"(it takes none), got {extractor_kwargs!r}"
        )
    return kwargs


# ------------------------------------------------------------------ spaces
def _describe(space: gym.spaces.Space) -> str:
    if isinstance(space, gym.spaces.Discrete):
        return f"Discrete({int(space.n)})"
    return f"{type(space).__name__}(shape={space.shape}, dtype={space.dtype})"


def _describe_saved(entry: object) -> str:
    if not isinstance(entry, dict):
        return repr(entry)
    kind = _class_name(entry.get(":type:")) or "?"
    kind = kind.rpartition(".")[2]
    if "n" in entry:
        return f"{kind}({entry.get('n')})"
    shape = entry.get("_shape")
    shape = tuple(shape) if isinstance(shape, list) else shape
    return f"{kind}(shape={shape}, dtype={entry.get('dtype')})"


def _same_bounds(text: object, bound: np.ndarray) -> bool:
    """Whether ``text`` (``str`` of a numpy array, as SB3 writes a Box's ``low``/``high``)
    holds the numbers of ``bound``."""
    if not isinstance(text, str):
        return False
    if "..." in text:  # numpy summarises arrays of over 1000 numbers
        return text == str(bound)
    try:
        values = np.array(text.replace("[", " ").replace("]", " ").split(), dtype=np.float64)
    except ValueError:
        return False
    flat = np.asarray(bound, dtype=np.float64).ravel()
    return values.shape == flat.shape and bool(np.array_equal(values, flat))


def _space_fits(entry: object, space: gym.spaces.Space) -> bool:
    """Whether ``data``'s plain fields of a space describe ``space`` exactly."""
    if not isinstance(entry, dict) or entry.get(":type:") != _SPACE_TYPES.get(type(space)):
        return False
    if entry.get("dtype") != str(space.dtype):
        return False
    if isinstance(space, gym.spaces.Discrete):
        return str(entry.get("n")) == str(int(space.n)) and str(entry.get("start")) == str(
            int(space.start)
        )
    assert isinstance(space, gym.spaces.Box)
    return (
        entry.get("_shape") == list(space.shape)
        and _same_bounds(entry.get("low"), space.low)
        and _same_bounds(entry.get("high"), space.high)
    )


# ------------------------------------------------------------------ loading
def _read_weights(path: Path) -> dict[str, Any]:
    """``policy.pth`` as a mapping of names to tensors, through torch's weights-only
    unpickler (``torch.load(..., weights_only=True)``: no other object is built)."""
    import torch

    from fortythieves_env.records.files import open_user_file

    try:
        with (
            open_user_file(path) as file,
            zipfile.ZipFile(file) as archive,
            archive.open("policy.pth") as member,
        ):
            state = torch.load(member, map_location="cpu", weights_only=True)
    except KeyError:
        raise _Refused("the zip has no policy.pth (the policy's weights)") from None
    except Exception as exc:  # torch's UnpicklingError and any damage alike
        cause = " ".join(str(exc).split())[:200]
        raise _Refused(
            f"policy.pth is not plain weights ({type(exc).__name__}: {cause}); "
            "refusing to unpickle it"
        ) from None
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise _Refused("policy.pth is not a mapping of names to tensors")
    return state


def _policy_class_of(name: str) -> Any:
    """The class of :data:`POLICY_CLASSES` entry ``name``."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from .family_policy import FamilyPlayerPolicy
    from .policy import PlayerPolicy

    return {
        POLICY_CLASSES[0]: PlayerPolicy,
        POLICY_CLASSES[1]: MaskableActorCriticPolicy,
        POLICY_CLASSES[2]: FamilyPlayerPolicy,
    }[name]


def custom_objects(path: str | Path) -> dict[str, Any]:
    """``custom_objects`` for SB3's own loader (``train --resume``,
    :func:`load_maskable_ppo`): ``policy_class`` and
    ``policy_kwargs`` rebuilt from the zip's plain metadata, as :func:`load_inference_model`
    reads them, so that a checkpoint saved under the old import name ``agents`` (or with the
    OpenAI Agents SDK installed as ``agents``) loads; empty when the metadata is not one
    this module reads (SB3 then unpickles them, as for any of the user's own files).
    """
    try:
        data = model_data(Path(path))
        name = _policy_class(data.get("policy_class"))
        if name not in POLICY_CLASSES:
            return {}
        kwargs = _policy_kwargs(name, data)
    except (_Refused, ModelMismatchError):
        return {}
    return {"policy_class": _policy_class_of(name), "policy_kwargs": kwargs}


def load_inference_model(
    path: str | Path,
    observation_space: gym.spaces.Space,
    action_space: gym.spaces.Space,
    *,
    env_name: str = "the environment",
    device: str = "cpu",
) -> InferenceModel:
    """Rebuild a model zip's policy from weights and plain metadata, running no code from it.

    See the module docstring for what is read and what is refused. The policy is built
    with :class:`NoOptimizer` (no ``torch._dynamo`` import), on ``device``, in evaluation
    mode; its weights are the zip's, loaded with ``strict=True``.

    Args:
        path: the model ``.zip``.
        observation_space, action_space: the environment's; the zip's must be equal.
        env_name: how the environment is named in a mismatch message (``"variant
            'Streets'"``).
        device: the torch device.

    Raises:
        ModelMismatchError: the file is missing, not a zip or damaged; the model was trained
            under other rules (both rules versions named); its spaces differ from the
            environment's; or it needs more than plain JSON and weights to
            rebuild (the message names the path and what is needed, on one line).
    """
    from ..config import ConfigError
    from ..paths import check_readable_file

    path = Path(path)
    try:
        check_readable_file(path, "model", zip_archive=True)
    except ConfigError as exc:
        raise ModelMismatchError(str(exc)) from None
    data = model_data(path)
    check_model_rules(path, data)  # first: other rules may change the spaces too
    check_model_spaces(path, observation_space, action_space, env_name, data)
    try:
        name = _policy_class(data.get("policy_class"))
        if name not in POLICY_CLASSES:
            raise _Refused(
                f"policy_class {name} is not one this package builds "
                f"({', '.join(POLICY_CLASSES)}); refusing to unpickle it"
            )
        kwargs = _policy_kwargs(name, data)
        state = _read_weights(path)
    except _Refused as exc:
        raise ModelMismatchError(f"{path}: {exc}") from None
    cls = _policy_class_of(name)
    try:
        policy = cls(
            observation_space,
            action_space,
            lambda _: 0.0,
            optimizer_class=NoOptimizer,  # type: ignore[arg-type]
            **kwargs,
        )
    except (ValueError, TypeError) as exc:
        cause = " ".join(str(exc).split())[:300]
        raise ModelMismatchError(f"{path}: cannot build its policy ({cause})") from None
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        cause = " ".join(str(exc).split())[:300]
        raise ModelMismatchError(
            f"{path}: policy.pth does not fit the policy its data describes ({cause})"
        ) from None
    policy = policy.to(device)
    policy.set_training_mode(False)
    steps = data.get("num_timesteps")
    steps = steps if isinstance(steps, int) and not isinstance(steps, bool) else 0
    return InferenceModel(policy, observation_space, action_space, steps)
