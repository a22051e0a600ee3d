#!/bin/bash
cd "$(dirname "$0")/../../.."  # the checkout
COMMON="--set train.total_timesteps=1e6 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=500 --set train.checkpoint_freq=250000 --set train.progress_bar=false --set train.teacher=greedy"
.venv/bin/fortythieves train configs/streets.yaml $COMMON --set teacher.imitation_coef=1.0 --set teacher.imitation_fraction=0.5 --set ppo.ent_coef=0.001 --set ppo.learning_rate=1e-4 --run-dir runs/exp/streets-cs-teacher-imit > runs/exp/streets-cs-teacher-imit.log 2>&1
