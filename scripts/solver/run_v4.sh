#!/bin/bash
# issue 39: solver version 4 (the beam pass) on the first 200 test deals, 20,000,000 nodes per
# deal as version 3 (a 120 s wall cap as a guard only), one worker per variant list; continues
# where each JSONL stops (records are keyed by variant, seed, budget and solver version).
# Run from the repository root: bash scripts/solver/run_v4.sh FortyThieves Maria
set -e
for v in "$@"; do
  python -m fortythieves_agents.cli solve $v --deals 200 --nodes 20000000 --budget 120 --workers 1 --no-progress \
    --results results/solver/$v.jsonl --json results/solver/$v-report.json
done
