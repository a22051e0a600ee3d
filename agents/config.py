"""Layered, validated run configurations.

A run's configuration is built in three layers, each overriding the one before:

1. the *base* files: a config file may name another file with a top-level ``base:`` key
   (a path relative to the naming file); bases may chain (``streets_long.yaml`` ->
   ``streets.yaml`` -> ``defaults.yaml``); a cycle is an error;
2. the config file given on the command line;
3. ``--set key.sub=value`` overrides, in order (the value is parsed as YAML, so
   ``--set train.total_timesteps=1e6`` and ``--set policy.net_arch_pi=[64,64]`` work).

Mappings merge key by key; any other value (lists included) replaces the earlier one.
The merged mapping is validated by :class:`Config` (pydantic v2, unknown keys forbidden).
Every problem is raised as :class:`ConfigError`, whose message names the file (or the
``--set`` argument) that set the offending key, the key path and what was expected.

YAML: files are read with :class:`ConfigLoader`, a ``SafeLoader`` that also reads ``1e6``,
``3e-4`` and ``1_000_000.0`` as numbers (plain PyYAML reads ``1e6`` as the string
``"1e6"``). Integer fields accept integral floats (``1e6`` -> ``1000000``) but refuse ``1.5``.
It refuses a key given twice in one mapping (plain PyYAML keeps the last one silently),
nesting deeper than :data:`MAX_NESTING` levels, and aliases that expand a document past
:data:`MAX_YAML_VALUES` values (a "billion laughs"). :func:`load_yaml` is the one reader of
YAML a user gives (files, specs, ``--set``, ``--grid``).

The models are :mod:`fortythieves_agents.config_models`, the YAML reader
:mod:`fortythieves_agents.safe_yaml`; this module loads configs and re-exports both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, ValidationError

from .config_models import MAX_EPISODE_STEPS as MAX_EPISODE_STEPS
from .config_models import MAX_REWARD as MAX_REWARD
from .config_models import TEACHER_NAMES as TEACHER_NAMES
from .config_models import Config as Config
from .config_models import EnvConfig as EnvConfig
from .config_models import EvalConfig as EvalConfig
from .config_models import ExpertConfig as ExpertConfig
from .config_models import PlayerNetConfig as PlayerNetConfig
from .config_models import PolicyConfig as PolicyConfig
from .config_models import PPOConfig as PPOConfig
from .config_models import ShapingConfig as ShapingConfig
from .config_models import TeacherConfig as TeacherConfig
from .config_models import TrainConfig as TrainConfig
from .config_models import _variant_spec_fields
from .safe_yaml import MAX_NESTING as MAX_NESTING
from .safe_yaml import MAX_YAML_BYTES as MAX_YAML_BYTES
from .safe_yaml import MAX_YAML_VALUES as MAX_YAML_VALUES
from .safe_yaml import ConfigLoader as ConfigLoader
from .safe_yaml import YAMLProblem as YAMLProblem
from .safe_yaml import load_yaml as load_yaml

if TYPE_CHECKING:
    from fortythieves_env import VariantSpec

# ``from .x import y as y``: names that lived here before the module was split, still
# importable from here; documented where they live now, so not in __all__
__all__ = [
    "DISTRIBUTION",
    "ConfigError",
    "checkout_root",
    "dump_config",
    "install_hint",
    "load_config",
    "parse_override",
]


class ConfigError(Exception):
    """A configuration problem; the message is meant for the user, without a traceback."""


# --------------------------------------------------------------------------- loading


def _read_yaml(path: Path, named_by: str | None) -> dict[str, Any]:
    """Read one config file as a mapping.

    Raises:
        ConfigError: a missing, unreadable or non-UTF-8 file, a folder or another path
            that is not a regular file (a FIFO), a file over :data:`MAX_YAML_BYTES`, a YAML
            syntax error, a key given twice in one mapping (naming the key and both lines),
            nesting deeper than :data:`MAX_NESTING` (all on one line, with the line and
            column), or a top level that is not a mapping.
    """
    from fortythieves_env.records.files import UserFileError, read_user_text

    where = f" (named as base by {named_by})" if named_by else ""
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder, not a config file{where}")
    if not path.exists():
        raise ConfigError(f"{path}: config file not found{where}")
    try:
        text = read_user_text(path, MAX_YAML_BYTES)
    except UserFileError as exc:
        raise ConfigError(f"{path}: {exc.strerror}{where}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start}){where}"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read the config file ({exc.strerror or exc}){where}"
        ) from None
    try:
        data = load_yaml(text)
    except YAMLProblem as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc.located}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: the top level must be a mapping of keys, got {type(data).__name__}"
        )
    return data


def _file_chain(path: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The file and its bases, base-most first, each with its data (``base`` key removed)."""
    chain: list[tuple[Path, dict[str, Any]]] = []
    seen: list[Path] = []
    named_by: str | None = None
    current: Path | None = path
    while current is not None:
        resolved = current.resolve()
        if resolved in seen:
            cycle = " -> ".join(str(p) for p in [*seen, resolved])
            raise ConfigError(f"{current}: base files form a cycle: {cycle}")
        seen.append(resolved)
        data = _read_yaml(current, named_by)
        base = data.pop("base", None)
        chain.append((current, data))
        if base is None:
            current = None
        elif isinstance(base, str) and base:
            named_by = str(current)
            current = current.parent / base
        else:
            raise ConfigError(f"{current}: base: expected a file path (string), got {base!r}")
    chain.reverse()
    return chain


