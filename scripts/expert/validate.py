"""The network alone on validation deals (deterministic, the no-cycling rule), for model zips
an expert run made (``expert/iter-NNN/start.zip``, ``model.zip``) or any other: one JSON line
per model, appended to ``--out``, each paired deal by deal with the first model listed.

``--first N`` starts at validation deal ``N``: deals a pick never saw. A network picked as
the best of many validations on the first 200 deals looks better there than it is (the
winner's curse), so a later stage compared with it on the same deals starts behind; on deals
from ``--first 200`` both are judged alike. The network plays about 100 deals a second, so
thousands of deals cost seconds.

    python scripts/expert/validate.py FortyThieves/NumberTen-v0 MODEL [MODEL ...] \\
        --deals 200 --out results/expert/pilots/validation.jsonl
    python scripts/expert/validate.py RUN/config.yaml RUN/expert/iter-000/start.zip \\
        RUN/expert/iter-000/model.zip --first 200 --deals 2000 --out ...

The first argument is an environment id, or a run's ``config.yaml`` (its variant and rules,
registered as the run did).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gymnasium as gym
import torch
from fortythieves_agents.config import ConfigError, load_config
from fortythieves_agents.envs import register_config_variant
from fortythieves_agents.evaluation.evaluate import ModelAgent, load_model_agent, play_deals
from fortythieves_agents.evaluation.results import sign_test, summarize
from fortythieves_agents.networks.model_zip import ModelMismatchError
from fortythieves_agents.paths import portable_path
from fortythieves_agents.seeds import TEST_START, VALIDATION_START, seeds_for_validation

VALIDATION_DEALS = TEST_START - VALIDATION_START
"""How many validation deals there are (seeds ``VALIDATION_START + i``; test deals follow)."""


def paired(first: list[bool], other: list[bool]) -> dict[str, object]:
    """Deals won by the first model only, by ``other`` only, and the two-sided sign test
    of the difference (:func:`~fortythieves_agents.evaluation.results.sign_test`)."""
    only_first = sum(a and not b for a, b in zip(first, other, strict=True))
    only_other = sum(b and not a for a, b in zip(first, other, strict=True))
    return {
        "only_first": only_first,
        "only_this": only_other,
        "sign_test_p": float(f"{sign_test(only_first, only_other):.3g}"),
    }


def _environment(parser: argparse.ArgumentParser, env: str) -> str:
    """The environment id of ``env`` (an id, or a run's config.yaml registered as the run
    did); a usage error if there is none."""
    if env.endswith((".yaml", ".yml")):
        try:
            return register_config_variant(load_config(env, []).env)
        except ConfigError as exc:
            parser.error(str(exc))
    try:
        gym.spec(env)
    except gym.error.Error as exc:
        parser.error(f"{env}: not a registered environment ({exc})")
    return env


def _agents(parser: argparse.ArgumentParser, env_id: str, paths: list[Path]) -> list[ModelAgent]:
    """Every model loaded (the safe loader) and checked against ``env_id`` before any play;
    a usage error names the first that does not fit."""
    variant, _, version = env_id.rpartition("/")[2].rpartition("-v")
    agents = []
    for path in paths:
        if not path.is_file():
            parser.error(f"no such model file: {path}")
        try:
            agent, _ = load_model_agent(path, variant, env_version=int(version))
        except (ModelMismatchError, ValueError, OSError) as exc:
            parser.error(" ".join(str(exc).split()))
        agent.name = "network"
        agents.append(agent)
    return agents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env", help="an environment id, or a run's config.yaml")
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="the first validation deal")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.first < 0 or args.first + args.deals > VALIDATION_DEALS:
        parser.error(
            f"--deals must be >= 1, --first >= 0 and --first + --deals <= {VALIDATION_DEALS} "
            f"(the validation deals), got {args.deals} and {args.first}"
        )
    if args.out.is_dir():
        parser.error(f"--out {args.out}: a folder, not a file to append JSON lines to")
    env_id = _environment(parser, args.env)
    agents = _agents(parser, env_id, args.models)
    torch.set_num_threads(1)
    seeds = seeds_for_validation(args.deals, args.first)
    won_first: list[bool] | None = None
    for path, agent in zip(args.models, agents, strict=True):
        results = play_deals(agent, env_id, seeds)
        won = [bool(r.won) for r in results]
        result = summarize(results)
        row = {
            "model": portable_path(path),
            "env_id": env_id,
            "validation_deals": args.deals,
            "first_deal": args.first,
        }
        row.update(
            {
                k: result[k]
                for k in ("wins", "win_rate", "mean_foundation_cards", "stuck", "truncated")
            }
        )
        if won_first is None:
            won_first = won
        else:
            against = {"model": portable_path(args.models[0]), **paired(won_first, won)}
            row["against_first"] = against
        print(json.dumps(row), flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
