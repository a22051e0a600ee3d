"""MaskablePPO training runs.

A run folder (default ``runs/<variant>-<YYYYmmdd-HHMMSS>``) holds::

    config.yaml              the resolved configuration (defaults + variant file + --set)
    command.txt              the command line that started the run (one line per start)
    run.json                 variant, env id, status (completed | interrupted), steps, timing
    models/final_model.zip   the model at the end of training
    models/best_model.zip    the best model on the validation deals (MaskableEvalCallback)
    models/interrupted_model.zip   saved on Ctrl-C instead of final_model.zip
    models/checkpoints/ckpt_<steps>_steps.zip   periodic checkpoints
    eval/evaluations.npz     the periodic validation results
    tensorboard/             TensorBoard logs (``tensorboard --logdir runs``)
    final_evaluation.json    PPO vs baselines on the test deals (see agents.evaluation)

Every saved model carries the attribute ``fortythieves_variant`` (the variant id), so that
evaluation can refuse a model trained for another variant.

TensorBoard scalars beyond SB3's own: ``episodes/win_rate``, ``episodes/mean_foundation_cards``
and ``episodes/mean_length`` over the last 100 training episodes (from ``Monitor``'s
``info["episode"]``), and ``eval/*`` from the periodic validation.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback

from .config import Config, ConfigError, dump_config
from .envs import make_training_vec_env, make_validation_vec_env, n_card_slots
from .evaluation import ModelMismatchError, model_variant, single_torch_thread

__all__ = [
    "EpisodeStatsCallback",
    "RewindingMaskableEvalCallback",
    "TrainResult",
    "build_model",
    "default_run_dir",
    "train",
]

VARIANT_ATTR = "fortythieves_variant"


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


class RewindingMaskableEvalCallback(MaskableEvalCallback):
    """``MaskableEvalCallback`` that replays the same validation deals at every evaluation.

    The eval env is wrapped in :class:`agents.seeds.CyclingDeals`; it is rewound to the
    first seed right before each evaluation, so the best model is chosen on fixed deals.
    Evaluations run torch on one thread.
    """

    def _on_step(self) -> bool:
        if self.eval_freq > 0 and self.n_calls % self.eval_freq == 0:
            self.eval_env.env_method("rewind")
            with single_torch_thread():  # batch-1 inference: ~2x faster on one thread
                return super()._on_step()
        return super()._on_step()


def default_run_dir(variant: str, root: str | Path = "runs") -> Path:
    """``runs/<variant>-<YYYYmmdd-HHMMSS>`` (a ``-2``, ``-3`` suffix if it exists)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path(root) / f"{variant}-{stamp}"
    n = 2
    while path.exists():
        path = Path(root) / f"{variant}-{stamp}-{n}"
        n += 1
    return path


def build_model(config: Config, env: Any, tensorboard_log: str | None) -> Any:
    """A fresh ``MaskablePPO`` for ``config`` on vectorised ``env``.

    ``policy.network`` chooses SB3's stock policy over :class:`agents.features.CardSlotsExtractor`
    (``card_slots``) or :class:`agents.policy.PlayerPolicy` (``player``).
    """
    import torch
    from sb3_contrib import MaskablePPO

    from .features import CardSlotsExtractor
    from .policy import PlayerPolicy

    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[config.policy.activation]
    policy: Any = "MlpPolicy"
    if config.policy.network == "player":
        policy = PlayerPolicy
        policy_kwargs = {
            "variant": config.env.variant,
            **config.policy.player.model_dump(),
            "activation_fn": activation,
        }
    else:
        policy_kwargs = {
            "features_extractor_class": CardSlotsExtractor,
            "features_extractor_kwargs": {
                "n_card_slots": n_card_slots(env),
                "card_embedding_dim": config.policy.card_embedding_dim,
                "features_dim": config.policy.features_dim,
                "activation": config.policy.activation,
            },
            "net_arch": {
                "pi": list(config.policy.net_arch_pi),
                "vf": list(config.policy.net_arch_vf),
            },
            "activation_fn": activation,
        }
    ppo = config.ppo
    model = MaskablePPO(
        policy,
        env,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        target_kl=ppo.target_kl,
        policy_kwargs=policy_kwargs,
        tensorboard_log=tensorboard_log,
        seed=config.seed,
        device=config.train.device,
        verbose=0,
    )
    setattr(model, VARIANT_ATTR, config.env.variant)
    return model