def _merge(
    into: dict[str, Any],
    layer: Mapping[str, Any],
    source: str,
    provenance: dict[tuple[str, ...], str],
    prefix: tuple[str, ...] = (),
) -> None:
    """Merge ``layer`` into ``into`` in place, recording which source set each key path."""
    for key, value in layer.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            provenance.setdefault(path, source)
            _merge(into[key], value, source, provenance, path)
        else:
            into[key] = _plain(value)
            provenance[path] = source
            for sub in _leaf_paths(value, path):
                provenance[sub] = source


def _plain(value: Any) -> Any:
    """Deep copy of mappings (so later merges never touch a layer's own data)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _leaf_paths(value: Any, prefix: tuple[str, ...]) -> Iterable[tuple[str, ...]]:
    if isinstance(value, Mapping):
        for key, sub in value.items():
            path = (*prefix, str(key))
            yield path
            yield from _leaf_paths(sub, path)


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """Parse one ``--set`` argument ``key.sub=value`` into ``(("key", "sub"), value)``.

    The value is parsed as YAML with :class:`ConfigLoader` (``1e6`` is a number, ``null`` is
    None, ``[64, 64]`` a list); an empty value is the empty string.

    Raises:
        ConfigError: no ``=``, or an empty key or key part.
    """
    key, sep, raw = text.partition("=")
    parts = tuple(key.strip().split("."))
    if not sep or not all(parts):
        raise ConfigError(f"--set {text}: expected KEY.SUB=VALUE, e.g. train.total_timesteps=1e6")
    try:
        value = load_yaml(raw) if raw.strip() else ""
    except YAMLProblem as exc:
        raise ConfigError(f"--set {text}: the value is not valid YAML ({exc.problem})") from None
    return parts, value


def _allowed_keys(model: type[BaseModel], loc: Sequence[str | int]) -> list[str] | None:
    """Field names of the section that contains ``loc``'s last key, or None if unknown."""
    current: Any = model
    for part in loc[:-1]:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = current.model_fields.get(str(part))
        if field is None:
            return None
        current = field.annotation
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return None


