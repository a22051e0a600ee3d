#!/bin/bash
# Network + search against the search alone at equal seconds per move (issue 26): Number Ten,
# the first 50 test deals, 0.1 s per move, the shipped PPO model as the prior (its 3 best
# candidates searched each move). Resumable (game records in runs/search-eval/). The search
# alone on the same deals is the budget curve's 0.1 s point (results/search/budget_curve);
# benchmarks/prior_vs_search.py compares the two deal by deal.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
mkdir -p results/search/prior
$cmd evaluate search --variant NumberTen --episodes 50 --search-budget 0.1 \
  --search-prior results/training/NumberTen/best_model.zip --search-prior-top 3 \
  --baselines --per-episode --no-progress \
  --save-games runs/search-eval/NumberTen-50-s0.1-prior-ppo-top3 --resume \
  --json results/search/prior/NumberTen-50-s0.1-ppo-top3.json
