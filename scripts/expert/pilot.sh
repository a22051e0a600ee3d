#!/bin/bash
# Expert-iteration pilots on Number Ten (issue 26): the shipped numberten config (greedy teacher's
# cloning first), then expert iterations with the pilot's settings, a token PPO (one rollout),
# no final evaluation; the network alone is validated on 200 validation deals after each
# iteration. Resumable: rerun the same command (train --resume RUN continues the iterations).
#   scripts/expert/pilot.sh 1|2|3
# 1: soft targets (the values' softmax, temperature 0.05), 32 games per iteration, 4 epochs
# 2: hard targets (the search's move), 64 games, 8 epochs
# 3: improve targets (the network's distribution x exp(value / 0.05)), 32 games, 8 epochs
# The run folder is runs/pilot<N>-numberten; its expert/state.json is copied to
# results/expert/pilots/numberten-pilot<N>-state.json. FORTYTHIEVES picks the command.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=${FORTYTHIEVES:-.venv/bin/fortythieves}
case "${1:-}" in
  1) settings=(expert.iterations=6 expert.games=32 expert.targets=soft expert.epochs=4) ;;
  2) settings=(expert.iterations=6 expert.games=64 expert.targets=hard expert.epochs=8) ;;
  3) settings=(expert.iterations=6 expert.games=32 expert.targets=improve expert.temperature=0.05 expert.epochs=8) ;;
  *) echo "usage: scripts/expert/pilot.sh 1|2|3" >&2; exit 2 ;;
esac
run=runs/pilot$1-numberten
common=(expert.search_seconds=0.1 expert.validation_games=200 train.total_timesteps=2048
        eval.eval_freq=0 eval.final_episodes=0 train.progress_bar=false)
if [ -f "$run/expert/state.json" ]; then
  $cmd train "$run/config.yaml" --resume "$run"
else
  args=()
  for s in "${settings[@]}" "${common[@]}"; do args+=(--set "$s"); done
  $cmd train configs/numberten.yaml --run-dir "$run" "${args[@]}"
fi
mkdir -p results/expert/pilots
cp "$run/expert/state.json" "results/expert/pilots/numberten-pilot$1-state.json"
