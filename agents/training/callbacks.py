"""The callbacks of a training run's ``model.learn`` (stable-baselines3's
``BaseCallback``): episode statistics, the periodic validation on fixed deals
(:class:`ValidationCallback`: the learning curves and ``best_model.zip``), checkpoints at the
run's total steps, the progress bar; :func:`_callbacks` assembles them as a run's config asks."""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

from ..config import Config
from ..envs import env_id_for
from ..evaluation.evaluate import single_torch_thread
from ..run_folder import (
    BEST_MODEL,
    CHECKPOINT_PREFIX,
    EVALUATIONS,
    FOUNDATION_CARDS,
    RunFolder,
    atomic_write,
    save_model,
)
from .resume import saved_timesteps

__all__ = [
    "EpisodeStatsCallback",
    "StepProgressCallback",
    "TotalStepCheckpoint",
    "ValidationCallback",
    "next_multiple",
]


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
            with np.load(self.folder / EVALUATIONS) as sb3:
                timesteps = sb3["timesteps"]
                returns, lengths = sb3["results"], sb3["ep_lengths"]
                successes = sb3["successes"] if "successes" in sb3.files else None
            with np.load(self.folder / FOUNDATION_CARDS) as ours:
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
                self.folder / EVALUATIONS,
                timesteps=timesteps,
                results=np.asarray(self.evaluations_results, dtype=np.float64),
                ep_lengths=np.asarray(self.evaluations_length, dtype=np.int64),
                successes=np.asarray(self.evaluations_successes, dtype=bool),
            )
            _write_npz(
                self.folder / FOUNDATION_CARDS,
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
                save_model(self.model, Path(self.best_model_save_path) / BEST_MODEL)
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

    def __init__(
        self, save_freq: int, save_path: str, name_prefix: str = CHECKPOINT_PREFIX
    ) -> None:
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


def _write_npz(path: Path, **arrays: np.ndarray) -> None:
    """``np.savez(path, **arrays)`` through :func:`atomic_write` (a full disk leaves the
    previous file, not half of a new one)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write(path, buffer.getvalue())


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
    """The callbacks of :func:`~.train._train`'s ``model.learn``: episode statistics, the periodic
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
                config.train.checkpoint_freq,
                str(RunFolder(run).checkpoints),
                name_prefix=CHECKPOINT_PREFIX,
            )
        )
    if bar is not None:
        callbacks.append(bar)
    return callbacks, validation, imitation, warmup


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
