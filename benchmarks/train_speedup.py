"""MaskablePPO training speed of this checkout against an older one, side by side, and where
the time goes.

Each round measures the training speed (``learn`` of ``benchmarks/train_throughput.py``,
unprofiled, in a fresh process) of this checkout, of ``--old CHECKOUT`` (a git worktree of an
earlier commit, with its own shipped config defaults), and of the old checkout with one torch
thread, rotating which goes first. The figures of record are the ratios of the medians over
``--rounds`` rounds: all sides see the same machine load, so a ratio means more than a rate.
Then one more run of this checkout under cProfile splits its time into the environments,
the rest of collecting rollouts (the policy's forward passes, masks, SB3's buffer), the PPO
update and the rest.

Usage::

    git worktree add /tmp/old-0.1.0 3281a58      # the commit to compare with
    python -m benchmarks.train_speedup --old /tmp/old-0.1.0 \\
        --json results/benchmarks/train_speedup.json
    python -m benchmarks.train_speedup --table results/benchmarks/train_speedup.json
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fortythieves_agents.reports.speed import train_speedup_table

from benchmarks.bench_report import add_report_options, print_table, save_report, short_commit

ROOT = Path(__file__).resolve().parent.parent


def measure(checkout: Path, config: str, steps: int, overrides: tuple[str, ...] = ()) -> float:
    """Training steps/s of ``checkout``'s code and config defaults, in a fresh process
    (``learn`` of its ``benchmarks/train_throughput.py``, unprofiled): the checkout and its
    ``benchmarks/`` folder go first on the child's import path (``PYTHONPATH``), ahead of
    the editable install, so an old checkout's own code runs."""
    path = os.pathsep.join([str(checkout), str(checkout / "benchmarks")])
    env = {**os.environ, "PYTHONPATH": path}
    code = (
        "import train_throughput as t; "
        f"print(t.learn({str(checkout / 'configs' / config)!r}, "
        f"{['train.progress_bar=false', *overrides]!r}, {steps}, profile=False)[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, env=env, capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(f"measuring {checkout} failed:\n{out.stdout}\n{out.stderr}")
    return float(out.stdout.split()[-1])


def profile(config: str, steps: int) -> dict[str, float]:
    """Shares of one training run of this checkout, after a warm-up rollout: collecting
    rollouts (the environments' ``step_wait``, and the rest: the policy's forward passes,
    masks and SB3's buffer), the PPO update and the rest (resets, logging), from cProfile's
    cumulative times (its overhead inflates Python code)."""
    import torch
    from fortythieves_agents import envs
    from fortythieves_agents.config import load_config
    from fortythieves_agents.envs import make_training_vec_env
    from fortythieves_agents.training.train import build_model
    from sb3_contrib.ppo_mask import ppo_mask

    conf = load_config(ROOT / "configs" / config, ["train.tensorboard=false"])
    if conf.train.torch_threads:
        torch.set_num_threads(conf.train.torch_threads)
    venv = make_training_vec_env(conf)
    model = build_model(conf, venv, tensorboard_log=None)

    def key(function: Any) -> tuple[str, int, str]:
        code = inspect.unwrap(function).__code__
        return (code.co_filename, code.co_firstlineno, code.co_name)

    env_keys = {key(envs.BatchedVecEnv.step_wait), key(envs.VecMasksFromInfo.step_wait)}
    model.learn(total_timesteps=1, progress_bar=False)  # one rollout: compile and warm up
    profiler = cProfile.Profile()
    profiler.enable()
    model.learn(total_timesteps=steps, progress_bar=False)
    profiler.disable()
    venv.close()
    stats: Any = pstats.Stats(profiler)
    cumulative = {k: v[3] for k, v in stats.stats.items()}
    total = stats.total_tt
    rollouts = cumulative[key(ppo_mask.MaskablePPO.collect_rollouts)]
    update = cumulative[key(ppo_mask.MaskablePPO.train)]
    in_env = sum(cumulative.get(k, 0.0) for k in env_keys)
    return {
        "environments": in_env / total,
        "rollouts_without_environments": (rollouts - in_env) / total,
        "update": update / total,
        "other": max(0.0, 1.0 - (rollouts + update) / total),
    }


def settings(checkout: Path) -> str:
    """``vec_env``, ``n_envs``, ``n_steps``, ``batch_size``, ``torch_threads`` of a checkout's
    ``configs/defaults.yaml``."""
    import yaml

    d = yaml.safe_load((checkout / "configs" / "defaults.yaml").read_text(encoding="utf-8"))
    t, p = d["train"], d["ppo"]
    return (
        f"{t['vec_env']}, {t['n_envs']} envs x {p['n_steps']}, batch {p['batch_size']}, "
        f"torch threads {t['torch_threads'] or 'all'}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="a checkout of the commit to compare with")
    parser.add_argument("--config", default="streets.yaml", help="a file of configs/")
    parser.add_argument("--steps", type=int, default=16_384)
    parser.add_argument("--rounds", type=int, default=5)
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, train_speedup_table)
        return
    if args.old is None:
        parser.error("--old CHECKOUT is required (or --table JSON)")
    old = args.old.resolve()
    load_before = os.getloadavg()[0]
    # (label, checkout, overrides): the old code as shipped, and with one torch thread (the
    # old default, torch's own pool, collapses when anything else runs)
    sides = [
        ("this", ROOT, ()),
        ("old", old, ()),
        ("old1", old, ("train.torch_threads=1",)),
    ]
    rates: dict[str, list[float]] = {label: [] for label, _, _ in sides}
    for r in range(args.rounds):
        order = sides[r % len(sides) :] + sides[: r % len(sides)]  # rotate who goes first
        for label, checkout, overrides in order:
            rates[label].append(measure(checkout, args.config, args.steps, overrides))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in rates.items()))
    start = time.perf_counter()
    shares = profile(args.config, args.steps)
    print(f"profile run: {time.perf_counter() - start:.0f} s")
    old_commit = short_commit(old)
    report = {
        "config": args.config,
        "steps": args.steps,
        "rounds": args.rounds,
        "old_label": f"old ({old_commit})",
        "old_settings": settings(old),
        "new_settings": settings(ROOT),
        "old_rates": rates["old"],
        "old_one_thread_rates": rates["old1"],
        "new_rates": rates["this"],
        "old_rate": statistics.median(rates["old"]),
        "old_one_thread_rate": statistics.median(rates["old1"]),
        "new_rate": statistics.median(rates["this"]),
        "ratio": statistics.median(rates["this"]) / statistics.median(rates["old"]),
        "ratio_one_thread": statistics.median(rates["this"]) / statistics.median(rates["old1"]),
        "profile": shares,
        "load_average_before": load_before,
    }
    print(train_speedup_table(report))
    if args.json_path:
        save_report(args.json_path, "train_speedup.py", argv, report)


if __name__ == "__main__":
    main()
