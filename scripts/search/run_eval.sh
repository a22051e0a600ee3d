#!/bin/bash
# Issue 10.3/10.4: the search agent (SAMPLES per move, default 16) beside random and greedy
# on the first N test deals of each variant, with the solver's verdicts of
# results/solver/<variant>.jsonl (wins among the solver-proved wins) and the time per move.
#   [SAMPLES=K] [ALLOCATION=halving] scripts/search/run_eval.sh [N] [VARIANT ...]
#   BUDGET=SECONDS [NODES=N] scripts/search/run_eval.sh [N] [VARIANT ...]
# (default: 50 deals, the variants below). Reports go to results/search/<variant>-<N>.json
# (16 samples, uniform), <variant>-<N>-k<K>.json (K samples) or <variant>-<N>-k<K>h.json (halving),
# each with one row per deal (--per-episode: the leaderboard's normalized score, the sign tests).
# BUDGET (issue 25) plays the solving setting instead (--search-budget SECONDS per move, NODES
# nodes per sample, default 1000): <variant>-<N>-s<SECONDS>.json (-s<SECONDS>-n<NODES>.json).
# A variant whose report (the file name above) exists is skipped, and a variant stopped
# half-way continues from the game records of its finished deals (runs/search-eval/), so the
# script continues where it stopped. FORTYTHIEVES picks the command (default: .venv/bin/fortythieves).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-50}
shift || true
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  # the solver proves at least half of these deals won (the 80%-of-ceiling goal), then the rest
  variants=(Lucas RankAndFile Indian Limited NumberTen LittleForty Streets Maria FortyThieves)
fi
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
samples=${SAMPLES:-16}
allocation=${ALLOCATION:-uniform}
case "$allocation" in uniform|halving) ;; *) echo "ALLOCATION must be uniform or halving, got '$allocation'" >&2; exit 2;; esac
suffix=""
budget=${BUDGET:-}
nodes=${NODES:-1000}
if [ -n "$budget" ]; then
  suffix="-s$budget"
  if [ "$nodes" != 1000 ]; then suffix="$suffix-n$nodes"; fi
  options=(--search-budget "$budget" --search-nodes "$nodes")
else
  if [ "$allocation" = halving ]; then suffix="-k${samples}h"
  elif [ "$samples" != 16 ]; then suffix="-k$samples"; fi
  options=(--search-samples "$samples" --search-allocation "$allocation")
fi
for v in "${variants[@]}"; do
  out=results/search/$v-$n$suffix.json
  if [ -f "$out" ]; then echo "$v: $out exists, skipped"; continue; fi
  echo "$v: $(date -Is) start"
  # every game's record is saved as it ends (runs/ is not in git): a stopped run continues
  # from its last finished deal with --resume, and its report is the uninterrupted one
  COLUMNS=160 $cmd evaluate search --variant "$v" --episodes "$n" "${options[@]}" \
    --per-episode --no-progress --save-games "runs/search-eval/$v-$n$suffix" --resume --json "$out.part"
  mv "$out.part" "$out"
  echo "$v: $(date -Is) done -> $out"
done
