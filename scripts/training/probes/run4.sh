#!/bin/bash
cd "$(dirname "$0")/../../.."  # the checkout
COMMON="--set train.total_timesteps=1e6 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=500 --set train.checkpoint_freq=250000 --set train.progress_bar=false --set train.teacher=greedy --set train.no_cycling=true"
.venv/bin/fortythieves train configs/numberten.yaml $COMMON --set policy.network=player --run-dir runs/exp/numberten-pl-nc > runs/exp/numberten-pl-nc.log 2>&1
