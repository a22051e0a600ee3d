"""The solver's speed, old against new, side by side on the same deals (issue 24, point 4).

Two checkouts of this repository (``--old``: a git revision, checked out into a temporary
worktree; the new one is this checkout) each solve the same test deals in turn, deal by
deal (old, new, old, new, ...), in child processes that compile first and then time only
the search (CPU time of the process, ``time.process_time``). Two figures per checkout:

* **nodes per CPU-second** of the depth-first search alone (``rollouts=False``) at a fixed
  node budget (``--nodes``): the solver's throughput, its ratio new/old per deal;
* **deals decided per core-hour**: the whole solver (rollouts and search) with the same
  CPU-seconds cap per deal (``--seconds``); decided = ``won`` or ``lost``.

``--profile`` adds where a node's time goes in the new solver: each kernel timed alone in
a compiled loop over positions met in play.

The report (``--json``) records the machine's load (1-minute average) before and after.

Usage::

    python -m benchmarks.solver_speed --old a2f767b --variants FortyThieves,Streets,Maria \\
        --deals 5 --nodes 5000000 --seconds 10 --profile \\
        --json results/benchmarks/solver_speed.json
    python -m benchmarks.solver_speed --from-json results/benchmarks/solver_speed.json

``python -m fortythieves_agents.reports`` writes the tables of the saved report into
``docs/solver_design.md`` (:func:`fortythieves_agents.reports.solver.solver_speed_table`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fortythieves_agents.paths import portable_command, portable_path
from fortythieves_agents.reports.solver import solver_speed_table

ROOT = Path(__file__).resolve().parents[1]
TEST_START = 2_000_000_000

# Runs inside a child process with a checkout's package first on its import path (the
# checkout, sys.argv[1], is its working folder and PYTHONPATH); prints one JSON line per
# deal. Compiles on a first small solve, then times each solve by CPU time.
CHILD = r"""
import json, sys, time
import gymnasium as gym
import fortythieves_env
from fortythieves_env import env_id
from fortythieves_env.solver import SOLVER_VERSION, solve
variant, seed, nodes, seconds, rollouts = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    float(sys.argv[5]), sys.argv[6] == "1"
env = gym.make(env_id(variant))
env.reset(seed=seed)
pos = env.unwrapped.get_state()
solve(pos, variant, nodes=2000, rollouts=False)  # compile (or load the cache) first
solve(pos, variant, nodes=2000, rollouts=True)
start = time.process_time()
r = solve(pos, variant, nodes=nodes, seconds=seconds if seconds > 0 else None, rollouts=rollouts)
cpu = time.process_time() - start
print(json.dumps({"version": SOLVER_VERSION, "package": fortythieves_env.__file__,
    "status": r.status, "nodes": r.nodes, "cpu_seconds": cpu, "stopped_by": r.stopped_by}))
