#!/bin/bash
# issue 10.3/10.4: the search agent (16 samples) beside random and greedy on the first 50 test deals,
# with the solver's verdicts of results/solver/<variant>.jsonl (wins among solver-proved wins)
cd /work/main
for v in NumberTen; do  # LittleForty: 20 deals, below
  COLUMNS=160 .venv/bin/fortythieves evaluate search --variant $v --episodes 50 --no-progress --json results/search/$v-50.json > /work/bench/search_$v.log 2>&1
  echo "$v done $(date)" >> /work/bench/search_progress.log
done
COLUMNS=160 .venv/bin/fortythieves evaluate search --variant LittleForty --episodes 20 --no-progress --json results/search/LittleForty-20.json > /work/bench/search_LittleForty.log 2>&1
