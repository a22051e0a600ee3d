#!/bin/bash
cd "$(dirname "$0")/../../.."  # the checkout
COMMON="--set train.total_timesteps=1e6 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=500 --set train.checkpoint_freq=250000 --set train.progress_bar=false --set train.teacher=greedy --set train.no_cycling=true"
.venv/bin/fortythieves train configs/streets.yaml $COMMON --run-dir runs/exp/streets-cs-nc > runs/exp/streets-cs-nc.log 2>&1 &
.venv/bin/fortythieves train configs/streets.yaml $COMMON --set policy.network=player --run-dir runs/exp/streets-pl-nc > runs/exp/streets-pl-nc.log 2>&1 &
wait
