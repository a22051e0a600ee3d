#!/bin/bash
# issue 25.2: the search agent's strength against its budget per move on Number Ten and Forty
# Thieves (100 deals at 0.01 and 0.1 s; 10 at 1 s and 2 at 10 s: a deal of Number Ten at 10 s
# costs about an hour on one core). Resumable: rerun to continue with the next deal.
# Run from the repository root: bash scripts/search/budget_curve/run.sh
set -e
python -m benchmarks.search_budget_curve --variants NumberTen,FortyThieves --deals 100 \
  --budgets 0.01,0.1,1:10,10:2 --json results/search/budget_curve/curve.json \
  --png results/search/budget_curve/curve.png
