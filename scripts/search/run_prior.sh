#!/bin/bash
# Network + search against the search alone at equal seconds per move (issue 26): Number Ten,
# the first 50 test deals, 0.1 s per move, a network as the prior: its TOP best candidates
# searched each move, or (WEIGHT set) every candidate with the network's log-probability
# weighted WEIGHT beside the samples' values. Resumable (game records in runs/search-eval/).
# The search alone on the same deals is the budget curve's 0.1 s point
# (results/search/budget_curve); benchmarks/prior_vs_search.py compares the two deal by deal.
#   [VARIANT=NumberTen] [EPISODES=50] [PRIOR=MODEL NAME=ppo TOP=3 | WEIGHT=0.05] scripts/search/run_prior.sh
# Another variant (the budget curve covers Number Ten only) is compared with the search alone's
# game records of scripts/search/run_eval.sh (benchmarks/prior_vs_search.py --alone-games DIR) or
# with its report's rows per deal (--alone-report results/search/<VARIANT>-200-s0.1.json), which
# also gives the two-sided sign test's p-value.
# Defaults: the shipped PPO model (NAME ppo), TOP 3. The expert-iteration network, spread:
#   PRIOR=results/expert/numberten/model.zip NAME=expert WEIGHT=0.05 scripts/search/run_prior.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
variant=${VARIANT:-NumberTen}
episodes=${EPISODES:-50}
prior=${PRIOR:-results/training/$variant/best_model.zip}
name=${NAME:-ppo}
if [ -n "${WEIGHT:-}" ]; then
  guide=(--search-prior-weight "$WEIGHT"); tag="w$WEIGHT"
else
  top=${TOP:-3}; guide=(--search-prior-top "$top"); tag="top$top"
fi
mkdir -p results/search/prior
$cmd evaluate search --variant "$variant" --episodes "$episodes" --search-budget 0.1 \
  --search-prior "$prior" "${guide[@]}" \
  --baselines --per-episode --no-progress \
  --save-games "runs/search-eval/$variant-$episodes-s0.1-prior-$name-$tag" --resume \
  --json "results/search/prior/$variant-$episodes-s0.1-$name-$tag.json"
