"""MaskablePPO training runs.

A run folder (default ``runs/<variant>-<YYYYmmdd-HHMMSS>``) holds::

    config.yaml              the resolved configuration (defaults + variant file + --set)
    config.until-<N>.yaml    the earlier config, when a resume from step N changed it
    command.txt              the command line that started the run (one line per start)
    run.json                 variant, env id, status (running | completed | interrupted |
                             failed: a crash, with its error), steps (start, planned, done),
                             timing; final_evaluation: interrupted | failed
    models/final_model.zip   the model at the end of training
    models/best_model.zip    the best model on the validation deals (ValidationCallback)
    models/interrupted_model.zip   saved on Ctrl-C instead of final_model.zip
    models/teacher_model.zip the model right after behaviour cloning (step 0; train.teacher)
    models/checkpoints/ckpt_<steps>_steps.zip   periodic checkpoints
    eval/evaluations.npz     the periodic validation results (SB3: returns, lengths, successes)
    eval/foundation_cards.npz   the validation episodes' foundation cards
    learning_curves.png      validation win rate and foundation cards against steps
                             (``fortythieves plot``; only with matplotlib installed)
    tensorboard/             TensorBoard logs (``tensorboard --logdir runs``)
    final_evaluation.json    PPO vs baselines on the test deals (see
    fortythieves_agents.evaluation.evaluate)

With ``train.teacher`` (:mod:`fortythieves_agents.training.teacher`) a new run first plays the
teacher's games and
clones them, before anything is written to the run folder (Ctrl-C then leaves the folder as it
was); ``run.json`` gets a ``teacher`` entry (the games, the cloning's loss and agreement with
the teacher on held-out games before and after, its time, and ``validation_after_cloning``:
the validation result at step 0, also the first point of ``eval/*.npz`` and of the learning
curves). ``--resume`` never clones again (the checkpoint holds the cloned weights); it replays
teacher games only when the imitation term is still on at the checkpoint's step.

Every saved model carries the attribute ``fortythieves_variant`` (the variant id), so that
evaluation can refuse a model trained for another variant, ``fortythieves_rules_version``
(:data:`fortythieves_env.RULES_VERSION`), so that evaluation and ``--resume`` refuse a model
trained under other rules, and ``fortythieves_variant_spec`` (a custom variant's spec, else
None), so that evaluation can play it (``fortythieves_agents.envs``). ``run.json`` records the
``rules_version`` too.

TensorBoard scalars beyond SB3's own: ``episodes/win_rate``, ``episodes/mean_foundation_cards``
and ``episodes/mean_length`` over the last 100 training episodes (from ``Monitor``'s
``info["episode"]``), and ``eval/*`` from the periodic validation.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback

from fortythieves_env import RULES_VERSION

from ..config import Config, ConfigError, dump_config, install_hint
from ..envs import (
    env_id_for,
    make_training_vec_env,
    n_card_slots,
    register_config_variant,
    tag_model,
)
from ..evaluation.evaluate import single_torch_thread
from ..networks.model_zip import (
    ModelMismatchError,
    check_model_rules,
    check_model_spaces,
    load_maskable_ppo,
    model_data,
    model_env_id,
    model_variant,
)
from ..paths import check_readable_file, check_writable_dir, check_writable_file
from ..process import compile_notice, stop_signals_interrupt, torch_threads
from ..run_folder import (
    RUN_FILES,
    RUN_FOLDERS,
    ExpertFolder,
    RunFolder,
    RunWriteError,
    atomic_write,
    save_model,
)

__all__ = [
    "COMPILE_NOTICE",
    "EpisodeStatsCallback",
    "StepProgressCallback",
    "TotalStepCheckpoint",
    "TrainResult",
    "ValidationCallback",
    "build_model",
    "check_run_folder",
    "default_run_dir",
    "final_evaluation_command",
    "policy_differences",
    "policy_for",
    "resume_checkpoint",
    "run_folder_of",
    "saved_timesteps",
    "train",
    "trim_tensorboard",
    "unreadable_model",
]


COMPILE_NOTICE = (
    "compiling the game's kernels (the first run after an install or an update: a minute or "
    "two, more on a busy machine; numba caches them for later runs)"
)
"""What :func:`train` prints when numba starts compiling (only then:
:func:`fortythieves_agents.process.compile_notice`); the first run after an install was
otherwise silent for minutes after the teacher's first line."""


class EpisodeStatsCallback(BaseCallback):
    """Log win rate, mean foundation cards and mean episode length of recent episodes.

    Reads ``model.ep_info_buffer`` (the last 100 ``info["episode"]`` dicts written by
    ``Monitor`` with ``info_keywords=("foundation_cards", "is_success")``) at each rollout end.
    """

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        buffer = list(self.model.ep_info_buffer or [])
        if not buffer:
            return
        self.logger.record("episodes/win_rate", float(np.mean([e["is_success"] for e in buffer])))
        self.logger.record(
            "episodes/mean_foundation_cards",
            float(np.mean([e["foundation_cards"] for e in buffer])),
        )
        self.logger.record("episodes/mean_length", float(np.mean([e["l"] for e in buffer])))


