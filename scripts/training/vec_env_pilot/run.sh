#!/bin/bash
# issue 8.3 pilot: default (dummy, 4 envs x 256, batch 256) vs candidate (batched, 16 envs x 128, batch 512)
cd "$(dirname "$0")/../../.."  # the checkout
COMMON="--set train.total_timesteps=5e5 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=0 --set train.checkpoint_freq=0 --set train.progress_bar=false"
CAND="--set train.vec_env=batched --set train.n_envs=16 --set ppo.n_steps=128 --set ppo.batch_size=512"
for s in 0 1; do
  .venv/bin/fortythieves train configs/streets.yaml $COMMON --set seed=$s --run-dir runs/vec_env_pilot/default-s$s > runs/vec_env_pilot/default-s$s.log 2>&1 &
  .venv/bin/fortythieves train configs/streets.yaml $COMMON $CAND --set seed=$s --run-dir runs/vec_env_pilot/candidate-s$s > runs/vec_env_pilot/candidate-s$s.log 2>&1 &
  wait
done
echo done > runs/vec_env_pilot/DONE
