"""The network alone on the first validation deals (deterministic, the no-cycling rule), for
model zips an expert run made (``expert/iter-NNN/start.zip``, ``model.zip``) or any other:
one JSON line per model, appended to ``--out``.

    python scripts/expert/validate.py FortyThieves/NumberTen-v0 MODEL [MODEL ...] \\
        --deals 200 --out results/expert/pilots/validation.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from fortythieves_agents.networks.model_zip import load_maskable_ppo
from fortythieves_agents.paths import portable_path
from fortythieves_agents.training.expert import validate_network


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for path in args.models:
        model = load_maskable_ppo(path, device="cpu")
        result = validate_network(model, args.env_id, args.deals)
        row = {"model": portable_path(path), "env_id": args.env_id, "validation_deals": args.deals}
        row.update(
            {
                k: result[k]
                for k in ("wins", "win_rate", "mean_foundation_cards", "stuck", "truncated")
            }
        )
        print(json.dumps(row), flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
