#!/bin/bash
# Network + search against the search alone at equal seconds per move (issue 26): Number Ten,
# the first 50 test deals, 0.1 s per move, a network as the prior (its TOP best candidates
# searched each move). Resumable (game records in runs/search-eval/). The search alone on the
# same deals is the budget curve's 0.1 s point (results/search/budget_curve);
# benchmarks/prior_vs_search.py compares the two deal by deal.
#   [PRIOR=MODEL NAME=ppo TOP=3] scripts/search/run_prior.sh
# Defaults: the shipped PPO model (NAME ppo). The expert-iteration network:
#   PRIOR=results/expert/numberten/model.zip NAME=expert scripts/search/run_prior.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
prior=${PRIOR:-results/training/NumberTen/best_model.zip}
name=${NAME:-ppo}
top=${TOP:-3}
mkdir -p results/search/prior
$cmd evaluate search --variant NumberTen --episodes 50 --search-budget 0.1 \
  --search-prior "$prior" --search-prior-top "$top" \
  --baselines --per-episode --no-progress \
  --save-games "runs/search-eval/NumberTen-50-s0.1-prior-$name-top$top" --resume \
  --json "results/search/prior/NumberTen-50-s0.1-$name-top$top.json"