def _format_errors(
    exc: ValidationError,
    provenance: dict[tuple[str, ...], str],
    sources: list[str],
    applied: Sequence[str],
    model: type[BaseModel] | None = None,
) -> str:
    """One line per problem, each naming where its value came from.

    ``sources`` are the files read (base first), ``applied`` every source in the order it
    was merged (files, then ``--set`` arguments and assignments). A check of a whole section
    (a model validator of ``train``, say, or of the whole config) names every source that
    set a key in it, in that order, since any of them may hold the offending value: a
    ``--set`` is never hidden behind the file that opened the section.
    """
    lines = []
    for err in exc.errors():
        loc = tuple(str(part) for part in err["loc"])
        key = ".".join(loc) if loc else "(top level)"
        source = None
        for end in range(len(loc), 0, -1):
            source = provenance.get(loc[:end])
            if source is not None:
                break
        kind = err["type"]
        if kind == "missing":
            where = ", ".join(sources) if sources else "any file"
            lines.append(f"{key}: required key missing (not set in {where})")
            continue
        if source is None:  # a whole-model check: point at the last source
            source = sources[-1]
        if kind == "value_error":
            under = {
                s
                for path, s in provenance.items()
                if len(path) > len(loc) and path[: len(loc)] == loc
            }
            if len(under) > 1:
                source = ", ".join(s for s in dict.fromkeys(applied) if s in under)
        if kind == "extra_forbidden":
            allowed = _allowed_keys(model or Config, loc)
            hint = f" (allowed here: {', '.join(allowed)})" if allowed else ""
            lines.append(f"{source}: {key}: unknown key{hint}")
            continue
        msg = err["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        got = f" (got {err['input']!r})" if kind != "value_error" and loc else ""
        lines.append(f"{source}: {key}: {msg}{got}")
    if len(lines) == 1:
        return f"invalid configuration: {lines[0]}"
    return f"invalid configuration ({len(lines)} problems):\n  " + "\n  ".join(lines)


DISTRIBUTION = "fortythieves"
"""The name the package is published and installed under (``pyproject.toml``'s
``project.name``; a test checks that they agree)."""


def checkout_root() -> Path | None:
    """The repository this package runs from (an editable install or ``PYTHONPATH`` of a
    checkout: the ``agents/`` folder beside ``pyproject.toml``), or None for an installed
    wheel (the folder is then ``fortythieves_agents``)."""
    here = Path(__file__).resolve().parent
    if here.name == "agents" and (here.parent / "pyproject.toml").is_file():
        return here.parent
    return None


def install_hint(extra: str) -> str:
    """How to install an optional extra, for a message: in a checkout
    ``pip install -e '.[plots]' in /path/to/checkout``, from a wheel
    ``pip install 'fortythieves[plots]'`` (a wheel user has no checkout to install from)."""
    root = checkout_root()
    if root is not None:
        return f"pip install -e '.[{extra}]' in {root}"
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def shipped_configs() -> dict[str, Path]:
    """The configs shipped with the package, by name (``streets`` -> its ``streets.yaml``):
    the package data ``fortythieves_agents.configs`` of an installed wheel, else the ``configs/``
    folder of this checkout."""
    here = Path(__file__).resolve().parent
    folder = here / "configs"  # an installed wheel: agents/configs/
    if not folder.is_dir():
        folder = here.parent / "configs"  # a checkout (editable install): the repository's
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}


def resolve_config_path(path: str | Path) -> Path:
    """``path`` if it names a file, else the shipped config of that name (``streets`` or
    ``streets.yaml``, any case: :func:`shipped_configs`), so that ``fortythieves train
    streets`` works after ``pip install`` outside a checkout; else ``path`` unchanged (the
    loader then says it is missing and names the shipped configs)."""
    path = Path(path)
    if path.exists() or path.parent != Path("."):
        return path
    name = path.name.lower().removesuffix(".yaml")
    return shipped_configs().get(name, path)


def _missing_config(path: Path) -> str:
    """The message for a config file that is not there: a ``configs/<name>.yaml`` (as the
    README writes it, run outside a checkout) whose name is shipped gets the command that
    uses the shipped one; any other path the list of the shipped names."""
    shipped = shipped_configs()
    name = path.name.lower().removesuffix(".yaml")
    if path.parent.name == "configs" and name in shipped:
        return (
            f"{path}: config file not found; did you mean the shipped config `{name}` "
            f"(`fortythieves train {name}`)?"
        )
    return f"{path}: config file not found (nor a shipped config: {', '.join(shipped)})"


