"""Starting from saved models: the checkpoint ``--resume`` continues from and loading it with a
config's hyperparameters, the checks of a model zip a run starts from (``--resume``,
``expert.start_model``), TensorBoard's logs trimmed to the checkpoint, and the one line a run
stopped by a full disk ends with."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

from ..config import Config, ConfigError
from ..envs import register_config_variant
from ..networks.model_zip import (
    ModelMismatchError,
    check_model_rules,
    check_model_spaces,
    load_maskable_ppo,
    model_data,
    model_env_id,
    model_variant,
)
from ..paths import check_readable_file
from ..run_folder import ExpertFolder, RunFolder, RunWriteError
from .model import policy_differences

__all__ = [
    "resume_checkpoint",
    "saved_timesteps",
    "trim_tensorboard",
    "unreadable_model",
]


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
    from fortythieves_env.records.files import read_user_text

    target = Path(target)
    if not target.is_dir():
        return target  # check_readable_file says what is wrong with it, if anything
    try:
        meta = json.loads(read_user_text(RunFolder(target).run_json))
    except (OSError, ValueError):
        meta = None
    model = meta.get("model") if isinstance(meta, dict) else None
    candidates = [target / model] if isinstance(model, str) and (target / model).exists() else []
    candidates += [path for _, path in RunFolder(target).checkpoints_newest_first()]
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
        (path for _, path in folder.checkpoints_newest_first() if unreadable_model(path) is None),
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


def _load_start_model(model: Any, path: str) -> None:
    """Set ``model``'s policy to the weights of the zip at ``path`` (weights only: SB3's
    ``set_parameters``, which unpickles nothing). A config with ``policy.player.unseen_inputs``
    also starts from the same network without them, widened (its new inputs weighted 0).

    Raises:
        ConfigError: the zip's network is not the config's (one line naming the setting).
    """
    try:
        model.set_parameters(path, exact_match=True)
    except Exception as exc:  # torch, pickle and zip errors alike: the weights are unusable
        if getattr(model.policy, "unseen_inputs", False) and _widen(model, path):
            return
        if _has_unseen_inputs(model, path):
            raise ConfigError(
                f"expert.start_model {path}: its network reads the unseen inputs, this "
                "config's does not (set policy.player.unseen_inputs: true)"
            ) from None
        cause = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ConfigError(
            f"expert.start_model {path}: its network is not this config's policy ({cause})"
        ) from None


def _widen(model: Any, path: str) -> bool:
    """Whether the zip at ``path`` holds ``model``'s network without its unseen inputs, now
    set into it with those inputs weighted 0
    (:meth:`~fortythieves_agents.networks.policy.PlayerPolicy.load_without_unseen`)."""
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        _, params, _ = load_from_zip_file(path, device=model.device, load_data=False)
        model.policy.load_without_unseen(params["policy"])
    except Exception:  # not that network: the caller reports the first error
        return False
    return True


def _has_unseen_inputs(model: Any, path: str) -> bool:
    """Whether the zip at ``path`` holds ``model``'s player network with the unseen inputs
    that ``model``'s lacks (its state encoders' first layer that many columns wider)."""
    from stable_baselines3.common.save_util import load_from_zip_file

    from ..networks.policy import N_UNSEEN_INPUTS

    key = "actor_encoder.state_encoder.0.weight"
    own = model.policy.state_dict().get(key)
    if own is None or getattr(model.policy, "unseen_inputs", False):
        return False
    try:
        _, params, _ = load_from_zip_file(path, device=model.device, load_data=False)
        theirs = params["policy"][key]
    except Exception:  # not that network: the caller reports the first error
        return False
    return tuple(theirs.shape) == (own.shape[0], own.shape[1] + N_UNSEEN_INPUTS)


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


def _trim_resumed_tensorboard(tb: str, start_steps: int, console: Any) -> None:
    """Drop the TensorBoard events an earlier part of a resumed run logged after its
    checkpoint, so the curves continue from it."""
    dropped = trim_tensorboard(tb, start_steps)
    if dropped:
        console.print(
            f"TensorBoard: dropped {dropped} event(s) logged after step {start_steps} "
            "by the run's earlier part, so the resumed curves continue from the checkpoint"
        )
