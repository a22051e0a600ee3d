#!/bin/bash
# the shipped defaults again, validated with the no-cycling rule (as f128 and f128-e32 are)
cd "$(dirname "$0")/../../.."  # the checkout
while [ ! -f runs/vec_env_pilot/SMALL2_DONE ]; do sleep 10; done
COMMON="--set train.total_timesteps=5e5 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=0 --set train.checkpoint_freq=0 --set train.progress_bar=false"
for s in 0 1; do
  .venv/bin/fortythieves train configs/streets.yaml $COMMON --set seed=$s --run-dir runs/vec_env_pilot/base-s$s > runs/vec_env_pilot/base-s$s.log 2>&1 &
done
wait
echo done > runs/vec_env_pilot/BASE_DONE