"""


def run_child(checkout: Path, variant: str, seed: int, nodes: int, seconds: float,
              rollouts: bool) -> dict[str, Any]:  # fmt: skip
    """One solve in a fresh process on ``checkout``'s package; its JSON line, whose
    ``package`` (the file the child imported) is relative to ``checkout`` when inside it
    (``fortythieves_env/__init__.py``: the checkout's own package ran), else as
    :func:`~fortythieves_agents.paths.portable_path` gives it."""
    cmd = [sys.executable, "-c", CHILD, str(checkout), variant, str(seed), str(nodes),
           str(seconds), "1" if rollouts else "0"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # ahead of the editable install
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=checkout, env=env)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    package = Path(row["package"]).resolve()
    if package.is_relative_to(checkout.resolve()):
        row["package"] = package.relative_to(checkout.resolve()).as_posix()
    else:
        row["package"] = portable_path(package, ROOT)
    return row


def profile(variant: str, positions: int = 80) -> dict[str, float]:
    """Nanoseconds per call of each kernel of a node of the new solver, each alone in a
    compiled loop over ``positions`` positions met in play (a greedy game of a test deal)."""
    import time

    import gymnasium as gym
    import numpy as np

    from fortythieves_env import env_id, get_variant
    from fortythieves_env.rules.core import _apply, canonical_hash, legal_actions, tables_for
    from fortythieves_env.rules.jit import kernel
    from fortythieves_env.solver import (
        _child_keys,
        _children,
        _full_keys,
        build_code,
        key_tables_for,
    )

    spec = get_variant(variant)
    tables = tables_for(spec)
    tb = tables.table
    z = key_tables_for(tables)
    env = gym.make(env_id(variant))
    rng = np.random.default_rng(0)
    found: list[np.ndarray] = []
    seed = TEST_START
    while len(found) < positions:
        env.reset(seed=seed)
        seed += 1
        st = tables.pack(env.unwrapped.state)
        legal = np.zeros(int(tb[3]), np.int32)
        for _ in range(300):
            n = legal_actions(st, tb, legal)
            if n == 0:
                break
            _apply(st, tb, int(legal[rng.integers(n)]))
            if rng.random() < 0.05:
                found.append(st.copy())
    sts = np.stack(found[:positions])
    n_act = int(tb[3])
    build = build_code(spec)

    @kernel
    def loop(which: int, sts: np.ndarray, tb: np.ndarray, reps: int, zc: np.ndarray,
             zd: np.ndarray, zs: np.ndarray, zw: np.ndarray, zf: np.ndarray,
             zr: np.ndarray) -> int:  # fmt: skip
        legal = np.zeros(n_act, np.int32)
        out = np.zeros(n_act, np.int32)
        scores = np.zeros(n_act, np.int32)
        raw = np.zeros((tb[0], 2), np.uint64)
        key = np.zeros(2, np.uint64)
        kbuf = np.zeros(6, np.uint64)
        tmp = sts[0].copy()
        calls = 0
        acc = np.uint64(0)
        for _ in range(reps):
            for i in range(sts.shape[0]):
                st = sts[i]
                if which == 0:
                    calls += 1
                    legal_actions(st, tb, legal)
                elif which == 1:
                    calls += 1
                    _children(st, tb, 7, build, legal, out, scores)
                elif which == 2:
                    calls += 1
                    _full_keys(st, tb, zc, zd, zs, zw, zf, zr, raw, key)
                elif which == 3:
                    calls += 1
                    acc += canonical_hash(st, tb)
                else:
                    _full_keys(st, tb, zc, zd, zs, zw, zf, zr, raw, key)
                    m = legal_actions(st, tb, legal)
                    for k in range(m):
                        if tb[tb[19] + 4 * legal[k]] == 1:  # redeal: keys made from scratch
                            continue
                        calls += 1
                        if which == 4:
                            _child_keys(st, tb, legal[k], zc, zd, zs, zw, zf, raw, key, kbuf)
                            acc += kbuf[0]
                        elif which == 5:
                            tmp[:] = st
                            _apply(tmp, tb, legal[k])
                            acc += np.uint64(tmp[0])
                        else:  # the loop's own cost, taken off the two above
                            acc += np.uint64(legal[k])
        return calls + np.int64(acc & np.uint64(1))

    names = ["legal_actions", "_children", "_full_keys (both keys, from scratch)",
             "canonical_hash (v2's first key)", "_child_keys (both keys, by the move)",
             "state copy + apply"]  # fmt: skip
    out: dict[str, float] = {}

    def timed(which: int) -> tuple[float, int]:
        loop(which, sts, tb, 1, *z)
        start = time.perf_counter()
        calls = loop(which, sts, tb, 2000, *z)
        return time.perf_counter() - start, max(calls, 1)

    base, _ = timed(6)  # per position: keys from scratch and legal moves, once
    for which, name in enumerate(names):
        seconds, calls = timed(which)
        if which >= 4:
            seconds -= base
        out[name] = round(seconds / calls * 1e9, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", default="a2f767b", help="git revision of the old solver")
    parser.add_argument("--variants", default="FortyThieves,Streets,Maria")
    parser.add_argument("--deals", type=int, default=5, help="test deals per variant")
    parser.add_argument("--nodes", type=int, default=5_000_000, help="budget for nodes/s")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU-s cap per deal")
    parser.add_argument("--profile", action="store_true", help="also time each kernel")
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--from-json", help="render a saved report instead of measuring")
    args = parser.parse_args(argv)
    if args.from_json:
        print(solver_speed_table(json.loads(Path(args.from_json).read_text(encoding="utf-8"))))
        return 0
    variants = args.variants.split(",")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old),
                        args.old], check=True)  # fmt: skip
        try:
            report: dict[str, Any] = {"variants": {}}
            for variant in variants:
                rows = []
                for i in range(args.deals):
                    seed = TEST_START + i
                    row: dict[str, Any] = {"seed": seed}
                    for name, checkout in (("old", old), ("new", ROOT)):
                        speed = run_child(checkout, variant, seed, args.nodes, 0, False)
                        decide = run_child(checkout, variant, seed, 10**12, args.seconds, True)
                        row[name] = {"speed": speed, "decide": decide}
                    row["ratio"] = (
                        row["new"]["speed"]["nodes"] / row["new"]["speed"]["cpu_seconds"]
                    ) / (row["old"]["speed"]["nodes"] / row["old"]["speed"]["cpu_seconds"])
                    print(variant, seed, f"new/old nodes per CPU-second {row['ratio']:.2f}",
                          row["old"]["decide"]["status"], row["new"]["decide"]["status"],
                          flush=True)  # fmt: skip
                    rows.append(row)
                summary: dict[str, Any] = {}
                for name in ("old", "new"):
                    nps = [r[name]["speed"]["nodes"] / r[name]["speed"]["cpu_seconds"]
                           for r in rows]  # fmt: skip
                    decided = sum(r[name]["decide"]["status"] != "unknown" for r in rows)
                    hours = sum(r[name]["decide"]["cpu_seconds"] for r in rows) / 3600
                    summary[name] = {
                        "version": rows[0][name]["speed"]["version"],
                        "nodes_per_cpu_second_median": statistics.median(nps),
                        "decided": decided,
                        "deals": len(rows),
                        "decided_per_core_hour": decided / hours if hours else 0.0,
                    }
                summary["ratio_median"] = statistics.median(r["ratio"] for r in rows)
                summary["ratio_min"] = min(r["ratio"] for r in rows)
                summary["ratio_max"] = max(r["ratio"] for r in rows)
                report["variants"][variant] = {"summary": summary, "deals": rows}
                print(variant, json.dumps(summary), flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                           check=False)  # fmt: skip
    if args.profile:
        report["profile_ns_per_call"] = {v: profile(v) for v in variants}
        print(json.dumps(report["profile_ns_per_call"], indent=1))
    report["settings"] = {k: getattr(args, k) for k in ("old", "deals", "nodes", "seconds")}
    report["command"] = " ".join(
        ["python -m benchmarks.solver_speed", *portable_command(argv or sys.argv[1:], ROOT)]
    )
    report["load_1min"] = {"before": load_before, "after": os.getloadavg()[0]}
    report["machine"] = {"cpu": platform.processor() or platform.machine(),
                         "cores": os.cpu_count(), "python": platform.python_version()}  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(solver_speed_table(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