def next_multiple(steps: int, freq: int) -> int:
    """The first multiple of ``freq`` above ``steps`` (total environment steps): where the
    validations and checkpoints of a run fall, resumed or not. ``freq`` 0: 0 (never used)."""
    return (steps // freq + 1) * freq if freq > 0 else 0


class ValidationCallback(BaseCallback):
    """Play the validation deals every ``eval_freq`` environment steps as ``evaluate`` plays
    the test deals, keep the best model, and record each validation episode.

    When: at the first step at or past each multiple of ``eval_freq`` in the run's *total*
    steps (``model.num_timesteps``), so a resumed run validates at the steps the run would
    have validated at had it never stopped (SB3's ``EvalCallback`` counts its own calls from
    0 in every ``learn()``, so after a resume at step S it fires at S + freq); and, with
    :meth:`validate_end`, at the end of every run, so the final evaluation's pick of
    ``best_model.zip`` has seen the model training ended with.

    Each validation plays the first ``n_eval_episodes`` validation seeds
    (:func:`fortythieves_agents.seeds.seeds_for_validation`: the same deals every time) on the
    registered
    game ``env_id`` (the rule book's rewards and step limit, no shaping and no no-progress
    truncation: the game the final evaluation plays) with the current policy
    (:class:`fortythieves_agents.evaluation.evaluate.ModelAgent`, ``deterministic`` and ``seed`` as
    in the final
    evaluation) under the agents' no-cycling rule (:mod:`fortythieves_agents.cycles`), all deals in
    one batch (:func:`fortythieves_agents.evaluation.evaluate.play_deals`) and torch on one thread.
    So the learning
    curves and the choice of ``best_model.zip`` measure what ``evaluate`` reports, not argmax
    play shuttling a card to the step limit.

    Written in ``folder`` (when set) after each validation, in SB3's ``EvalCallback`` format
    so that SB3's readers and ``fortythieves plot`` read them:

    - ``evaluations.npz``: ``timesteps`` ``int64 (n_evals,)``; ``results`` (returns),
      ``ep_lengths`` and ``successes``, each ``(n_evals, n_eval_episodes)``;
    - ``foundation_cards.npz``: ``timesteps`` and ``foundation_cards``
      ``int64 (n_evals, n_eval_episodes)``, the cards on the foundations at the end of each
      validation episode; ``stuck`` ``bool (n_evals, n_eval_episodes)``: ended by the
      no-cycling rule.

    ``best_model.zip`` (in ``best_model_save_path``) is replaced when the mean return beats
    every earlier validation's. TensorBoard gets ``eval/mean_reward``,
    ``eval/mean_ep_length``, ``eval/success_rate``, ``eval/mean_foundation_cards`` and
    ``eval/stuck_rate``.
    """

    def __init__(
        self,
        env_id: str,
        n_eval_episodes: int,
        eval_freq: int,
        best_model_save_path: str | Path | None,
        folder: str | Path | None,
        deterministic: bool = True,
        seed: int = 0,
        evaluate_at_start: bool = False,
        echo: Callable[[str], None] | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(verbose)
        if n_eval_episodes < 1:
            raise ValueError(f"n_eval_episodes must be at least 1, got {n_eval_episodes}")
        if eval_freq < 0:
            raise ValueError(f"eval_freq must be >= 0 (0: only validate_end), got {eval_freq}")
        self.env_id = env_id
        self.n_eval_episodes = n_eval_episodes
        self.eval_freq = eval_freq
        """Environment steps (over all envs) between validations; 0: none during training."""
        self.echo = echo
        """Called with one line per validation (step, foundation cards with their 95%
        interval, wins, best so far), as SB3's ``EvalCallback`` prints with ``verbose=1``."""
        self._next_at = 0
        self.seconds = 0.0
        """Wall seconds spent validating so far (in this process)."""
        self.best_model_save_path = best_model_save_path
        self.folder = None if folder is None else Path(folder)
        self.deterministic = deterministic
        self.seed = seed
        self.evaluate_at_start = evaluate_at_start
        """Also evaluate when training starts (step 0 after behaviour cloning)."""
        self.play: Callable[[Any, list[int]], list[Any]] | None = None
        """Plays ``(agent, seeds)`` instead of ``play_deals`` on ``env_id`` (the family's
        validation: :mod:`fortythieves_agents.family.train`)."""
        self.best_mean_reward = -np.inf
        self.best_timesteps: int | None = None
        """The step of the validation that saved ``best_model.zip`` (None: none yet, or one
        an earlier part of the run made and :meth:`restore_history` took back)."""
        self.evaluations_timesteps: list[int] = []
        self.evaluations_results: list[list[float]] = []
        self.evaluations_length: list[list[int]] = []
        self.evaluations_successes: list[list[bool]] = []
        self.evaluations_foundation_cards: list[list[int]] = []
        self.evaluations_stuck: list[list[bool]] = []

    def restore_history(self, up_to: int) -> int:
        """Take back the validations an earlier part of this run saved (``evaluations.npz``
        and ``foundation_cards.npz`` in ``folder``) at ``up_to`` steps or before, so that a
        resumed run keeps its whole validation history in those files and replaces
        ``best_model.zip`` only with a model that beats every earlier one
        (``best_mean_reward``). Nothing is taken back from files of another shape (the
        number of validation episodes changed) or that cannot be read.

        Returns:
            The number of validations taken back.
        """
        if self.folder is None:
            return 0
        try:
            with np.load(self.folder / "evaluations.npz") as sb3:
                timesteps = sb3["timesteps"]
                returns, lengths = sb3["results"], sb3["ep_lengths"]
                successes = sb3["successes"] if "successes" in sb3.files else None
            with np.load(self.folder / "foundation_cards.npz") as ours:
                cards_timesteps, cards = ours["timesteps"], ours["foundation_cards"]
                stuck = ours["stuck"] if "stuck" in ours.files else np.zeros_like(cards, bool)
        except (OSError, KeyError, ValueError):
            return 0
        keep = timesteps <= up_to
        shape = (int(keep.sum()), self.n_eval_episodes)
        if (
            returns.ndim != 2
            or returns[keep].shape != shape
            or lengths[keep].shape != shape
            or (successes is not None and successes[keep].shape != shape)
            or cards_timesteps.tolist() != timesteps.tolist()
            or cards[keep].shape != shape
            or stuck[keep].shape != shape
            or not shape[0]
        ):
            return 0
        self.evaluations_timesteps = timesteps[keep].tolist()
        self.evaluations_results = returns[keep].tolist()
        self.evaluations_length = lengths[keep].tolist()
        if successes is not None:
            self.evaluations_successes = successes[keep].tolist()
        self.evaluations_foundation_cards = cards[keep].tolist()
        self.evaluations_stuck = stuck[keep].tolist()
        means = returns[keep].mean(axis=1)
        self.best_mean_reward = float(means.max())
        self.best_timesteps = int(timesteps[keep][int(np.argmax(means))])
        return shape[0]

    def _on_training_start(self) -> None:
        self._next_at = next_multiple(self.num_timesteps, self.eval_freq)
        if self.evaluate_at_start and self.n_calls == 0:
            self.validate()  # an evaluation at the model's current step

    def _on_step(self) -> bool:
        if self.eval_freq > 0 and self.num_timesteps >= self._next_at:
            self.validate()
            self._next_at = next_multiple(self.num_timesteps, self.eval_freq)
        return True

    def validate_end(self) -> bool:
        """Validate the model as it is now unless the last validation was at this step.

        Called when training ends (not on Ctrl-C), before the final evaluation picks
        ``best_model.zip``: the last rollout's update is otherwise never validated.

        Returns:
            True when a validation ran.
        """
        if self.evaluations_timesteps and self.evaluations_timesteps[-1] == self.num_timesteps:
            return False
        self.validate()
        return True

    def validate(self) -> float:
        """Play the validation deals now; record, log and save as described above.

        Returns:
            The mean return of the validation episodes.
        """
        from ..evaluation.evaluate import (
            ModelAgent,
            play_deals,
            summarize,
        )
        from ..seeds import seeds_for_validation

        began = time.perf_counter()
        self.num_timesteps = int(self.model.num_timesteps)  # also when called after learn()
        agent = ModelAgent(self.model, "ppo", self.deterministic, self.seed)
        seeds = seeds_for_validation(self.n_eval_episodes)
        with single_torch_thread():
            play = self.play or (lambda a, s: play_deals(a, self.env_id, s))
            results = play(agent, seeds)
        returns = [float(r.ret) for r in results]
        self.evaluations_timesteps.append(int(self.num_timesteps))
        self.evaluations_results.append(returns)
        self.evaluations_length.append([int(r.length) for r in results])
        self.evaluations_successes.append([bool(r.won) for r in results])
        self.evaluations_foundation_cards.append([int(r.foundation_cards) for r in results])
        self.evaluations_stuck.append([bool(r.stuck) for r in results])
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            timesteps = np.asarray(self.evaluations_timesteps, dtype=np.int64)
            _write_npz(
                self.folder / "evaluations.npz",
                timesteps=timesteps,
                results=np.asarray(self.evaluations_results, dtype=np.float64),
                ep_lengths=np.asarray(self.evaluations_length, dtype=np.int64),
                successes=np.asarray(self.evaluations_successes, dtype=bool),
            )
            _write_npz(
                self.folder / "foundation_cards.npz",
                timesteps=timesteps,
                foundation_cards=np.asarray(self.evaluations_foundation_cards, dtype=np.int64),
                stuck=np.asarray(self.evaluations_stuck, dtype=bool),
            )
        mean_reward = float(np.mean(returns))
        self.logger.record("eval/mean_reward", mean_reward)
        self.logger.record("eval/mean_ep_length", float(np.mean(self.evaluations_length[-1])))
        self.logger.record("eval/success_rate", float(np.mean(self.evaluations_successes[-1])))
        self.logger.record(
            "eval/mean_foundation_cards", float(np.mean(self.evaluations_foundation_cards[-1]))
        )
        self.logger.record("eval/stuck_rate", float(np.mean(self.evaluations_stuck[-1])))
        self.logger.record("time/total_timesteps", self.num_timesteps, exclude="tensorboard")
        self.logger.dump(self.num_timesteps)
        new_best = mean_reward > self.best_mean_reward
        if new_best:
            self.best_mean_reward = mean_reward
            self.best_timesteps = int(self.num_timesteps)
            if self.best_model_save_path is not None:
                Path(self.best_model_save_path).mkdir(parents=True, exist_ok=True)
                save_model(self.model, Path(self.best_model_save_path) / "best_model.zip")
        self.seconds += time.perf_counter() - began
        if self.echo is not None:
            self.echo(self._line(summarize(results), new_best))
        return mean_reward

    def _line(self, summary: dict[str, Any], new_best: bool) -> str:
        """The console line of one validation."""
        lo, hi = summary["foundation_cards_ci95"]
        if new_best:
            best = "new best"
        elif self.best_timesteps is None:
            best = f"best mean return so far {self.best_mean_reward:.2f}"
        else:
            best = f"best so far: step {self.best_timesteps:,}"
        return (
            f"validation at step {self.num_timesteps:,}: "
            f"{summary['mean_foundation_cards']:.1f} [{lo:.1f}, {hi:.1f}] foundation cards, "
            f"{100 * summary['win_rate']:.1f}% wins ({summary['wins']}/{summary['episodes']}), "
            f"{100 * summary['stuck_rate']:.0f}% stuck; mean return "
            f"{float(np.mean(self.evaluations_results[-1])):.2f} ({best})"
        )


class TotalStepCheckpoint(CheckpointCallback):
    """SB3's ``CheckpointCallback`` at the first step at or past each multiple of
    ``save_freq`` in the run's total steps (``model.num_timesteps``), not every
    ``save_freq`` calls counted from 0 in each ``learn()``: a resumed run saves
    ``ckpt_<steps>_steps.zip`` at the steps it would have saved at without the stop.

    Args:
        save_freq: environment steps (over all envs) between checkpoints, at least 1.
        save_path: the folder of the checkpoints.
        name_prefix: the files' prefix (``<prefix>_<steps>_steps.zip``).
    """

    def __init__(self, save_freq: int, save_path: str, name_prefix: str = "ckpt") -> None:
        if save_freq < 1:
            raise ValueError(f"save_freq must be at least 1, got {save_freq}")
        super().__init__(save_freq=save_freq, save_path=save_path, name_prefix=name_prefix)
        self._next_at = 0

    def _on_training_start(self) -> None:
        self._next_at = next_multiple(self.num_timesteps, self.save_freq)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next_at:
            save_model(self.model, Path(self._checkpoint_path(extension="zip")))
            self._next_at = next_multiple(self.num_timesteps, self.save_freq)
        return True


def saved_timesteps(path: str | Path) -> int | None:
    """The ``num_timesteps`` saved in an SB3 model zip (its ``data`` entry), or None when
    the file is missing or is not a model zip."""
    try:
        value = model_data(path).get("num_timesteps")
    except ModelMismatchError:
        return None
    return value if isinstance(value, int) else None


def trim_tensorboard(folder: str | Path, up_to: int) -> int:
    """Drop the TensorBoard events after step ``up_to`` from every event file under
    ``folder``, so that a run resumed from an earlier checkpoint (step ``up_to``) continues
    one curve instead of drawing both branches (stable-baselines3 issue #433: a resumed
    ``learn()`` appends to the run's latest log folder). Events at ``up_to`` or before,
    and those without a step (the file header), are kept; a file that cannot be read is
    left as it is.

    Returns:
        The number of events dropped.
    """
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto import event_pb2
    from tensorboard.summary.writer.record_writer import RecordWriter

    dropped = 0
    for path in sorted(Path(folder).glob("**/events.out.tfevents.*")):
        try:
            records = list(RawEventFileLoader(str(path)).Load())
            kept = [r for r in records if event_pb2.Event.FromString(r).step <= up_to]
        except Exception:  # a damaged log is left alone, never fatal
            continue
        if len(kept) == len(records):
            continue
        dropped += len(records) - len(kept)
        temporary = path.with_name(path.name + ".trimmed")
        with temporary.open("wb") as out:
            writer = RecordWriter(out)
            for record in kept:
                writer.write(record)
            writer.flush()
        temporary.replace(path)
    return dropped


def default_run_dir(variant: str, root: str | Path = "runs") -> Path:
    """``runs/<variant>-<YYYYmmdd-HHMMSS>`` (a ``-2``, ``-3`` suffix if it exists)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path(root) / f"{variant}-{stamp}"
    n = 2
    while path.exists():
        path = Path(root) / f"{variant}-{stamp}-{n}"
        n += 1
    return path


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
        pairs = {
            f"player.{key}": list(saved[key])
            if isinstance(saved.get(key), tuple)
            else saved.get(key)
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


class StepProgressCallback(BaseCallback):
    """A tqdm bar on stderr counting environment steps from ``start`` to ``end`` (the true
    total, a whole number of rollouts), with steps per second and the time left."""

    def __init__(self, start: int, end: int) -> None:
        super().__init__()
        self.start, self.end = start, end
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            total=self.end,
            initial=self.start,
            unit="step",
            file=sys.stderr,
            dynamic_ncols=True,
            smoothing=0.05,
        )

    def _on_step(self) -> bool:
        self.bar.update(self.model.num_timesteps - self.bar.n)
        return True

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Clear the bar inside the block and draw it again after, so that lines printed
        meanwhile are not broken by it."""
        if self.bar is None:
            yield
            return
        self.bar.clear()
        try:
            yield
        finally:
            self.bar.refresh()

    def close(self) -> None:
        """Close the bar (also on Ctrl-C, when SB3 does not end the training)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _on_training_end(self) -> None:
        self.close()


@dataclass
class TrainResult:
    """What :func:`train` produced.

    ``status``: ``"completed"``; ``"interrupted"`` (Ctrl-C or SIGTERM during training, the
    model saved as ``interrupted_model.zip``; during the teacher's games or the behaviour
    cloning, nothing saved and ``model_path`` None); or ``"evaluation_interrupted"`` (training
    completed and saved, the final evaluation stopped; ``evaluation`` is None).
    """

    run_dir: Path
    status: str
    model_path: Path | None
    timesteps: int
    seconds: float
    evaluation: dict[str, Any] | None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write(path, (json.dumps(data, indent=2) + "\n").encode())


def _write_npz(path: Path, **arrays: np.ndarray) -> None:
    """``np.savez(path, **arrays)`` through :func:`atomic_write` (a full disk leaves the
    previous file, not half of a new one)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write(path, buffer.getvalue())


def run_folder_of(checkpoint: str | Path) -> Path | None:
    """The run folder a checkpoint belongs to (``<run>/models/x.zip`` or
    ``<run>/models/checkpoints/x.zip`` with a ``<run>/run.json``), or ``None``."""
    for parent in Path(checkpoint).resolve().parents[:3]:
        if RunFolder(parent).run_json.is_file() and RunFolder(parent).models.is_dir():
            return parent
    return None


def unreadable_model(path: Path) -> str | None:
    """Why the model zip at ``path`` cannot be read (missing, not a regular file, not a zip,
    a damaged member, no readable ``data``: a save cut short by a full disk), or None when
    it can."""
    try:
        check_readable_file(path, "", zip_archive=True)
        model_data(path)
    except (ConfigError, ModelMismatchError) as exc:
        return str(exc).strip().removeprefix(f"{path}: ")
    return None


def _checkpoints_newest_first(run: Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of the run's ``ckpt_<steps>_steps.zip`` files, most steps first."""
    found = []
    for path in RunFolder(run).checkpoint_paths():
        steps = path.name[len("ckpt_") : -len("_steps.zip")]
        if steps.isdigit():
            found.append((int(steps), path))
    return sorted(found, reverse=True)


def resume_checkpoint(target: str | Path, note: Callable[[str], object] | None = None) -> Path:
    """The model zip ``--resume TARGET`` continues from: ``target`` itself when it is a
    file; for a run folder, the model its last start ended with (``run.json``'s ``model``:
    ``models/final_model.zip`` or ``models/interrupted_model.zip``), else (a start that was
    killed or failed before it could save, ``run.json`` still ``running`` or ``failed``) its
    checkpoint of the most steps (``models/checkpoints/ckpt_<steps>_steps.zip``). In a run
    folder, a model that cannot be read (:func:`unreadable_model`: a save cut short, say) is
    skipped for the next one, each with a one-line note.

    Args:
        target: a model zip or a run folder.
        note: called with each note (``--resume RUN: skipped ... (why)``); None: silent.

    Raises:
        ConfigError: ``target`` is missing, or a folder with none of those files readable
            (the message names what was looked for, and how many were skipped).
    """
    from fortythieves_env._files import read_user_text

    target = Path(target)
    if not target.is_dir():
        return target  # check_readable_file says what is wrong with it, if anything
    try:
        meta = json.loads(read_user_text(RunFolder(target).run_json))
    except (OSError, ValueError):
        meta = None
    model = meta.get("model") if isinstance(meta, dict) else None
    candidates = [target / model] if isinstance(model, str) and (target / model).exists() else []
    candidates += [path for _, path in _checkpoints_newest_first(target)]
    skipped = 0
    for path in candidates:
        why = unreadable_model(path)
        if why is None:
            return path
        skipped += 1
        if note is not None:
            note(f"--resume {target}: skipped {path.relative_to(target)} ({why})")
    unreadable = f"; {skipped} unreadable skipped" if skipped else ""
    raise ConfigError(
        f"--resume {target}: no model to continue from in this folder (looked for the model "
        f"named in run.json and models/checkpoints/ckpt_<steps>_steps.zip{unreadable}); "
        "give a model zip"
    )


def _write_failure(run: Path, exc: RunWriteError) -> str:
    """The one line of a run stopped by a file it could not write: the folder, the file,
    why, the models kept (the newest readable checkpoint and the other models of
    ``models/``), and how to continue."""
    folder = RunFolder(run)
    name = Path(exc.filename)
    with contextlib.suppress(ValueError):
        name = name.relative_to(run)
    kept = [
        str(path.relative_to(run))
        for path in (folder.final_model, folder.interrupted_model, folder.best_model)
        if path.is_file() and unreadable_model(path) is None
    ]
    checkpoint = next(
        (path for _, path in _checkpoints_newest_first(run) if unreadable_model(path) is None),
        None,
    )
    if checkpoint is not None:
        kept.insert(0, f"{checkpoint.relative_to(run)} (the newest checkpoint)")
    if folder.final_model.is_file() and unreadable_model(folder.final_model) is None:
        then = f"free space, then evaluate it with: fortythieves evaluate {run}"
    elif checkpoint is not None or ExpertFolder(folder.expert).unfinished():
        then = f"free space, then continue with: fortythieves train {folder.config} --resume {run}"
    else:
        then = "nothing to resume from: free space, then train again in a new --run-dir"
    return (
        f"--run-dir {run}: cannot write {name} ({exc.strerror}); the half-written file was "
        f"removed; kept: {', '.join(kept) or 'no model'}; {then}"
    )


def check_run_folder(run: Path) -> None:
    """Refuse a run folder :func:`train` could not fill, before anything is written.

    Raises:
        ConfigError: ``run`` or one of :data:`RUN_FOLDERS` is a file, one of
            :data:`RUN_FILES` is a folder or not writable, or the folder cannot be created.
            The message starts with ``--run-dir`` and names the path.
    """
    check_writable_dir(run, "--run-dir")
    for name in RUN_FOLDERS:
        if (run / name).exists() and not (run / name).is_dir():
            raise ConfigError(f"--run-dir {run}: {run / name} is a file, not a folder")
    for name in RUN_FILES:
        check_writable_file(run / name, "--run-dir")


def _load_checkpoint(path: Path, config: Config, env: Any, tensorboard_log: str | None) -> Any:
    """Load a checkpoint to continue training with ``config``'s hyperparameters.

    Every ``ppo.*`` value and ``seed`` are applied: they are passed to ``MaskablePPO.load``,
    which sets them before ``_setup_model`` rebuilds the learning-rate schedule, the
    ``clip_range`` schedule and the rollout buffer (``n_steps``, ``gamma``, ``gae_lambda``)
    from them. The network cannot change: a ``policy.*`` value other than the checkpoint's
    is refused, naming the key.

    Raises:
        ConfigError: the file cannot be loaded, its spaces do not fit the environment, or
            ``policy.*`` differs from the checkpoint's network.
    """
    try:
        model = load_maskable_ppo(
            path,
            env=env,
            device=config.train.device,
            tensorboard_log=tensorboard_log,
            seed=config.seed,
            **config.ppo.model_dump(),
        )
    except ModelMismatchError as exc:
        raise ConfigError(f"--resume {exc}") from None
    differences = policy_differences(model.policy_kwargs, config)
    if differences:
        raise ConfigError(
            f"--resume {path}: the network cannot change when resuming: "
            + "; ".join(differences)
            + " (set these back to the checkpoint's values)"
        )
    return model


def _record_start(
    run: Path, config: Config, argv: list[str], resume: Path | None, start_steps: int
) -> str | None:
    """Write ``config.yaml`` and append to ``command.txt``; on a resume whose config differs
    from the folder's ``config.yaml``, keep that one as ``config.until-<steps>.yaml``.

    Returns:
        The name of the kept earlier config, if any.

    Raises:
        ConfigError: a file or folder cannot be written (named).
    """
    kept = None
    target = run
    try:
        for name in ("", *RUN_FOLDERS):
            target = run / name
            target.mkdir(parents=True, exist_ok=True)
        text = dump_config(config)
        target = RunFolder(run).config
        if resume is not None and target.is_file():
            try:
                before = target.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                before = None
            if before != text:
                keep = run / f"config.until-{start_steps}.yaml"
                n = 2
                while keep.exists():
                    keep = run / f"config.until-{start_steps}-{n}.yaml"
                    n += 1
                target.replace(keep)
                kept = keep.name
        target.write_text(text, encoding="utf-8")
        target = run / "command.txt"
        with target.open("a", encoding="utf-8") as out:  # one line per (re)start
            out.write(shlex.join(argv) + "\n")
    except OSError as exc:
        raise ConfigError(
            f"--run-dir {run}: cannot write {target}: {exc.strerror or exc}"
        ) from None
    return kept


def train(
    config: Config,
    run_dir: str | Path | None = None,
    resume: str | Path | None = None,
    argv: list[str] | None = None,
    console: Any = None,
    continue_expert: bool = False,
) -> TrainResult:
    """Train MaskablePPO as ``config`` says, then run the final evaluation.

    Everything is checked before anything is written or trained: the checkpoint (loaded
    in full), the run folder and every file train writes there (:func:`check_run_folder`).
    A refused call leaves the disk untouched.

    Training runs whole rollouts (SB3 always finishes one): the steps to run are rounded up
    to a multiple of ``ppo.n_steps * train.n_envs`` (a message says so, and ``run.json``
    records ``planned_timesteps``); the progress bar (``train.progress_bar``, on stderr, only
    when it is a terminal) shows that true total.

    Process state: the SIGINT and SIGTERM handlers (which raise ``KeyboardInterrupt`` during
    the call) and torch's thread count (``train.torch_threads``) are put back when the call
    returns or raises. SB3 seeds the process-wide generators (``random``, numpy's global one,
    torch's) with ``config.seed`` when it builds or loads the model; that is not undone.
    When numba starts compiling the kernels (the first run after an install), the console
    says so once (:data:`COMPILE_NOTICE`); with the progress bar on, the teacher's games and
    the behaviour cloning show bars too.

    Args:
        config: the resolved configuration.
        run_dir: the run folder; default: the checkpoint's run folder when resuming (see
            :func:`run_folder_of`), else :func:`default_run_dir`. Created if missing. A
            folder that already holds a run is refused unless resuming.
        resume: a checkpoint zip to continue from. ``train.total_timesteps`` is then the total
            including the checkpoint's steps. ``ppo.*``, ``seed``, ``env.*``, ``train.*`` and
            ``eval.*`` of ``config`` apply from the checkpoint on (see
            :func:`_load_checkpoint`); a different network (``policy.*``) is refused. In the
            checkpoint's own run folder, a changed config replaces ``config.yaml`` and the
            earlier one is kept as ``config.until-<checkpoint steps>.yaml``.
        argv: the command line to record (default ``sys.argv``).
        console: a ``rich.console.Console`` for messages (default: a new one).
        continue_expert: ``run_dir`` holds a run stopped during its expert iterations
            (:mod:`fortythieves_agents.training.expert`; ``train --resume RUN``): continue them (no
            teacher games again), then PPO as in a new run. ``resume`` must be None.

    Returns:
        A :class:`TrainResult`. On Ctrl-C (or SIGTERM) during training the model is saved as
        ``interrupted_model.zip``, ``status`` is ``"interrupted"`` and no final evaluation is
        run. On Ctrl-C during the final evaluation the trained model stays saved, the
        command that re-runs the evaluation is printed and ``status`` is
        ``"evaluation_interrupted"``.

    Raises:
        ConfigError: the checkpoint is missing, damaged, trained for another variant, made
            for another id version (``LittleForty-v0``: another observation) or with
            another network, or has already reached ``train.total_timesteps``; the run
            folder or a file in it cannot be written; ``run_dir`` holds another run and this
            is not a resume. Raised before anything is written. Also, during the run, when a
            file of the run folder cannot be written (a full disk): every model and file is
            written through a ``.part`` file renamed into place
            (:func:`fortythieves_agents.run_folder.save_model`), so the failed write leaves
            nothing behind; ``run.json`` is marked ``failed`` if it can be, and the one-line
            message names the folder, the file, the models kept and the ``--resume``
            command.
    """
    from rich.console import Console

    console = console or Console(soft_wrap=True)
    variant = config.env.variant
    if resume is not None:
        resume = Path(resume)
        _check_model_zip(resume, "--resume", config, resuming=True)

    if run_dir is None and resume is not None:
        run_dir = run_folder_of(resume)  # resume where the checkpoint was written
    run = Path(run_dir) if run_dir is not None else default_run_dir(variant)
    check_run_folder(run)
    if continue_expert:
        expert_folder = ExpertFolder(RunFolder(run).expert)
        if resume is not None or not expert_folder.unfinished():
            raise ConfigError(f"--resume {run}: no unfinished expert iterations there")
        if config.expert.iterations == 0:
            raise ConfigError(
                f"--resume {run}: the run stopped during its expert iterations, but the "
                "config has expert.iterations: 0; resume with the config that started it"
            )
        from .expert import refuse_other_settings

        refuse_other_settings(run, expert_folder.read_state(), config)
    elif resume is None and (RunFolder(run).run_json.is_file() or RunFolder(run).expert.is_dir()):
        raise ConfigError(
            f"--run-dir {run}: a run is already there; choose another folder, or continue it "
            "with --resume <checkpoint>"
        )
    if resume is None and not continue_expert and config.expert.start_model is not None:
        _check_model_zip(config.expert.start_model, "expert.start_model", config, resuming=False)
    argv = list(argv if argv is not None else sys.argv)

    def compiling() -> None:
        console.print(COMPILE_NOTICE, markup=False, highlight=False)
        sys.stdout.flush()

    with (
        torch_threads(config.train.torch_threads),
        stop_signals_interrupt(),
        compile_notice(compiling),
    ):
        try:
            return _train(config, run, resume, argv, console, continue_expert)
        except RunWriteError as exc:  # a full disk: one line, what was kept, how to go on
            raise ConfigError(_write_failure(run, exc)) from None


def _load_start_model(model: Any, path: str) -> None:
    """Set ``model``'s policy to the weights of the zip at ``path`` (weights only: SB3's
    ``set_parameters``, which unpickles nothing).

    Raises:
        ConfigError: the zip's network is not the config's (one line naming the setting).
    """
    try:
        model.set_parameters(path, exact_match=True)
    except Exception as exc:  # torch, pickle and zip errors alike: the weights are unusable
        cause = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ConfigError(
            f"expert.start_model {path}: its network is not this config's policy ({cause})"
        ) from None


def _check_model_zip(path: str | Path, what: str, config: Config, *, resuming: bool) -> None:
    """Refuse a model zip that training with ``config`` cannot start from, before any work:
    a checkpoint to resume (``resuming``; ``what`` ``"--resume"``) or the expert iterations'
    start (``"expert.start_model"``). The one-line message names ``what`` and the path.

    Args:
        path: the model zip.
        what: the argument or setting that named it.
        config: the training config (its variant, rules and observation version).
        resuming: a checkpoint to continue: one that records no variant (saved before
            variants were recorded) is accepted, as loading it compares its spaces with the
            environment's. A start model must record this variant, and its saved spaces are
            compared here (its weights are set into a new network, which compares shapes
            only: another variant's network can have the same).

    Raises:
        ConfigError: the file is missing, unreadable or not a zip; it was trained for another
            variant (or, a start model, records none or saved other spaces); it was made
            under other rules; or for another observation version (``LittleForty-v0``).
    """
    path = Path(path)
    check_readable_file(path, what, zip_archive=True)
    variant = config.env.variant
    again = "; start a new run" if resuming else ""
    try:
        saved = model_variant(path)
    except ModelMismatchError as exc:
        raise ConfigError(f"{what} {exc}") from None
    if saved is None and not resuming:
        raise ConfigError(
            f"{what} {path}: the model records no variant (fortythieves train records it), "
            f"so it cannot be checked to be {variant}'s"
        )
    if saved is not None and saved != variant:
        raise ConfigError(
            f"{what} {path}: a model of {saved}, not of {variant} (the config's env.variant)"
        )
    try:
        check_model_rules(path)
    except ModelMismatchError as exc:
        raise ConfigError(f"{what} {exc}{again}") from None
    made_for = model_env_id(path)
    wanted = register_config_variant(config.env)
    if made_for is not None and made_for != wanted:
        raise ConfigError(
            f"{what} {path}: a model made for {made_for}, but training plays {wanted} "
            f"(another observation version){': it cannot continue here' if resuming else ''}"
            f"{again} (evaluate it with --env-version {made_for.rpartition('-v')[2]})"
        )
    if not resuming:
        env = gym.make(wanted)
        try:
            check_model_spaces(path, env.observation_space, env.action_space, wanted)
        except ModelMismatchError as exc:
            raise ConfigError(f"{what} {exc}") from None
        finally:
            env.close()


def _callbacks(
    config: Config,
    run: Path,
    resume: Path | None,
    start_steps: int,
    cloned: bool,
    teacher_games: Any,
    bar: Any,
    echo: Callable[[str], None],
    console: Any,
) -> tuple[list[BaseCallback], Any, Any, Any]:
    """The callbacks of :func:`_train`'s ``model.learn``: episode statistics, the periodic
    validation (restored on a resume), the imitation term and the critic warm-up (when the
    config asks), checkpoints, the progress bar. Returns them with the validation,
    imitation and warm-up callbacks (None where off), which the caller ends itself."""
    models = RunFolder(run).models
    callbacks: list[BaseCallback] = [EpisodeStatsCallback()]
    validation = None
    if config.eval.eval_freq > 0:
        validation = ValidationCallback(
            env_id_for(config.env.variant),
            n_eval_episodes=config.eval.n_eval_episodes,
            eval_freq=config.eval.eval_freq,
            best_model_save_path=models,
            folder=RunFolder(run).eval,
            deterministic=config.eval.deterministic,
            seed=config.seed,
            evaluate_at_start=cloned,
            echo=echo,
        )
        if resume is not None:
            _restore_validations(validation, start_steps, RunFolder(run).best_model, console)
        callbacks.append(validation)
    imitation = None
    if teacher_games is not None:
        from .teacher import ImitationTerm

        imitation = ImitationTerm(
            teacher_games,
            config.teacher.imitation_coef,
            config.teacher.imitation_fraction,
            config.train.total_timesteps,
            config.teacher.batch_size,
            config.seed,
        )
        callbacks.append(imitation)
    warmup = None
    if config.train.critic_warmup > 0:
        from .teacher import CriticWarmup

        warmup = CriticWarmup(config.train.critic_warmup)
        callbacks.append(warmup)
    if config.train.checkpoint_freq > 0:
        callbacks.append(
            TotalStepCheckpoint(
                config.train.checkpoint_freq, str(RunFolder(run).checkpoints), name_prefix="ckpt"
            )
        )
    if bar is not None:
        callbacks.append(bar)
    return callbacks, validation, imitation, warmup


def _run_meta(
    config: Config,
    model: Any,
    resume: Path | None,
    start_steps: int,
    end_steps: int,
    teacher_meta: dict[str, Any] | None,
) -> dict[str, Any]:
    """``run.json`` as training starts (status ``running``)."""
    meta = {
        "variant": config.env.variant,
        "env_id": model.env.get_attr("spec", indices=[0])[0].id,
        "rules_version": RULES_VERSION,
        "status": "running",
        "resumed_from": str(resume) if resume is not None else None,
        "started": datetime.now().isoformat(timespec="seconds"),
        "start_timesteps": start_steps,
        "planned_timesteps": end_steps,
    }
    if teacher_meta is not None:
        meta["teacher"] = teacher_meta
    return meta


def _note_cloning_validation(meta: dict[str, Any], validation: Any) -> None:
    """``run.json``'s ``teacher.validation_after_cloning``: the validation at step 0 of a run
    that started from behaviour cloning (when it ran)."""
    evaluation = validation
    if evaluation.evaluations_timesteps[0] == 0:
        cards = evaluation.evaluations_foundation_cards[0]
        meta["teacher"]["validation_after_cloning"] = {
            "episodes": len(cards),
            "mean_foundation_cards": round(float(np.mean(cards)), 3),
            "win_rate": round(float(np.mean(evaluation.evaluations_successes[0])), 4)
            if evaluation.evaluations_successes
            else None,
        }


def _after_training(
    config: Config,
    run: Path,
    model: Any,
    model_path: Path,
    meta: dict[str, Any],
    status: str,
    seconds: float,
    end_validated: bool,
    console: Any,
    progress: bool,
) -> TrainResult:
    """:func:`_train` once the model is saved and ``run.json`` written: what the console
    says, and the final evaluation unless the run or the end's validation was interrupted."""
    if status == "interrupted":
        console.print(
            f"[yellow]interrupted[/yellow] after {model.num_timesteps} steps; model saved to "
            f"{model_path}\nresume with: fortythieves train {RunFolder(run).config} "
            f"--resume {model_path} --run-dir {run}"
        )
        return TrainResult(run, status, model_path, int(model.num_timesteps), seconds, None)

    steps = int(model.num_timesteps) - int(meta["start_timesteps"])
    console.print(
        f"trained {steps} steps in {seconds:.0f} s ({steps / max(seconds, 1e-9):.0f} steps/s); "
        f"model: {model_path}"
    )
    if not end_validated:
        console.print(
            f"[yellow]the final model's validation was interrupted[/yellow]: "
            f"{RunFolder(run).best_model} has not been compared with it; no final "
            "evaluation. "
            f"Evaluate either with: fortythieves evaluate {model_path} "
            f"--episodes {config.eval.final_episodes}"
        )
        return TrainResult(
            run, "evaluation_interrupted", model_path, int(model.num_timesteps), seconds, None
        )
    report = None
    if config.eval.final_episodes > 0:
        try:
            report = _final_evaluation(config, run, model_path, meta, console, progress)
        except Exception as exc:
            _mark_failed(run, meta, "final_evaluation", exc)
            raise
        if report is None:
            return TrainResult(
                run, "evaluation_interrupted", model_path, int(model.num_timesteps), seconds, None
            )
    console.print(_phase_times(meta), markup=False, highlight=False)
    return TrainResult(run, status, model_path, int(model.num_timesteps), seconds, report)


def _validate_end(validation: Any, status: str, cloned: bool, meta: dict[str, Any]) -> bool:
    """Validate the last rollout's update (a completed run), before the final evaluation
    picks a model, and note the cloned start's validation in ``meta``; False when Ctrl-C
    stopped that validation."""
    validated = True
    if status == "completed" and validation is not None:
        try:
            validation.validate_end()
        except KeyboardInterrupt:
            validated = False
    if cloned and validation is not None and validation.evaluations_timesteps:
        _note_cloning_validation(meta, validation)
    return validated


def _teacher_phase(
    config: Config,
    model: Any,
    run: Path,
    resume: Path | None,
    start_steps: int,
    continue_expert: bool,
    console: Any,
) -> tuple[dict[str, Any] | None, Any] | None:
    """The teacher's figures and imitation games before PPO (behaviour cloning on a fresh
    run; on a continued expert run, read back); ``None`` when Ctrl-C stops it, having
    written nothing to the run folder."""
    try:  # nothing is written before this ends: Ctrl-C here leaves the folder as it was
        if continue_expert:  # the teacher's cloning is in the expert iterations' start
            teacher_meta = ExpertFolder(RunFolder(run).expert).read_state().get("teacher")
            return teacher_meta, _imitation_games(config, start_steps, console)
        return _start_from_teacher(config, model, resume, start_steps, run, console)
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted[/yellow] before PPO (teacher games or behaviour "
            f"cloning); nothing was written to {run}"
        )
        return None


def _trim_resumed_tensorboard(tb: str, start_steps: int, console: Any) -> None:
    """Drop the TensorBoard events an earlier part of a resumed run logged after its
    checkpoint, so the curves continue from it."""
    dropped = trim_tensorboard(tb, start_steps)
    if dropped:
        console.print(
            f"TensorBoard: dropped {dropped} event(s) logged after step {start_steps} "
            "by the run's earlier part, so the resumed curves continue from the checkpoint"
        )


def _record_end(
    folder: RunFolder,
    meta: dict[str, Any],
    model: Any,
    start_steps: int,
    status: str,
    seconds: float,
    model_path: Path,
    validation: Any,
) -> None:
    """Write the end of training into run.json (``meta``, updated in place)."""
    steps = int(model.num_timesteps - start_steps)
    meta.update(
        status=status,
        finished=datetime.now().isoformat(timespec="seconds"),
        timesteps=int(model.num_timesteps),
        train_seconds=round(seconds, 2),
        steps_per_second=round(steps / seconds, 1) if seconds > 0 else None,
        model=str(model_path.relative_to(folder.path)),
    )
    if validation is not None:
        meta["validation_seconds"] = round(validation.seconds, 2)
    _write_json(folder.run_json, meta)


def _train(
    config: Config,
    run: Path,
    resume: Path | None,
    argv: list[str],
    console: Any,
    continue_expert: bool = False,
) -> TrainResult:
    """:func:`train` once the arguments are checked (handlers and threads already set)."""
    variant = config.env.variant
    progress = config.train.progress_bar and sys.stderr.isatty()
    folder = RunFolder(run)
    tb = str(folder.tensorboard) if config.train.tensorboard else None
    env = make_training_vec_env(config)
    meta: dict[str, Any] | None = None  # run.json once the run folder is written
    try:
        if resume is not None:
            model = _load_checkpoint(resume, config, env, tb)
            tag_model(model, config.env)
        else:
            model = build_model(config, env, tb)
            if config.expert.start_model is not None and not continue_expert:
                _load_start_model(model, config.expert.start_model)
        start_steps = int(model.num_timesteps)
        remaining = config.train.total_timesteps - start_steps
        if remaining <= 0:
            raise ConfigError(
                f"--resume {resume}: the checkpoint has {start_steps} steps, "
                f"train.total_timesteps is {config.train.total_timesteps}: nothing to do"
            )
        rollout = config.ppo.n_steps * config.train.n_envs
        to_run = -(-remaining // rollout) * rollout  # SB3 always finishes a rollout
        end_steps = start_steps + to_run

        started = _teacher_phase(config, model, run, resume, start_steps, continue_expert, console)
        if started is None:
            return TrainResult(run, "interrupted", None, start_steps, 0.0, None)
        teacher_meta, teacher_games = started
        cloned = resume is None and teacher_meta is not None

        # accepted: from here on the run folder is written
        kept = _record_start(run, config, argv, resume, start_steps)
        if kept is not None:
            console.print(f"the run's earlier config.yaml is kept as {run / kept}")
        if cloned and not continue_expert:
            tag_model(model, config.env)
            save_model(model, folder.teacher_model)
        expert_meta = None
        if config.expert.iterations > 0 and resume is None:
            expert_meta = _expert_phase(config, model, run, console, teacher_meta)
            if expert_meta is None:
                return TrainResult(run, "interrupted", None, start_steps, 0.0, None)
        if resume is not None and tb is not None:
            _trim_resumed_tensorboard(tb, start_steps, console)
        bar = StepProgressCallback(start_steps, end_steps) if progress else None

        def echo(line: str) -> None:
            with bar.paused() if bar is not None else contextlib.nullcontext():
                console.print(line, markup=False, highlight=False)
                sys.stdout.flush()

        callbacks, validation, imitation, warmup = _callbacks(
            config, run, resume, start_steps, cloned, teacher_games, bar, echo, console
        )

        meta = _run_meta(config, model, resume, start_steps, end_steps, teacher_meta)
        if expert_meta is None and resume is not None:
            expert_meta = _earlier_meta(run, "expert")  # kept on a PPO resume
        if expert_meta is not None:
            meta["expert"] = expert_meta
        _write_json(folder.run_json, meta)
        start = time.perf_counter()
        status = "completed"
        if to_run != remaining:
            console.print(
                f"train.total_timesteps {config.train.total_timesteps} rounded up to {end_steps}"
                f": training runs whole rollouts of ppo.n_steps * train.n_envs = {rollout} steps"
            )
        try:  # Ctrl-C (or SIGTERM) from here on saves the model
            console.print(f"[bold]training[/bold] {variant} for {to_run} steps -> {run}")
            sys.stdout.flush()
            model.learn(
                total_timesteps=to_run,
                callback=CallbackList(callbacks),
                log_interval=config.train.log_interval,
                tb_log_name="ppo",
                reset_num_timesteps=resume is None,
            )
            model_path = folder.final_model
        except KeyboardInterrupt:
            status = "interrupted"
            model_path = folder.interrupted_model
        finally:
            if bar is not None:
                bar.close()
            if imitation is not None:
                imitation.remove()  # Ctrl-C skips SB3's training end
            if warmup is not None:
                warmup.release()
        seconds = time.perf_counter() - start
        end_validated = _validate_end(validation, status, cloned, meta)
        tag_model(model, config.env)
        save_model(model, model_path)
    except Exception as exc:
        if meta is not None:  # a crash: run.json must not stay "running"
            _mark_failed(run, meta, "status", exc)
        raise
    finally:
        # subprocess workers may already have stopped on Ctrl-C
        with contextlib.suppress(OSError, EOFError):
            env.close()
    _record_end(folder, meta, model, start_steps, status, seconds, model_path, validation)
    if not end_validated:
        meta["end_validation"] = "interrupted"
        _write_json(folder.run_json, meta)
    _write_learning_curves(run, console)
    return _after_training(
        config, run, model, model_path, meta, status, seconds, end_validated, console, progress
    )


def _expert_phase(
    config: Config,
    model: Any,
    run: Path,
    console: Any,
    teacher_meta: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Run (or continue) the expert iterations (:mod:`fortythieves_agents.training.expert`) on
    ``model``; None if interrupted (everything made so far is kept in ``RUN/expert``).

    Returns:
        The ``expert`` entry of ``run.json``: per iteration the labels, labels per second,
        fit and validation figures (``expert/state.json``), and the seconds of this start.
    """
    from .expert import run_expert_iterations

    def save(m: Any, path: Path) -> None:
        tag_model(m, config.env)
        save_model(m, path)

    ec = config.expert
    console.print(
        f"[bold]expert iteration[/bold]: {ec.iterations} iteration(s) of {ec.games} games "
        f"labelled by the search at {ec.search_seconds} s per move -> {RunFolder(run).expert}"
    )
    sys.stdout.flush()
    began = time.perf_counter()
    try:
        state = run_expert_iterations(
            config,
            model,
            run,
            register_config_variant(config.env),
            echo=lambda line: console.print(line, markup=False, highlight=False),
            save_model=save,
            extra_state={"teacher": teacher_meta},
        )
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted[/yellow] during the expert iterations; what they made is "
            f"kept in {RunFolder(run).expert}\ncontinue with: fortythieves train "
            f"{RunFolder(run).config} --resume {run}"
        )
        return None
    return {**state, "seconds_this_start": round(time.perf_counter() - began, 2)}


def _mark_failed(run: Path, meta: dict[str, Any], key: str, exc: BaseException) -> None:
    """Record a crash in ``run.json``: ``meta[key] = "failed"``, the error and the time."""
    meta[key] = "failed"
    meta["error"] = f"{type(exc).__name__}: {exc}"
    meta["finished"] = datetime.now().isoformat(timespec="seconds")
    with contextlib.suppress(OSError):
        _write_json(RunFolder(run).run_json, meta)


def _phase_times(meta: dict[str, Any]) -> str:
    """One line with the time of each phase of this start of the run, from ``run.json``."""
    parts = []
    teacher = meta.get("teacher") or {}
    if "collect_seconds" in teacher and meta.get("resumed_from") is None:
        parts.append(f"teacher games {teacher['collect_seconds']:.0f} s")
        cloning = teacher.get("behaviour_cloning") or {}
        if "seconds" in cloning:
            parts.append(f"behaviour cloning {cloning['seconds']:.0f} s")
    expert = meta.get("expert") or {}
    if "seconds_this_start" in expert:
        parts.append(f"expert iterations {expert['seconds_this_start']:.0f} s")
    ppo = f"PPO {meta['train_seconds']:.0f} s"
    if meta.get("steps_per_second"):
        ppo += f" at {meta['steps_per_second']:.0f} steps/s"
    if "validation_seconds" in meta:
        ppo += f" (validations {meta['validation_seconds']:.0f} s, with the end's)"
    parts.append(ppo)
    if "final_evaluation_seconds" in meta:
        parts.append(f"final evaluation {meta['final_evaluation_seconds']:.0f} s")
    return "time: " + ", ".join(parts)


def _restore_validations(
    validation: ValidationCallback, start_steps: int, best: Path, console: Any
) -> None:
    """On a resume at ``start_steps``: take back the run's validations up to that step and
    check that ``best`` (``best_model.zip``) is the model of the best of them. A best model
    saved by the run after ``start_steps`` (a resume from an earlier checkpoint: that branch
    is abandoned) or missing cannot be played as the restored best, so the resumed run's
    first validation replaces it (said on the console)."""
    if not validation.restore_history(start_steps):
        return
    console.print(
        f"kept the run's {len(validation.evaluations_timesteps)} validation(s) up to step "
        f"{start_steps} (best mean return {validation.best_mean_reward:.2f} at step "
        f"{validation.best_timesteps})"
    )
    on_disk = saved_timesteps(best)
    if on_disk != validation.best_timesteps:
        found = "missing" if on_disk is None else f"from step {on_disk}"
        console.print(
            f"{best} is {found}, not the kept best (step {validation.best_timesteps}): the "
            "resumed run's first validation replaces it"
        )
        validation.best_mean_reward = -np.inf
        validation.best_timesteps = None


def _start_from_teacher(
    config: Config, model: Any, resume: Path | None, start_steps: int, run: Path, console: Any
) -> tuple[dict[str, Any] | None, Any]:
    """Play the teacher's games and clone them (a new run), as
    :mod:`fortythieves_agents.training.teacher` says.

    Returns:
        ``(meta, games)``: the ``teacher`` entry of ``run.json`` (None without a teacher) and
        the :class:`~fortythieves_agents.training.teacher.TeacherGames` the imitation term replays
        (None when the term is off, or has decayed to 0 at a resumed checkpoint's step).
    """
    name = config.train.teacher
    if name is None:
        return None, None
    from .teacher import (
        clone_teacher,
        collect_teacher_games,
        make_teacher,
    )

    tc = config.teacher
    if resume is not None:  # never clone again: the checkpoint holds the cloned weights
        return _earlier_meta(run, "teacher"), _imitation_games(config, start_steps, console)
    console.print(f"[bold]teacher[/bold] {name}: playing {tc.games} games on training deals")
    sys.stdout.flush()
    progress = config.train.progress_bar and sys.stderr.isatty()
    teacher = make_teacher(name, config.seed, tc.search_samples)
    games = collect_teacher_games(config, teacher, tc.games, progress=progress)
    imitating = _imitating(config, start_steps)
    summary = games.summary()
    console.print(
        f"teacher games: {summary['samples']} moves, {summary['mean_foundation_cards']:.1f} "
        f"foundation cards on average, {100 * summary['win_rate']:.1f}% won "
        f"({summary['collect_seconds']:.0f} s); behaviour cloning, {tc.epochs} epochs"
    )
    sys.stdout.flush()
    clone = clone_teacher(
        model, games, tc, config.ppo.max_grad_norm, config.seed, progress=progress
    )
    before, after = clone["before"], clone["after"]
    console.print(
        f"behaviour cloning ({clone['seconds']:.0f} s): agreement with {name} on "
        f"{clone['held_out_games']} held-out games {100 * before['accuracy']:.1f}% -> "
        f"{100 * after['accuracy']:.1f}%, cross-entropy {before['loss']:.3f} -> "
        f"{after['loss']:.3f}"
    )
    meta = {"name": name, **summary, "behaviour_cloning": clone}
    return meta, games if imitating else None


def _imitating(config: Config, start_steps: int) -> bool:
    """The imitation term's weight is still above 0 at step ``start_steps``."""
    tc = config.teacher
    return (
        config.train.teacher is not None
        and tc.imitation_coef > 0
        and start_steps < tc.imitation_fraction * config.train.total_timesteps
    )


def _imitation_games(config: Config, start_steps: int, console: Any) -> Any:
    """On a resumed or continued run (no cloning again): the teacher's games again, for
    the imitation term while its weight is above 0 (the same games: they depend on the
    config only); else None."""
    if not _imitating(config, start_steps):
        return None
    from .teacher import collect_teacher_games, make_teacher

    tc = config.teacher
    assert config.train.teacher is not None
    console.print(
        f"[bold]teacher[/bold] {config.train.teacher}: playing {tc.games} games on training "
        "deals (no behaviour cloning: the games feed the imitation term)"
    )
    sys.stdout.flush()
    teacher = make_teacher(config.train.teacher, config.seed, tc.search_samples)
    progress = config.train.progress_bar and sys.stderr.isatty()
    return collect_teacher_games(config, teacher, tc.games, progress=progress)


def _earlier_meta(run: Path, key: str) -> dict[str, Any] | None:
    """The ``key`` entry (``teacher``, ``expert``) of the run folder's ``run.json``, if any
    (kept on a resume)."""
    try:
        data = json.loads(RunFolder(run).run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else None


def _write_learning_curves(run: Path, console: Any) -> None:
    """Write ``run/learning_curves.png`` (:mod:`fortythieves_agents.training.plot`), or say why not:
    no matplotlib (the ``plots`` extra), or no validation ran (``eval.eval_freq`` 0 or a short
    run)."""
    if importlib.util.find_spec("matplotlib") is None:
        console.print(
            f"no learning_curves.png: plots need matplotlib ({install_hint('plots')}); "
            f"later: fortythieves plot {run}",
            markup=False,
        )
        return
    from .plot import PlotError, plot_runs

    try:
        plot_runs([run], RunFolder(run).learning_curves)
    except PlotError as exc:
        console.print(f"no learning_curves.png: {exc}", markup=False)
        return
    console.print(f"learning curves: {run / 'learning_curves.png'}")


def final_evaluation_command(config: Config, model: Path, run: Path) -> list[str]:
    """The ``fortythieves evaluate`` command that plays the same final evaluation as
    :func:`train` (same model, deals, seed, sampling and baselines; same JSON file)."""
    command = ["fortythieves", "evaluate", str(model)]
    command += ["--episodes", str(config.eval.final_episodes), "--seed", str(config.seed)]
    if not config.eval.deterministic:
        command.append("--stochastic")
    command += ["--baselines", *config.eval.baselines]
    return [*command, "--json", str(RunFolder(run).final_evaluation)]


def _final_evaluation(
    config: Config,
    run: Path,
    model_path: Path,
    meta: dict[str, Any],
    console: Any,
    progress: bool,
) -> dict[str, Any] | None:
    """Play the final evaluation, write ``final_evaluation.json``; None if interrupted.

    ``run.json`` gets ``final_evaluation_seconds`` and is written *before*
    ``final_evaluation.json``, so the evaluation is never older than the run's record
    (``scripts/training/full_run.py`` re-runs an evaluation older than ``run.json``)."""
    began = time.perf_counter()
    from ..evaluation.evaluate import (
        baseline_agents,
        evaluate_agents,
        load_model_agent,
        render_table,
    )
    from ..evaluation.solve import test_deal_verdicts

    best = RunFolder(run).best_model
    chosen = best if best.is_file() else model_path
    try:
        # loaded as `fortythieves evaluate` loads it (weights and plain metadata)
        ppo_agent, _ = load_model_agent(
            chosen, config.env.variant, config.eval.deterministic, config.seed
        )
        agents = [ppo_agent, *baseline_agents(config.eval.baselines, config.seed)]
        # the solver's verdicts, when results/solver/<variant>.jsonl covers the test deals:
        # the table then shows each agent's wins among the deals proved winnable, as
        # `fortythieves evaluate` does
        solver = test_deal_verdicts(config.env.variant, config.eval.final_episodes, command="train")
        report = evaluate_agents(
            agents,
            config.env.variant,
            config.eval.final_episodes,
            progress=progress,
            solver=solver,
        )
    except KeyboardInterrupt:
        meta["final_evaluation"] = "interrupted"
        _write_json(RunFolder(run).run_json, meta)
        command = shlex.join(final_evaluation_command(config, chosen, run))
        console.print(
            f"[yellow]final evaluation interrupted[/yellow]; the trained model is kept in "
            f"{model_path}; re-run the evaluation with: {command}"
        )
        return None
    report["model"] = str(chosen.relative_to(run))
    meta["final_evaluation_seconds"] = round(time.perf_counter() - began, 2)
    _write_json(RunFolder(run).run_json, meta)
    _write_json(RunFolder(run).final_evaluation, report)
    console.print(render_table(report))
    console.print(f"PPO model evaluated: {chosen}")
    return report
