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
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

if TYPE_CHECKING:
    from fortythieves_env import VariantSpec

__all__ = [
    "DISTRIBUTION",
    "MAX_EPISODE_STEPS",
    "MAX_NESTING",
    "MAX_REWARD",
    "MAX_YAML_BYTES",
    "MAX_YAML_VALUES",
    "TEACHER_NAMES",
    "Config",
    "ConfigError",
    "ConfigLoader",
    "EnvConfig",
    "EvalConfig",
    "ExpertConfig",
    "PPOConfig",
    "PlayerNetConfig",
    "PolicyConfig",
    "ShapingConfig",
    "TeacherConfig",
    "TrainConfig",
    "YAMLProblem",
    "checkout_root",
    "dump_config",
    "install_hint",
    "load_config",
    "load_yaml",
    "parse_override",
]


TEACHER_NAMES = ("greedy", "search")
"""The teachers ``train.teacher`` may name (:data:`fortythieves_agents.training.teacher.TEACHERS`
makes them; a test keeps the two equal). ``random`` is left out on purpose: cloning uniform play
teaches nothing."""


class ConfigError(Exception):
    """A configuration problem; the message is meant for the user, without a traceback."""


MAX_YAML_BYTES = 2**20
"""The largest config or variant-spec file read (1 MiB; the shipped configs are under 4 KB)."""

MAX_NESTING = 32
"""The deepest nesting of mappings and lists a config file, a ``--set`` value or a ``--grid``
list may have (the top level is level 1; the shipped configs reach 4, at
``policy.player.scorer_arch``), and the most parts a ``--set`` or ``--grid`` key may have.
PyYAML builds nested data recursively: 2,000 levels raised ``RecursionError``."""


MAX_YAML_VALUES = 10_000
"""The most values (mappings, lists and scalars, keys included) a YAML document may hold once
its aliases are expanded (the shipped configs hold under 300). An alias names a collection
again without copying it, so a few lines can stand for a billion values (the "billion
laughs"): the package's readers walk them as expanded (merging, validation, messages), and
``evaluate --variant-spec`` and ``train`` hung on one."""


class ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` for every YAML the package reads (config files, variant specs,
    ``--set`` values, ``--grid`` lists: through :func:`load_yaml`), with four differences:

    - its float resolver also accepts exponents without a dot (``1e6``);
    - a key given twice in one mapping is refused (PyYAML keeps the last silently, so a
      config with two ``ppo:`` blocks lost the first; yaml/pyyaml#165); the ``<<`` merge
      key's entries may still be overridden;
    - nesting deeper than :data:`MAX_NESTING` levels is refused before it is built;
    - a document whose aliases expand it past :data:`MAX_YAML_VALUES` values or
      :data:`MAX_NESTING` levels, or make it contain itself, is refused before it is built
      (counted on the composed nodes, each shared node once).

    Raises (from ``yaml.load``):
        yaml.MarkedYAMLError: ``problem_mark`` at the repeated key (``problem`` names the key
            and the lines, and the columns on one line, of both) or at the first collection
            too deep (``problem`` gives the depth and the limit); for aliases, ``problem``
            says which bound they break and ``problem_mark`` is None; a ``yaml.YAMLError``.
    """

    def __init__(self, stream: str | bytes | typing.IO[str] | typing.IO[bytes]) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_document(self) -> yaml.Node | None:
        node: yaml.Node | None = super().compose_document()
        if node is not None:
            problem = _alias_problem(node)
            if problem is not None:
                raise yaml.composer.ComposerError(None, None, problem, None)
        return node

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if not self.check_event(yaml.MappingStartEvent, yaml.SequenceStartEvent):
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        self._depth += 1
        try:
            if self._depth > MAX_NESTING:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"nested {self._deepest()} levels deep; at most {MAX_NESTING} are allowed",
                    mark,
                )
            return super().compose_node(parent, index)  # type: ignore[no-any-return]
        finally:
            self._depth -= 1

    def _deepest(self) -> int:
        """The document's deepest nesting, counted by reading (not building) the rest of it."""
        depth = deepest = self._depth - 1  # the next event opens level ``self._depth``
        while not self.check_event(yaml.DocumentEndEvent, yaml.StreamEndEvent):
            event = self.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                deepest = max(deepest, depth)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return deepest

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, yaml.Node] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:  # an unhashable key: PyYAML refuses it below
                    continue
                if first is not key_node:
                    a, b = first.start_mark, key_node.start_mark
                    where = (
                        f"line {a.line + 1}, columns {a.column + 1} and {b.column + 1}"
                        if a.line == b.line
                        else f"lines {a.line + 1} and {b.line + 1}"
                    )
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key {key!r} is given twice in one mapping, at {where}: YAML would "
                        "keep only the last and drop the first silently",
                        b,
                    )
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


def _alias_problem(root: yaml.Node) -> str | None:
    """What is wrong with ``root``'s document once its aliases are expanded (None: nothing):
    more than :data:`MAX_YAML_VALUES` values, nesting deeper than :data:`MAX_NESTING`, or a
    collection that contains itself. Each node is visited once (a depth-first walk without
    recursion; an alias is the node it names, shared), its expanded size and depth computed
    from its children's."""
    expanded: dict[int, tuple[int, int]] = {}  # id(node) -> (values, depth) once expanded
    open_: set[int] = set()  # the collections being walked: the current node's ancestors
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        if finished:
            values = 1 + sum(expanded[id(c)][0] for c in children)
            depth = 1 + max((expanded[id(c)][1] for c in children), default=0)
            if values > MAX_YAML_VALUES:
                return (
                    f"it holds more than {MAX_YAML_VALUES:,} values once its aliases are "
                    f"expanded; at most {MAX_YAML_VALUES:,} are allowed"
                )
            if isinstance(node, yaml.CollectionNode) and depth > MAX_NESTING:
                return (
                    f"its aliases nest it more than {MAX_NESTING} levels deep; at most "
                    f"{MAX_NESTING} are allowed"
                )
            expanded[id(node)] = (values, depth if isinstance(node, yaml.CollectionNode) else 0)
            open_.discard(id(node))
            continue
        if id(node) in expanded:
            continue
        open_.add(id(node))
        stack.append((node, True))
        for child in children:
            if id(child) in open_:
                return "an alias names a collection it is inside of (endless nesting)"
            if id(child) not in expanded:
                stack.append((child, False))
    return None


def load_yaml(text: str) -> Any:
    """The data of YAML ``text`` a user gave (a config file, a variant spec, a ``--set``
    value, a ``--grid`` list): the one YAML reader of the package, :class:`ConfigLoader`
    (floats such as ``1e6``; a key given twice, nesting past :data:`MAX_NESTING` and aliases
    expanding past :data:`MAX_YAML_VALUES` values refused).

    Raises:
        YAMLProblem: the text is not YAML or breaks a bound; one line, with its place.
    """
    try:
        return yaml.load(text, Loader=ConfigLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise YAMLProblem(
            " ".join(problem.split()),
            None if mark is None else mark.line + 1,
            None if mark is None else mark.column + 1,
        ) from None


class YAMLProblem(ValueError):
    """Why :func:`load_yaml` refused a text: ``problem`` (one line), and the ``line`` and
    ``column`` (from 1) where it was found, if known; ``located`` is ``"line L, column C:
    problem"`` (the problem alone without a place)."""

    def __init__(self, problem: str, line: int | None, column: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column

    @property
    def located(self) -> str:
        if self.line is None:
            return self.problem
        return f"line {self.line}, column {self.column}: {self.problem}"


ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


# --------------------------------------------------------------------------- models

MAX_REWARD = 1000.0
"""The largest magnitude of ``env.reward_per_card``, ``env.win_bonus``,
``env.illegal_action_penalty`` and the ``train.shaping`` weights.

The bound keeps every return and value target finite and well-conditioned in ``float32``
(SB3's rollout buffers and the network), over the longest episode
(:data:`MAX_EPISODE_STEPS`): a game's return from its cards and the win bonus is at most
``104 * 1000 + 1000 = 105,000`` in magnitude, below ``2**24`` (16.8 million), so ``float32``
holds it, and every sum of rewards on the way, to well within one card's reward (the
exact-integer range); with the penalty paid on every step (never, with masking) and the
shaping potential (at most ``1000`` times the 104 cards of each of its three terms) it
stays below about ``10**10``, whose square, the value loss, is ``10**20``: 18 orders of
magnitude below ``float32``'s largest number (``3.4e38``). ``reward_per_card = 1e308``
overflowed to ``inf`` in ``float32`` and trained into NaN logits."""

MAX_EPISODE_STEPS = 10**6
"""The largest ``env.max_episode_steps``, ``env.max_steps_without_progress`` and
``env.custom_variant.max_episode_steps``.

A thousand times the registered limits (1000; 1500 for Little Forty). An episode's steps
bound the no-cycling sets (:class:`fortythieves_agents.cycles.SeenViews`: a ``uint64`` per view
seen, the table at most half full, so at most 32 MiB per game at this bound) and, with
:data:`MAX_REWARD`, the returns; a longer limit is no game anyone plays: the validation and
the final evaluation play the registered limit, and 10**6 steps of one game take minutes."""


def _step_count(value: Any) -> Any:
    """``value`` unless it is a number outside ``1..MAX_EPISODE_STEPS`` (``ValueError``)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and not 1 <= value <= MAX_EPISODE_STEPS:
        shown = value if isinstance(value, int) else f"{value:g}"
        raise ValueError(f"must be null or an integer 1..{MAX_EPISODE_STEPS}, got {shown}")
    return value


def _within(value: float, low: float, high: float) -> float:
    """``value`` if ``low <= value <= high``, else ``ValueError`` naming both bounds."""
    if not low <= value <= high:
        raise ValueError(f"must be within {low:g}..{high:g}, got {value:g}")
    return value


def _variant_spec_fields(value: Any) -> dict[str, Any]:
    """Check ``env.custom_variant`` by building the ``VariantSpec``; return its fields.

    Returns the spec's fields as plain YAML values (``build`` as its string), defaults filled,
    but ``empty_column`` only when it is not the rule book's ``"any"`` (so the resolved config
    of a run made before the field existed is unchanged).

    Raises:
        ValueError: not a mapping, an unknown or missing field, a value the spec refuses
            (its message names the field), or ``max_episode_steps`` above
            :data:`MAX_EPISODE_STEPS`; the built-in ids are refused too.
    """
    import dataclasses

    from fortythieves_env import VARIANTS, EmptyColumn, VariantSpec

    fields = dataclasses.fields(VariantSpec)
    names = [f.name for f in fields]
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a mapping of VariantSpec fields ({', '.join(names)})")
    unknown = [str(k) for k in value if k not in names]
    if unknown:
        raise ValueError(
            f"unknown VariantSpec field(s) {', '.join(unknown)} (fields: {', '.join(names)})"
        )
    required = [f.name for f in fields if f.default is dataclasses.MISSING]
    missing = [name for name in required if name not in value]
    if missing:
        raise ValueError(f"missing VariantSpec field(s) {', '.join(missing)}")
    spec = VariantSpec(**value)  # ValueError naming the field and value
    if spec.max_episode_steps > MAX_EPISODE_STEPS:
        raise ValueError(
            f"max_episode_steps must be an integer 1..{MAX_EPISODE_STEPS}, "
            f"got {spec.max_episode_steps}"
        )
    if spec.id in VARIANTS:
        raise ValueError(
            f"id {spec.id!r} is a built-in variant; give the custom variant another id"
        )
    out = dataclasses.asdict(spec)
    out["build"] = spec.build.value
    if spec.empty_column is EmptyColumn.ANY:
        del out["empty_column"]  # the rule book's: configs and runs made before the field match
    else:
        out["empty_column"] = spec.empty_column.value
    return out


def _admits_bool(annotation: Any) -> bool:
    """Whether a field's type takes ``true``/``false`` (``bool``, or ``Any`` inside it)."""
    if annotation is bool or annotation is Any:
        return True
    return any(_admits_bool(arg) for arg in typing.get_args(annotation))


def _refuse_bool_for_numbers(model: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """Pydantic reads ``true`` as 1 in a number field; a config means no such thing, so a
    boolean (or a list holding one) where the field takes none is an error."""
    field = model.model_fields.get(info.field_name or "")
    if field is None or _admits_bool(field.annotation):
        return value
    items = value if isinstance(value, list) else [value]
    if any(isinstance(item, bool) for item in items):
        raise ValueError(f"expected a number, got a boolean ({value!r})")
    return value


class _NoBoolForNumbers(BaseModel):
    """Refuses a boolean in a field that takes none (:func:`_refuse_bool_for_numbers`):
    the base of every config model, sections and the whole config alike."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        return _refuse_bool_for_numbers(cls, value, info)


class _Section(_NoBoolForNumbers):
    # NaN or infinite rewards and hyperparameters are refused: they would poison training
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class EnvConfig(_Section):
    """Which game to play and the environment's keyword arguments (see ``fortythieves_env``).

    A custom variant is defined in the config itself: ``custom_variant`` holds the fields of a
    ``fortythieves_env.VariantSpec`` (``id``, ``name``, ``n_columns``, ``face_down``,
    ``face_up``, ``build``, ``sequence_moves`` and the optional ones), validated as the spec
    validates them, and ``variant`` must then be its ``id`` (a new one: the nine built-in ids
    are refused). The run's ``config.yaml`` and every saved model record the spec, so
    ``fortythieves evaluate RUN`` plays the same game.
    """

    # declared before ``variant``, whose check needs it
    custom_variant: dict[str, Any] | None = Field(
        default=None,
        description="the VariantSpec fields of a custom variant; variant must be its id",
    )
    variant: str = Field(
        description="variant id, e.g. Streets; env: its newest id, FortyThieves/<variant>-v0 "
        "(FortyThieves/LittleForty-v1)"
    )
    reward_per_card: float = Field(
        description="reward for each card put on a foundation; -1000..1000 (MAX_REWARD)"
    )
    win_bonus: float = Field(
        description="extra reward when all 104 cards are on the foundations; -1000..1000"
    )
    illegal_action_penalty: float = Field(description="subtracted on an illegal action; 0..1000")
    illegal_action: Literal["penalize", "raise"] = Field(description="what an illegal action does")
    max_episode_steps: int | None = Field(
        default=None,
        description="truncation limit, 1..10**6 (MAX_EPISODE_STEPS); null keeps the registered one",
    )
    max_steps_without_progress: int | None = Field(
        default=None,
        description="truncate after this many steps in a row without progress, "
        "1..10**6; null: never",
    )

    @field_validator("reward_per_card", "win_bonus", "illegal_action_penalty")
    @classmethod
    def _reward_scale(cls, value: float, info: ValidationInfo) -> float:
        low = 0.0 if info.field_name == "illegal_action_penalty" else -MAX_REWARD
        return _within(value, low, MAX_REWARD)

    @field_validator("max_episode_steps", "max_steps_without_progress", mode="before")
    @classmethod
    def _step_count_given(cls, value: Any) -> Any:
        return _step_count(value)  # before the int conversion, which refuses 1e20 bare

    @field_validator("max_episode_steps", "max_steps_without_progress")
    @classmethod
    def _step_count(cls, value: int | None) -> int | None:
        return _step_count(value)  # after it too: a string "2000000" is an int only now

    @field_validator("custom_variant")
    @classmethod
    def _valid_spec(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        return _variant_spec_fields(value)

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str, info: ValidationInfo) -> str:
        if "custom_variant" not in info.data:  # custom_variant failed: its error says why
            return value
        custom = info.data["custom_variant"]
        try:
            from fortythieves_env import VARIANTS
        except ImportError:  # the environment package is not importable: checked at make time
            return value
        if custom is not None:
            if value != custom["id"]:
                raise ValueError(
                    f"{value!r} is not the custom variant's id {custom['id']!r}: with "
                    f"env.custom_variant set, env.variant must be {custom['id']}"
                )
            return value
        if value not in VARIANTS:
            raise ValueError(
                f"unknown variant {value!r}; known variants: {', '.join(VARIANTS)} "
                "(or define one with env.custom_variant)"
            )
        return value

    def variant_spec(self) -> VariantSpec | None:
        """The custom variant's ``fortythieves_env.VariantSpec``, or None for a built-in one."""
        if self.custom_variant is None:
            return None
        from fortythieves_env import VariantSpec

        return VariantSpec(**self.custom_variant)

    def make_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``gymnasium.make`` (without ``render_mode``)."""
        kwargs: dict[str, Any] = {
            "reward_per_card": self.reward_per_card,
            "win_bonus": self.win_bonus,
            "illegal_action_penalty": self.illegal_action_penalty,
            "illegal_action": self.illegal_action,
        }
        if self.max_episode_steps is not None:
            kwargs["max_episode_steps"] = self.max_episode_steps
        if self.max_steps_without_progress is not None:
            kwargs["max_steps_without_progress"] = self.max_steps_without_progress
        return kwargs


class ShapingConfig(_Section):
    """Weights of the shaping potential (:mod:`fortythieves_agents.shaping`); 0 leaves a term out.
    Each is within ``-1000..1000`` (:data:`MAX_REWARD`)."""

    face_down: float = Field(
        default=0.0, allow_inf_nan=False, description="per face-down card turned up so far"
    )
    empty_columns: float = Field(
        default=0.0, allow_inf_nan=False, description="per empty column (no card at all)"
    )
    built_runs: float = Field(
        default=0.0,
        allow_inf_nan=False,
        description="per card lying on a card by the build rule in a column's end run",
    )

    @field_validator("face_down", "empty_columns", "built_runs")
    @classmethod
    def _reward_scale(cls, value: float, info: ValidationInfo) -> float:
        return _within(value, -MAX_REWARD, MAX_REWARD)


class TrainConfig(_Section):
    """Budget and machinery of a training run. Frequencies count environment steps in total."""

    total_timesteps: int = Field(gt=0)
    n_envs: int = Field(gt=0)
    vec_env: Literal["dummy", "subproc", "batched"]
    checkpoint_freq: int = Field(ge=0, description="0 disables checkpoints")
    progress_bar: bool
    tensorboard: bool
    device: str = Field(description="a torch device string: cpu, cuda, cuda:1, mps")
    torch_threads: int = Field(ge=0, description="torch.set_num_threads; 0 leaves torch's default")
    log_interval: int = Field(gt=0, description="SB3 log_interval, in rollouts")
    shaping: ShapingConfig | None = Field(
        default=None,
        description="potential-based reward shaping of the training envs only; null: none",
    )
    teacher: str | None = Field(
        default=None,
        description="an agent whose games the policy clones before PPO "
        "(fortythieves_agents.training.teacher); "
        "null: none",
    )
    no_cycling: bool = Field(
        default=False,
        description="training games follow the agents' no-cycling rule "
        "(fortythieves_agents.cycles): "
        "moves back to a view seen in the episode are masked, a game with none ends as "
        "stuck; needs vec_env: batched",
    )
    stall_ends_game: bool = Field(
        default=False,
        description="a training game cut by env.max_steps_without_progress counts as ended "
        "(nothing bootstrapped after it, as a lost game), not as a time-limit truncation; "
        "needs vec_env: batched",
    )
    critic_warmup: int = Field(
        default=0,
        ge=0,
        description="PPO steps at the start during which only the critic learns (the actor "
        "is frozen: fortythieves_agents.training.teacher.CriticWarmup); 0: off",
    )

    @field_validator("device")
    @classmethod
    def _torch_device(cls, value: str) -> str:
        import torch

        try:
            torch.device(value)
        except (RuntimeError, ValueError):
            raise ValueError(
                f"not a torch device: {value!r} (e.g. cpu, cuda, cuda:1, mps)"
            ) from None
        return value

    @model_validator(mode="after")
    def _warmup_leaves_steps_to_the_actor(self) -> TrainConfig:
        if self.critic_warmup >= self.total_timesteps:
            raise ValueError(
                f"train.critic_warmup ({self.critic_warmup}) must be below "
                f"train.total_timesteps ({self.total_timesteps}): the actor would never learn"
            )
        return self

    @model_validator(mode="after")
    def _batched_only_options(self) -> TrainConfig:
        for name in ("no_cycling", "stall_ends_game"):
            if getattr(self, name) and self.vec_env != "batched":
                raise ValueError(
                    f"train.{name} needs train.vec_env: batched (got {self.vec_env!r})"
                )
        return self

    @field_validator("teacher")
    @classmethod
    def _known_teacher(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value not in TEACHER_NAMES:
            raise ValueError(
                f"unknown teacher {value!r}; known teachers: {', '.join(TEACHER_NAMES)} (or null)"
            )
        return value


class TeacherConfig(_Section):
    """Behaviour cloning of ``train.teacher`` before PPO, and the optional imitation term
    during PPO (:mod:`fortythieves_agents.training.teacher`). Unused while ``train.teacher`` is
    null."""

    games: int = Field(
        default=200, gt=0, description="teacher games on training deals (1 in 10 held out)"
    )
    epochs: int = Field(default=8, gt=0, description="passes over the teacher samples")
    batch_size: int = Field(default=256, gt=0, description="samples per gradient step")
    learning_rate: float = Field(default=1.0e-3, gt=0, description="Adam step size of the cloning")
    fit_value: bool = Field(
        default=True,
        description="also fit the critic's own layers to the teacher games' discounted returns",
    )
    imitation_coef: float = Field(
        default=0.0,
        ge=0,
        description="weight of the teacher cross-entropy added to the PPO loss at step 0; 0: off",
    )
    search_samples: int = Field(
        default=16,
        gt=0,
        description="the search teacher's positions sampled per move "
        "(fortythieves_agents.players.search)",
    )
    imitation_fraction: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="the imitation weight falls linearly to 0 at this fraction of "
        "train.total_timesteps",
    )
    no_cycling: bool = Field(
        default=False,
        description="true: the teacher's games follow train.no_cycling as PPO's games do "
        "(moves back to a view seen are masked, a game left with none ends stuck); false: "
        "the teacher may repeat views until the no-progress truncation (the results of 0.3)",
    )
    ties: Literal["first", "any"] = Field(
        default="first",
        description="the cloning target: 'first', the teacher's move (the lowest action "
        "index among its equal best); 'any', every move it rates as high as that one "
        "(the loss is -log of their total probability)",
    )


class ExpertConfig(_Section):
    """Expert iteration before PPO (:mod:`fortythieves_agents.training.expert`): the search labels
    the positions the network reaches (DAgger), the network learns the search's move scores and
    the games' returns, repeat. Off while ``iterations`` is 0."""

    iterations: int = Field(default=0, ge=0, description="label-and-fit rounds; 0: off")
    games: int = Field(
        default=32, gt=0, description="games labelled per iteration (training deals)"
    )
    search_seconds: float = Field(
        default=0.1,
        gt=0,
        le=3600,
        description="the search's budget per labelled position "
        "(fortythieves_agents.players.search: the solving setting, seconds turned into nodes "
        "at a fixed rate)",
    )
    search_nodes: int = Field(
        default=1000,
        gt=0,
        le=10**9,
        description="node cap of one sampled position's solve (at most 10**9)",
    )
    mixing: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="probability that the search's move, not the network's, is played at "
        "iteration 0 (DAgger's beta); 1 with mixing_decay 1: the search's own games",
    )
    mixing_decay: float = Field(
        default=0.5, ge=0, le=1, description="beta at iteration i is mixing * mixing_decay**i"
    )
    targets: Literal["soft", "hard", "improve"] = Field(
        default="improve",
        description="hard: the search's move (its fusion-free tie-break decides among equally "
        "valued moves); soft: softmax of the search's candidate values / temperature (flat "
        "where many moves win every sample); improve: the network's own distribution times "
        "exp(value / temperature), normalised",
    )
    temperature: float = Field(
        default=0.05, gt=0, description="of the soft and improve targets, in win-rate units"
    )
    move_weight: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="soft targets: the share put on the search's own move, the rest spread "
        "by the values; 0: the values alone",
    )
    window: int = Field(
        default=4, gt=0, description="the fit uses the labels of the last this many iterations"
    )
    epochs: int = Field(default=8, gt=0, description="passes over the labels per iteration")
    batch_size: int = Field(default=256, gt=0, description="samples per gradient step")
    learning_rate: float = Field(default=1.0e-3, gt=0, description="Adam step size of the fit")
    fit_value: bool = Field(
        default=True,
        description="also fit the critic's own layers to the labelled games' discounted returns",
    )
    workers: int = Field(
        default=1,
        gt=0,
        description="processes labelling games at once (one core each; the labels are the "
        "same for any number)",
    )
    validation_games: int = Field(
        default=100,
        ge=0,
        description="validation deals the network alone plays after each iteration (the "
        "learning curve); 0: none",
    )
    start_model: str | None = Field(
        default=None,
        min_length=1,
        description="a model zip the iterations start from instead of the teacher's clone "
        "(this variant's, with this config's policy network: e.g. the shipped PPO model; "
        "relative to the working directory; needs train.teacher: null); null: the clone",
    )


class PPOConfig(_Section):
    """MaskablePPO hyperparameters (names as in ``sb3_contrib.MaskablePPO``)."""

    learning_rate: float = Field(gt=0)
    n_steps: int = Field(gt=0, description="steps per environment per rollout")
    batch_size: int = Field(gt=1)
    n_epochs: int = Field(gt=0)
    gamma: float = Field(gt=0, le=1)
    gae_lambda: float = Field(ge=0, le=1)
    clip_range: float = Field(gt=0)
    ent_coef: float = Field(ge=0)
    vf_coef: float = Field(ge=0)
    max_grad_norm: float = Field(gt=0)
    target_kl: float | None = Field(default=None, gt=0)


class PlayerNetConfig(_Section):
    """Sizes of the ``player`` network
    (:class:`fortythieves_agents.networks.policy.PlayerPolicy`)."""

    card_dim: int = Field(default=16, gt=0, description="learnt card embedding width")
    column_dim: int = Field(default=64, gt=0, description="width of a column's encoding")
    state_dim: int = Field(default=128, gt=0, description="width of the state encoding")
    scorer_arch: list[int] = Field(
        default=[128], description="hidden layer sizes of the move scorer (shared by all moves)"
    )
    value_arch: list[int] = Field(default=[128], description="hidden layer sizes of the value head")
    share_encoder: bool = Field(
        default=False, description="the value head reads the actor's encoders (else its own)"
    )

    @field_validator("scorer_arch", "value_arch")
    @classmethod
    def _positive_sizes(cls, value: list[int]) -> list[int]:
        if any(size <= 0 for size in value):
            raise ValueError("layer sizes must be positive integers")
        return value


class PolicyConfig(_Section):
    """Policy network: ``card_slots`` (card features extractor, then separate policy and value
    MLPs) or ``player`` (shared column encoder and move scorer,
    :mod:`fortythieves_agents.networks.policy`)."""

    network: Literal["card_slots", "player"] = Field(
        default="card_slots", description="which network: card_slots or player"
    )
    player: PlayerNetConfig = Field(default_factory=PlayerNetConfig)
    card_embedding_dim: int = Field(
        ge=0,
        description="per-slot linear map of the 53-way one-hot card code; 0 feeds the raw one-hot",
    )
    features_dim: int = Field(gt=0, description="width of the shared features layer")
    net_arch_pi: list[int] = Field(description="hidden layer sizes of the policy head")
    net_arch_vf: list[int] = Field(description="hidden layer sizes of the value head")
    activation: Literal["relu", "tanh"]

    @field_validator("net_arch_pi", "net_arch_vf")
    @classmethod
    def _positive_sizes(cls, value: list[int]) -> list[int]:
        if any(size <= 0 for size in value):
            raise ValueError("layer sizes must be positive integers")
        return value


class EvalConfig(_Section):
    """Periodic evaluation during training (validation deals) and the final test."""

    eval_freq: int = Field(ge=0, description="env steps between evaluations; 0 disables")
    n_eval_episodes: int = Field(
        gt=0, le=10**9, description="validation deals per periodic evaluation"
    )
    final_episodes: int = Field(
        ge=0, le=10**9, description="test deals in the final evaluation; 0 skips it"
    )
    deterministic: bool = Field(
        description="PPO plays its most likely action; false samples (seeded) from the policy"
    )
    baselines: list[Literal["random", "greedy"]] = Field(
        description="baselines evaluated beside the trained model in the final evaluation"
    )


class Config(_NoBoolForNumbers):
    """A complete, resolved run configuration."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    env: EnvConfig
    seed: int = Field(
        ge=0,
        le=2**32 - 1,
        description="seeds torch, the policy and the training deal draws (numpy takes 32 bits)",
    )
    train: TrainConfig
    ppo: PPOConfig
    policy: PolicyConfig
    eval: EvalConfig
    teacher: TeacherConfig = Field(default_factory=TeacherConfig)
    expert: ExpertConfig = Field(default_factory=ExpertConfig)

    @model_validator(mode="after")
    def _stall_ends_game_needs_a_stall_limit(self) -> Config:
        if self.train.stall_ends_game and self.env.max_steps_without_progress is None:
            raise ValueError(
                "train.stall_ends_game needs env.max_steps_without_progress (a number of "
                "steps): with null no game is cut for lack of progress, so it would do nothing"
            )
        return self

    @model_validator(mode="after")
    def _teacher_rule_needs_the_training_rule(self) -> Config:
        if self.teacher.no_cycling and not self.train.no_cycling:
            raise ValueError(
                "teacher.no_cycling needs train.no_cycling: true (the teacher's games follow "
                "the training games' rule)"
            )
        return self

    @model_validator(mode="after")
    def _start_model_replaces_the_teacher(self) -> Config:
        if self.expert.start_model is not None and self.train.teacher is not None:
            raise ValueError(
                "expert.start_model replaces the teacher's clone: set train.teacher: null "
                f"(got train.teacher: {self.train.teacher})"
            )
        if self.expert.start_model is not None and self.expert.iterations == 0:
            raise ValueError("expert.start_model needs expert.iterations > 0")
        return self

    @model_validator(mode="after")
    def _batch_fits_rollout(self) -> Config:
        rollout = self.ppo.n_steps * self.train.n_envs
        if self.ppo.batch_size > rollout:
            raise ValueError(
                f"ppo.batch_size ({self.ppo.batch_size}) is larger than a rollout "
                f"(ppo.n_steps * train.n_envs = {rollout})"
            )
        return self


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
    from fortythieves_env._files import UserFileError, read_user_text

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
