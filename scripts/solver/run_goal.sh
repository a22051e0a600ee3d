#!/bin/bash
# issue 24's goal budget: about 60 s per deal on one core, as a node budget (200,000,000
# nodes: 40-70 s on this machine alone), on the first 15 test deals of the three hard
# variants, one worker (a 300 s wall cap as a guard only). Written beside run_v3.sh's files
# and appended to results/solver/<variant>.jsonl when both runs are done.
# Run from the repository root: bash scripts/solver/run_goal.sh
set -e
for v in FortyThieves Streets Maria; do
  python -m fortythieves_agents.cli solve $v --deals 15 --nodes 200000000 --budget 300 --workers 1 \
    --no-progress --results results/solver/goal/$v.jsonl --json results/solver/goal/$v-report.json
done
