#!/bin/bash
# issue 10.2 winnability runs: 1000 test deals per variant, 2,000,000 nodes, 30 s wall cap, one worker
cd "$(dirname "$0")/../.."  # the checkout
mkdir -p runs/solve  # the logs (runs/ is not committed)
for v in LittleForty Lucas NumberTen RankAndFile Indian Limited; do
  .venv/bin/fortythieves solve $v --deals 1000 --nodes 2000000 --budget 30 --workers 1 --no-progress --results results/solver/$v.jsonl --json results/solver/$v-report.json > runs/solve/$v.log 2>&1
  echo "$v done $(date) rc=$?" >> runs/solve/progress.log
done
# the hard variants, same budget (each about an hour on one core at this budget; Streets began
# on 2026-11-30 and continues where its JSONL stops):
for v in Streets Maria FortyThieves; do
  .venv/bin/fortythieves solve $v --deals 1000 --nodes 2000000 --budget 30 --workers 1 --no-progress --results results/solver/$v.jsonl --json results/solver/$v-report.json
done