def load_config(
    path: str | Path,
    overrides: Sequence[str] = (),
    assignments: Sequence[tuple[str, str, Any]] = (),
    model: type[Config] | Callable[[dict[str, Any]], type[Config]] = Config,
) -> Config:
    """Build and validate the configuration for ``path`` plus ``--set`` ``overrides``.

    Args:
        path: a YAML config file, or a shipped config's name (``streets``:
            :func:`resolve_config_path`); its ``base:`` chain is read first.
        overrides: ``key.sub=value`` strings applied after the files, in order.
        assignments: ``(source, "key.sub", value)`` triples applied last, in order: values
            already parsed (e.g. one setting of ``fortythieves sweep --grid``); an error
            names ``source`` as it names a file or ``--set`` argument.
        model: the model that validates the merged layers (a :class:`Config` subclass),
            or a function of the merged mapping that says which (the family's configs:
            :func:`fortythieves_agents.family.config.config_model`).

    Returns:
        The validated :class:`Config`.

    Raises:
        ConfigError: a missing file, invalid YAML (a key given twice in one mapping, nesting
            deeper than :data:`MAX_NESTING` included), a base cycle, a malformed override or
            one whose key has more than :data:`MAX_NESTING` parts, an unknown key, a wrong
            type or value, or a missing key. The message names the file or ``--set``
            argument, the key path and what was expected.
    """
    merged: dict[str, Any] = {}
    provenance: dict[tuple[str, ...], str] = {}
    sources: list[str] = []
    resolved = resolve_config_path(path)
    if not resolved.exists():
        raise ConfigError(_missing_config(resolved))
    for file, data in _file_chain(resolved):
        sources.append(str(file))
        _merge(merged, data, str(file), provenance)
    layers = [(f"--set {text}", *parse_override(text)) for text in overrides]
    layers += [(source, tuple(key.split(".")), value) for source, key, value in assignments]
    for source, parts, value in layers:
        if len(parts) > MAX_NESTING:
            raise ConfigError(
                f"{source}: the key has {len(parts)} parts; at most {MAX_NESTING} are allowed"
            )
        layer: dict[str, Any] = {}
        node = layer
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
        _merge(merged, layer, source, provenance)
    cls = model if isinstance(model, type) else model(merged)
    try:
        return cls.model_validate(merged)
    except ValidationError as exc:
        applied = [*sources, *(source for source, _, _ in layers)]
        raise ConfigError(_format_errors(exc, provenance, sources, applied, cls)) from None


def dump_config(config: Config) -> str:
    """The resolved configuration as YAML text (loadable again by :func:`load_config`)."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False)


def load_variant_spec(path: str | Path) -> VariantSpec:
    """A custom variant from a YAML file of :class:`~fortythieves_env.VariantSpec` fields
    (``--variant-spec FILE`` of ``play``, ``solve``, ``evaluate`` and ``replay``), checked as
    ``env.custom_variant`` of a training config is.

    The file is a mapping of the spec's fields (``id``, ``name``, ``n_columns``,
    ``face_down``, ``face_up``, ``build``, ``sequence_moves``, and optionally ``deal_count``,
    ``redeals``, ``aces_on_foundations``, ``max_episode_steps``, ``pysol_id``,
    ``empty_column``); or a training
    config, whose ``env.custom_variant`` is used.

    Raises:
        ConfigError: one line naming the file: missing, unreadable, not YAML or not a
            mapping, a key given twice, an unknown or missing field, a value the spec
            refuses (naming the field and the allowed values), a built-in id, or a training
            config without ``env.custom_variant``.
    """
    from fortythieves_env import VariantSpec as Spec

    path = Path(path)
    data = _read_yaml(path, None)
    if "env" in data and "id" not in data:  # a training config: its custom variant
        env = data["env"]
        custom = env.get("custom_variant") if isinstance(env, dict) else None
        if custom is None:
            raise ConfigError(f"{path}: a training config without env.custom_variant")
        data = custom
    try:
        fields = _variant_spec_fields(data)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return Spec(**fields)
