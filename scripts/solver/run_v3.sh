#!/bin/bash
# issue 24: solver version 3 on the first 200 test deals, 20,000,000 nodes per deal (a 120 s
# wall cap as a guard only), two workers; continues where each JSONL stops (the records are
# keyed by variant, seed, budget and solver version).
# Run from the repository root: bash scripts/solver/run_v3.sh
set -e
for v in FortyThieves Streets Maria Limited Indian NumberTen RankAndFile Lucas LittleForty; do
  python -m fortythieves_agents.cli solve $v --deals 200 --nodes 20000000 --budget 120 --workers 2 --no-progress \
    --results results/solver/$v.jsonl --json results/solver/$v-report.json
done
