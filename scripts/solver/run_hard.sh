#!/bin/bash
# the hard variants of scripts/solver/run.sh alone (same budget; continues where each JSONL stops)
cd "$(dirname "$0")/../.."  # the checkout
mkdir -p runs/solve  # the logs (runs/ is not committed)
for v in Maria FortyThieves; do
  nice -n 10 .venv/bin/fortythieves solve $v --deals 1000 --nodes 2000000 --budget 30 --workers 1 --no-progress --results results/solver/$v.jsonl --json results/solver/$v-report.json > runs/solve/$v.log 2>&1
  echo "$v done $(date) rc=$?" >> runs/solve/progress.log
done
