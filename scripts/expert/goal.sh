#!/bin/bash
# Issue 26's goal figures, network side: each variant's best shipped network alone (its latest
# network stage, results/expert/<variant>[-ppo-long|-ppo[-expert]]/model.zip, else the shipped PPO
# model, results/training/<Variant>/best_model.zip; fortythieves_agents.reports.expert.best_network) on
# the 500 test deals, one row per deal: the first 200 are the deals of the search alone's table
# (results/search/<Variant>-200-s0.1.json). With the wins among the solver-proved ones.
# python -m fortythieves_agents.reports renders the goal table into docs/training.md.
#   scripts/expert/goal.sh [VARIANT ...]        (default: all nine)
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(FortyThieves Indian Limited LittleForty Lucas Maria NumberTen RankAndFile Streets)
# $cmd may hold a command and its arguments (FORTYTHIEVES="nice -n 10 python -m ..."): unquoted on purpose
mkdir -p results/expert/goal
all=" FortyThieves Indian Limited LittleForty Lucas Maria NumberTen RankAndFile Streets "
for variant in "${variants[@]}"; do
  if [[ "$all" != *" $variant "* ]]; then
    echo "goal.sh: error: $variant is not a variant (one of:$all)" >&2; exit 2
  fi
done
for variant in "${variants[@]}"; do
  low=$(echo "$variant" | tr '[:upper:]' '[:lower:]')
  # the latest shipped network stage (fortythieves_agents.reports.expert.STAGES), else PPO's
  model=results/expert/$low-ppo-long/model.zip                             # PPO trained on
  [ -f "$model" ] || model=results/expert/$low-ppo-expert/model.zip        # expert, PPO, expert
  [ -f "$model" ] || model=results/expert/$low-ppo/model.zip                # expert iteration, then PPO
  [ -f "$model" ] || model=results/expert/$low/model.zip                    # expert iteration
  [ -f "$model" ] || model=results/training/$variant/best_model.zip         # PPO
  $cmd evaluate "$model" --episodes 500 --baselines --per-episode --no-progress \
    --json "results/expert/goal/$variant-network-500.json"
done
