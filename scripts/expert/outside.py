"""A shipped network alone, once, on deals outside every seed range (issue 40, point 4).

Deal ``i`` is seed ``3_000_000_000 + i``
(:data:`fortythieves_agents.seeds.OUTSIDE_START`): above the training, validation
and test ranges, so no network was trained, picked or reported on it. The network plays
deterministically under the no-cycling rule, as ``fortythieves evaluate`` plays it; the report
has the shape of an evaluation report (its ``seeds`` say which deals) with one row per deal,
and names the model and its file's digest.

    python scripts/expert/outside.py MODEL.zip --episodes 500 \\
        --json results/expert/<variant>/outside-500.json

Run it once per shipped network, after it is shipped: the figure stands beside the test
figure, it picks nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fortythieves_agents.evaluation.model_agent import file_digest, load_model_agent
from fortythieves_agents.family.zero_shot import outside_report
from fortythieves_agents.paths import portable_path

MAX_EPISODES = 100_000
"""Most deals one run plays."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path, help="a MaskablePPO model .zip")
    parser.add_argument("--episodes", type=int, default=500, help="deals (default 500)")
    parser.add_argument("--json", type=Path, required=True, help="where to write the report")
    args = parser.parse_args(argv)
    if not 1 <= args.episodes <= MAX_EPISODES:
        parser.error(f"argument --episodes: must be in 1..{MAX_EPISODES}, got {args.episodes}")
    agent, variant = load_model_agent(args.model)
    report = outside_report([agent], variant, args.episodes)
    report["model"] = portable_path(args.model)
    report["model_digest"] = file_digest(args.model)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (name,) = report["results"]
    summary = report["results"][name]
    print(
        f"{variant} {name}: {summary['wins']}/{args.episodes} won "
        f"({100 * summary['win_rate']:.1f}%), {summary['mean_foundation_cards']:.1f} cards, "
        f"on deals {report['seeds']['first']}..{report['seeds']['first'] + args.episodes - 1}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
