#!/bin/bash
# Issue 25.3's PPO column: each variant's shipped model (results/training/<variant>/best_model.zip,
# the network alone, no search) on the first N test deals, the deals of run_eval.sh, with
# per-deal rows. Reports go to results/search/ppo/<variant>-<N>.json; a variant whose report
# exists is skipped, so the script continues where it stopped.
#   scripts/search/run_ppo.sh [N] [VARIANT ...]        (default: 200 deals, all nine)
# FORTYTHIEVES picks the command (default: .venv/bin/fortythieves).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-200}
shift || true
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  variants=(Lucas RankAndFile Indian Limited NumberTen LittleForty Streets Maria FortyThieves)
fi
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
mkdir -p results/search/ppo
for v in "${variants[@]}"; do
  out=results/search/ppo/$v-$n.json
  if [ -f "$out" ]; then echo "$v: $out exists, skipped"; continue; fi
  echo "$v: $(date -Is) start"
  COLUMNS=160 $cmd evaluate "results/training/$v/best_model.zip" --episodes "$n" --baselines \
    --per-episode --no-progress --json "$out.part"
  mv "$out.part" "$out"
  echo "$v: $(date -Is) done -> $out"
done
