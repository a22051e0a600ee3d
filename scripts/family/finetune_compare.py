"""Fine-tuning from the family network against training from scratch, at equal steps
(issue 41, point 4; :mod:`fortythieves_agents.family.compare`).

Train both runs on one variant through the shared encoding (``fortythieves train family
--set family.rule_set=VARIANT``), then compare them with the shipped PPO run::

    python scripts/family/finetune_compare.py NumberTen --family-model MODEL.zip \\
        --steps 300000 --out results/family/finetune/NumberTen [--set KEY=VALUE ...]

- fine-tuned: ``--set family.start_model=MODEL --set train.teacher=null``;
- from scratch: ``--scratch-teacher greedy`` (default: the shipped recipe's start,
  behaviour cloning of greedy) or ``none`` (random weights);

both with ``train.total_timesteps=STEPS`` and every ``--set`` given (e.g.
``eval.eval_freq``, ``eval.n_eval_episodes``, ``eval.final_episodes``), in
``RUNS/finetuned`` and ``RUNS/scratch`` (``--runs``, default ``runs/finetune/<VARIANT>``).
A run already complete there is not trained again (the command continues where it stopped:
an interrupted run is resumed from its newest checkpoint). ``--compare-only`` writes the
comparison from the two run folders as they are.

Written to ``--out``: ``comparison.json`` (the curves, the final evaluations, the target and
whether the goal is met), ``comparison.md``, ``curves.png`` (with matplotlib), and each run's
data (``config.yaml``, ``command.txt``, ``run.json``, ``final_evaluation.json``,
``eval/*.npz``) under ``finetuned/`` and ``scratch/``, and the fine-tuned run's
``best_model.zip`` (the model its final evaluation played: the network shipped).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("config.yaml", "command.txt", "run.json", "final_evaluation.json", "eval")


def _run(name: str, folder: Path, overrides: list[str]) -> None:
    """Train (or resume, or leave as it is) one run."""
    from fortythieves_agents.family.config import load_family_config
    from fortythieves_agents.family.train import train_family
    from fortythieves_agents.training.train import resume_checkpoint

    meta = folder / "run.json"
    done = meta.is_file() and json.loads(meta.read_text()).get("status") == "completed"
    if done and (folder / "final_evaluation.json").is_file():
        print(f"{name}: complete in {folder}", flush=True)
        return
    config = load_family_config("family", overrides)
    resume = resume_checkpoint(folder) if meta.is_file() else None
    argv = ["fortythieves", "train", "family", *[a for o in overrides for a in ("--set", o)]]
    argv += ["--run-dir", str(folder)]
    print(f"{name}: {' '.join(argv)}" + (f" (resuming {resume})" if resume else ""), flush=True)
    result = train_family(config, run_dir=folder, resume=resume, argv=argv)
    if result.status != "completed":
        sys.exit(130)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="finetune_compare.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("variant")
    parser.add_argument("--family-model", help="the family network to fine-tune")
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--scratch-teacher", choices=["greedy", "none"], default="greedy")
    parser.add_argument("--no-scratch", action="store_true", help="the fine-tuned run only")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--runs", type=Path, help="default runs/finetune/<VARIANT>")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare-only", action="store_true")
    args = parser.parse_args(argv)

    from fortythieves_agents.family.compare import compare_runs, comparison_table, plot_curves
    from fortythieves_agents.paths import portable_path

    runs = args.runs or ROOT / "runs" / "finetune" / args.variant
    common = [f"family.rule_set={args.variant}", f"train.total_timesteps={args.steps}", *args.sets]
    finetuned, scratch = runs / "finetuned", None if args.no_scratch else runs / "scratch"
    if not args.compare_only:
        if args.family_model is None:
            parser.error("--family-model is required (unless --compare-only)")
        # relative to the working folder (where training loads it from): the run's
        # config.yaml, copied with the results, names no absolute path of this machine
        model = Path(os.path.relpath(Path(args.family_model).resolve()))
        _run(
            "fine-tuned",
            finetuned,
            [*common, f"family.start_model={model}", "train.teacher=null"],
        )
        if scratch is not None:
            teacher = "null" if args.scratch_teacher == "none" else "greedy"
            _run("from scratch", scratch, [*common, f"train.teacher={teacher}"])
    for name, run in (("fine-tuned run", finetuned), ("run from scratch", scratch)):
        if run is not None and not (run / "eval" / "evaluations.npz").is_file():
            hint = " (or --no-scratch)" if run is scratch else ""
            print(
                f"finetune_compare.py: error: {run}: no {name} with validations there; "
                f"train it{hint}",
                file=sys.stderr,
            )
            return 2
    data = compare_runs(args.variant, finetuned, scratch, ROOT / "results")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for name, run in (("finetuned", finetuned), ("scratch", scratch)):
        if run is None:
            continue
        shipped = run / "models" / "best_model.zip"  # the model its final evaluation played
        if name == "finetuned" and shipped.is_file():  # the shipped fine-tuned network
            (out / name).mkdir(parents=True, exist_ok=True)
            shutil.copy2(shipped, out / name / "best_model.zip")
        for item in COPIED:
            source = run / item
            if source.is_dir():
                shutil.copytree(source, out / name / item, dirs_exist_ok=True)
            elif source.is_file():
                (out / name).mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, out / name / item)
        data["runs"][name]["run"] = f"{name}/ (copied from {portable_path(run, ROOT)})"
    (out / "comparison.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    table = comparison_table(data)
    (out / "comparison.md").write_text(table + "\n", encoding="utf-8")
    try:
        plot_curves(data, out / "curves.png")
    except ImportError:
        print("no curves.png: plots need matplotlib", file=sys.stderr)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
