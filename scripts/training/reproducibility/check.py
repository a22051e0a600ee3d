"""Train the quick start several times with the same seed and compare the figures.

    python scripts/training/reproducibility/check.py [--variant lucas] [--steps 100000]
        [--set KEY=VALUE ...] [--kernels native native avx2 default]

Runs ``fortythieves train configs/<variant>.yaml --set train.total_timesteps=STEPS
[--set ...]`` once per entry of ``--kernels``, two at a time (one torch thread each, the
shipped default), into ``runs/reproducibility/run<i>`` (removed first), then writes
``results/training/reproducibility/<variant>.json``: every run's final evaluation (500 test
deals) beside the CPU it ran on and the kernels torch used.

Why kernels: on one torch thread two runs on the same CPU are bit-identical
(tests/agents/training/test_reproducible.py), but torch picks its CPU kernels by the instruction set
the CPU has (``torch.backends.cpu.get_cpu_capability()``: AVX512 on a recent server, AVX2 on
most desktops and laptops, ``DEFAULT`` elsewhere), and their sums round differently: a
different CPU makes a different (equally good) model. ``ATEN_CPU_CAPABILITY=avx2`` (or
``default``) makes torch use the kernels such a CPU would, so one machine measures the range
other CPUs give. ``native`` runs with the CPU's own; two ``native`` runs check bit-identity.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ("native", "avx512", "avx2", "default")


def _commit() -> str:
    """The checkout's commit, ``+dirty`` when files differ from it."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    return head.stdout.strip() + ("+dirty" if dirty else "")


def _versions() -> dict[str, str]:
    """The versions of the libraries the figures depend on."""
    from importlib.metadata import version

    names = ["torch", "numpy", "numba", "gymnasium", "stable_baselines3", "sb3_contrib"]
    return {name: version(name) for name in names}


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``, else :func:`platform.processor`)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def capability(kernels: str) -> str:
    """The kernel set torch uses with ``ATEN_CPU_CAPABILITY`` set as ``kernels`` says."""
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if kernels != "native":
        env["ATEN_CPU_CAPABILITY"] = kernels
    code = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return out.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--variant", default="lucas", help="a config name in configs/")
    parser.add_argument("--set", dest="overrides", action="append", default=[],
                        metavar="KEY=VALUE", help="more --set arguments for train")  # fmt: skip
    parser.add_argument("--kernels", nargs="+", choices=KERNELS,
                        default=["native", "native", "avx2", "default"])  # fmt: skip
    args = parser.parse_args()
    from fortythieves_agents.paths import portable_command

    if not (ROOT / "configs" / f"{args.variant}.yaml").is_file():
        parser.error(f"--variant {args.variant}: no configs/{args.variant}.yaml")
    runs = [ROOT / "runs" / "reproducibility" / f"run{i}" for i in range(len(args.kernels))]
    sets = [f"train.total_timesteps={args.steps}", *args.overrides, "train.progress_bar=false"]
    started = time.time()
    records = []
    for first in range(0, len(runs), 2):  # two at a time: the 2 cores
        procs = []
        for i in range(first, min(first + 2, len(runs))):
            shutil.rmtree(runs[i], ignore_errors=True)
            command = [
                sys.executable,
                "-m",
                "fortythieves_agents.cli.main",
                "train",
                f"configs/{args.variant}.yaml",
            ]
            command += [arg for s in sets for arg in ("--set", s)]
            command += ["--run-dir", str(runs[i].relative_to(ROOT))]
            env = dict(os.environ)
            env.pop("ATEN_CPU_CAPABILITY", None)
            if args.kernels[i] != "native":
                env["ATEN_CPU_CAPABILITY"] = args.kernels[i]
            records.append({"command": "python " + " ".join(portable_command(command[1:], ROOT)),
                            "kernels": args.kernels[i]})  # fmt: skip
            procs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))
        codes = [proc.wait() for proc in procs]
        if any(codes):
            print(f"training failed: exit codes {codes}", file=sys.stderr)
            return 1
    for record, run in zip(records, runs, strict=True):
        report = json.loads((run / "final_evaluation.json").read_text())
        record["torch_cpu_capability"] = capability(record["kernels"])
        record["episodes"] = report["episodes"]
        record["results"] = {
            agent: {"mean_foundation_cards": r["mean_foundation_cards"], "wins": r["wins"]}
            for agent, r in report["results"].items()
        }
    agents = list(records[0]["results"])
    native = [r for r in records if r["kernels"] == "native"]
    report = {
        "variant_config": f"configs/{args.variant}.yaml",
        "steps": args.steps,
        "overrides": args.overrides,
        "commit": _commit(),
        "cpu": cpu_model(),
        "packages": _versions(),
        "python": platform.python_version(),
        "wall_seconds": round(time.time() - started, 1),
        "runs": records,
        "range": {
            agent: [
                min(r["results"][agent]["mean_foundation_cards"] for r in records),
                max(r["results"][agent]["mean_foundation_cards"] for r in records),
            ]
            for agent in agents
        },
        "identical_on_one_cpu": len(native) > 1
        and all(r["results"] == native[0]["results"] for r in native),
    }
    out = ROOT / "results" / "training" / "reproducibility" / f"{args.variant}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report["range"], indent=2))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
