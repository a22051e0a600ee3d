"""The pydantic models of a run configuration (:class:`Config` and its sections ``env``,
``train``, ``ppo``, ``policy``, ``eval``, ``teacher``, ``expert``), every key with its type,
bounds and description; :mod:`fortythieves_agents.config` builds one from files and
``--set`` overrides and re-exports them."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

if TYPE_CHECKING:
    from fortythieves_env import VariantSpec

__all__ = [
    "MAX_EPISODE_STEPS",
    "MAX_REWARD",
    "TEACHER_NAMES",
    "Config",
    "EnvConfig",
    "EvalConfig",
    "ExpertConfig",
    "PPOConfig",
    "PlayerNetConfig",
    "PolicyConfig",
    "ShapingConfig",
    "TeacherConfig",
    "TrainConfig",
]

TEACHER_NAMES = ("greedy", "search")
"""The teachers ``train.teacher`` may name (:data:`fortythieves_agents.training.teacher.TEACHERS`
makes them; a test keeps the two equal). ``random`` is left out on purpose: cloning uniform play
teaches nothing."""


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
    validation_first: int = Field(
        default=0,
        ge=0,
        description="the first of those validation deals: past the deals the start network "
        "was picked on (a network picked as the best on some deals looks better there than "
        "it is)",
    )
    start_model: str | None = Field(
        default=None,
        min_length=1,
        description="a model zip the iterations start from instead of the teacher's clone "
        "(this variant's, with this config's policy network: e.g. the shipped PPO model; "
        "relative to the working directory; needs train.teacher: null); null: the clone",
    )

    @model_validator(mode="after")
    def _validation_inside_its_range(self) -> ExpertConfig:
        if self.validation_first + self.validation_games > 10**9:
            raise ValueError(
                "expert.validation_first + expert.validation_games must be at most 10**9 (the "
                f"validation deals), got {self.validation_first} + {self.validation_games}"
            )
        return self


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
    unseen_inputs: bool = Field(
        default=False,
        description="the state encoder also reads each card's unseen copies and copies in the "
        "waste (a start model without them is widened, its new inputs weighted 0)",
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

    @model_validator(mode="after")
    def _unseen_inputs_need_the_player_network(self) -> PolicyConfig:
        if self.player.unseen_inputs and self.network != "player":
            raise ValueError(
                "policy.player.unseen_inputs: only the player network has them (set "
                f"policy.network: player, or unseen_inputs: false; got {self.network!r})"
            )
        return self


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