@dataclass
class TrainResult:
    """What :func:`train` produced."""

    run_dir: Path
    status: str
    model_path: Path
    timesteps: int
    seconds: float
    evaluation: dict[str, Any] | None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _interrupt_on_stop_signals() -> None:
    """Make SIGINT and SIGTERM raise ``KeyboardInterrupt`` so training saves its model.

    A job started in the background by a non-interactive shell inherits SIGINT as ignored,
    and batch schedulers stop jobs with SIGTERM: both would otherwise lose the model.
    Only possible in the main thread; elsewhere the handlers are left as they are.
    """
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _raise_keyboard_interrupt)
        signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)


def run_folder_of(checkpoint: str | Path) -> Path | None:
    """The run folder a checkpoint belongs to (``<run>/models/x.zip`` or
    ``<run>/models/checkpoints/x.zip`` with a ``<run>/run.json``), or ``None``."""
    for parent in Path(checkpoint).resolve().parents[:3]:
        if (parent / "run.json").is_file() and (parent / "models").is_dir():
            return parent
    return None


def train(
    config: Config,
    run_dir: str | Path | None = None,
    resume: str | Path | None = None,
    argv: list[str] | None = None,
    console: Any = None,
) -> TrainResult:
    """Train MaskablePPO as ``config`` says, then run the final evaluation.

    Args:
        config: the resolved configuration.
        run_dir: the run folder; default: the checkpoint's run folder when resuming (see
            :func:`run_folder_of`), else :func:`default_run_dir`. Created if missing. A
            folder that already holds a run is refused unless resuming.
        resume: a checkpoint zip to continue from. ``train.total_timesteps`` is then the total
            including the checkpoint's steps; the checkpoint's own hyperparameters are kept.
        argv: the command line to record (default ``sys.argv``).
        console: a ``rich.console.Console`` for messages (default: a new one).

    Returns:
        A :class:`TrainResult`. On Ctrl-C the model is saved as ``interrupted_model.zip``,
        ``status`` is ``"interrupted"`` and no final evaluation is run.

    Raises:
        ConfigError: the checkpoint is missing or was trained for another variant, or
            it has already reached ``train.total_timesteps``; ``run_dir`` holds another run
            and this is not a resume.
    """
    import torch
    from rich.console import Console
    from sb3_contrib import MaskablePPO

    from .evaluation import ModelAgent, baseline_agents, evaluate_agents, render_table

    console = console or Console(soft_wrap=True)
    variant = config.env.variant
    if resume is not None:
        resume = Path(resume)
        if not resume.is_file():
            raise ConfigError(f"--resume {resume}: checkpoint file not found")
        try:
            saved = model_variant(resume)
        except ModelMismatchError as exc:
            raise ConfigError(f"--resume {resume}: {exc}") from None
        if saved is not None and saved != variant:
            raise ConfigError(
                f"--resume {resume}: checkpoint trained for variant {saved!r}, "
                f"but the config says {variant!r}"
            )

    if run_dir is None and resume is not None:
        run_dir = run_folder_of(resume)  # resume where the checkpoint was written
    run = Path(run_dir) if run_dir is not None else default_run_dir(variant)
    if resume is None and (run / "run.json").is_file():
        raise ConfigError(
            f"--run-dir {run}: a run is already there; choose another folder, or continue it "
            "with --resume <checkpoint>"
        )
    models = run / "models"
    (models / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run / "eval").mkdir(exist_ok=True)
    (run / "config.yaml").write_text(dump_config(config), encoding="utf-8")
    with (run / "command.txt").open("a", encoding="utf-8") as out:  # one line per (re)start
        out.write(shlex.join(argv if argv is not None else sys.argv) + "\n")

    if config.train.torch_threads > 0:
        torch.set_num_threads(config.train.torch_threads)

    env = make_training_vec_env(config)
    tb = str(run / "tensorboard") if config.train.tensorboard else None
    if resume is not None:
        try:
            model = MaskablePPO.load(
                resume, env=env, device=config.train.device, tensorboard_log=tb
            )
        except ValueError as exc:  # SB3: spaces of the checkpoint and the env differ
            env.close()
            raise ConfigError(f"--resume {resume}: {exc}") from None
        setattr(model, VARIANT_ATTR, variant)
        remaining = config.train.total_timesteps - model.num_timesteps
        if remaining <= 0:
            env.close()
            raise ConfigError(
                f"--resume {resume}: the checkpoint has {model.num_timesteps} steps, "
                f"train.total_timesteps is {config.train.total_timesteps}: nothing to do"
            )
    else:
        model = build_model(config, env, tb)
        remaining = config.train.total_timesteps

    n_envs = config.train.n_envs
    callbacks: list[BaseCallback] = [EpisodeStatsCallback()]
    eval_env = None
    if config.eval.eval_freq > 0:
        eval_env = make_validation_vec_env(config)
        callbacks.append(
            RewindingMaskableEvalCallback(
                eval_env,
                n_eval_episodes=config.eval.n_eval_episodes,
                eval_freq=max(config.eval.eval_freq // n_envs, 1),
                best_model_save_path=str(models),
                log_path=str(run / "eval"),
                deterministic=config.eval.deterministic,
                verbose=0,
            )
        )
    if config.train.checkpoint_freq > 0:
        callbacks.append(
            CheckpointCallback(
                save_freq=max(config.train.checkpoint_freq // n_envs, 1),
                save_path=str(models / "checkpoints"),
                name_prefix="ckpt",
            )
        )

    meta: dict[str, Any] = {
        "variant": variant,
        "env_id": model.env.get_attr("spec", indices=[0])[0].id,
        "status": "running",
        "resumed_from": str(resume) if resume is not None else None,
        "started": datetime.now().isoformat(timespec="seconds"),
        "start_timesteps": int(model.num_timesteps),
    }
    _write_json(run / "run.json", meta)
    start = time.perf_counter()
    start_steps = model.num_timesteps
    status = "completed"
    _interrupt_on_stop_signals()
    try:  # Ctrl-C (or SIGTERM) from here on saves the model
        console.print(f"[bold]training[/bold] {variant} for {remaining} steps -> {run}")
        sys.stdout.flush()
        model.learn(
            total_timesteps=remaining,
            callback=CallbackList(callbacks),
            log_interval=config.train.log_interval,
            tb_log_name="ppo",
            reset_num_timesteps=resume is None,
            progress_bar=config.train.progress_bar,
        )
        model_path = models / "final_model.zip"
    except KeyboardInterrupt:
        status = "interrupted"
        model_path = models / "interrupted_model.zip"
    seconds = time.perf_counter() - start
    setattr(model, VARIANT_ATTR, variant)
    model.save(model_path)
    steps = int(model.num_timesteps - start_steps)
    meta.update(
        status=status,
        finished=datetime.now().isoformat(timespec="seconds"),
        timesteps=int(model.num_timesteps),
        train_seconds=round(seconds, 2),
        steps_per_second=round(steps / seconds, 1) if seconds > 0 else None,
        model=str(model_path.relative_to(run)),
    )
    _write_json(run / "run.json", meta)
    for vec_env in (env, eval_env):
        if vec_env is not None:
            # subprocess workers may already have stopped on Ctrl-C
            with contextlib.suppress(OSError, EOFError):
                vec_env.close()
    if status == "interrupted":
        console.print(
            f"[yellow]interrupted[/yellow] after {model.num_timesteps} steps; model saved to "
            f"{model_path}\nresume with: fortythieves train {run / 'config.yaml'} "
            f"--resume {model_path} --run-dir {run}"
        )
        return TrainResult(run, status, model_path, int(model.num_timesteps), seconds, None)

    console.print(
        f"trained {steps} steps in {seconds:.0f} s ({steps / max(seconds, 1e-9):.0f} steps/s); "
        f"model: {model_path}"
    )
    report = None
    if config.eval.final_episodes > 0:
        best = models / "best_model.zip"
        chosen = best if best.is_file() else model_path
        ppo = MaskablePPO.load(chosen, device="cpu")
        ppo_agent = ModelAgent(ppo, "ppo", config.eval.deterministic, config.seed)
        if not config.eval.deterministic:
            ppo_agent.name = "ppo-sampled"
        agents = [ppo_agent, *baseline_agents(config.eval.baselines, config.seed)]
        report = evaluate_agents(agents, variant, config.eval.final_episodes)
        report["model"] = str(chosen.relative_to(run))
        _write_json(run / "final_evaluation.json", report)
        console.print(render_table(report))
        console.print(f"PPO model evaluated: {chosen}")
    return TrainResult(run, status, model_path, int(model.num_timesteps), seconds, report)
