"""MaskablePPO training throughput with a config's settings, and where the time goes.

Runs ``model.learn`` for ``--steps`` environment steps (no evaluation, checkpoints or logs)
twice: once plain, to measure steps per second, and once under ``cProfile``, to measure the
share of the time spent stepping the environments: the vectorised env's ``step_wait`` and
``reset`` (everything below them: gymnasium's wrappers, ``Monitor``, the deal-seed wrapper,
``FortyThievesEnv.step`` with its observation and mask) plus the ``action_masks`` calls
MaskablePPO makes (served from the step infos by
:class:`fortythieves_agents.envs.VecMasksFromInfo`).
With ``train.vec_env=subproc`` this is the time spent waiting for the workers. The
profile's own overhead inflates Python-heavy code, so the share it prints is an upper bound.

Usage::

    python -m benchmarks.train_throughput                        # configs/fortythieves.yaml
    python -m benchmarks.train_throughput configs/numberten.yaml --steps 20000
    python -m benchmarks.train_throughput --set train.vec_env=subproc
    python -m benchmarks.train_throughput --no-profile            # steps/s only

``benchmarks/train_under_load.py`` runs this script under competing CPU load.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

from fortythieves_agents.config import load_config
from fortythieves_agents.envs import make_training_vec_env
from fortythieves_agents.training.train import build_model

ROOT = Path(__file__).resolve().parent.parent

# (file suffix, function) pairs whose cumulative time is "the environment"
ENV_FUNCTIONS = (
    ("vec_env/dummy_vec_env.py", "step_wait"),
    ("vec_env/dummy_vec_env.py", "reset"),
    ("vec_env/subproc_vec_env.py", "step_wait"),
    ("vec_env/subproc_vec_env.py", "reset"),
    ("agents/envs.py", "env_method"),
)


def learn(config_path: str, overrides: list[str], steps: int, profile: bool) -> tuple[float, float]:
    """Return (steps per second, share of time in the environment; nan unless profiled)."""
    import torch

    config = load_config(config_path, [*overrides, "train.tensorboard=false"])
    if config.train.torch_threads:
        torch.set_num_threads(config.train.torch_threads)
    env = make_training_vec_env(config)
    model = build_model(config, env, tensorboard_log=None)
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    model.learn(total_timesteps=steps, progress_bar=False)
    if profiler:
        profiler.disable()
    elapsed = time.perf_counter() - start
    env.close()
    share = float("nan")
    if profiler:
        stats = pstats.Stats(profiler)
        total = stats.total_tt  # type: ignore[attr-defined]
        in_env = sum(
            cumulative
            for (filename, _, name), (_, _, _, cumulative, _) in stats.stats.items()  # type: ignore[attr-defined]
            if any(filename.endswith(f) and name == fn for f, fn in ENV_FUNCTIONS)
        )
        share = in_env / total
    return model.num_timesteps / elapsed, share


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", default=str(ROOT / "configs" / "fortythieves.yaml"))
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="K=V")
    parser.add_argument(
        "--no-profile", action="store_true", help="measure steps/s only (skip the cProfile run)"
    )
    args = parser.parse_args(argv)
    rate, _ = learn(args.config, args.overrides, args.steps, profile=False)
    print(f"{Path(args.config).name}: {rate:,.0f} training steps/s ({args.steps} steps)")
    if args.no_profile:
        return
    _, share = learn(args.config, args.overrides, args.steps, profile=True)
    print(f"time stepping the environments, masks included (cProfile): {share:.1%}")


if __name__ == "__main__":
    main()
