#!/bin/bash
# issue 8.5 follow-up: cheaper updates or fewer policy calls per rollout, against the shipped
# defaults (the pilot's candidate runs) at 200k and 500k steps (2 seeds):
#   f128: policy.features_dim 128;  f128-e32: the same with 32 envs x 64 steps (same rollout size)
cd "$(dirname "$0")/../../.."  # the checkout
COMMON="--set train.total_timesteps=5e5 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=0 --set train.checkpoint_freq=0 --set train.progress_bar=false"
for s in 0 1; do
  .venv/bin/fortythieves train configs/streets.yaml $COMMON --set policy.features_dim=128 --set seed=$s --run-dir runs/vec_env_pilot/f128-s$s > runs/vec_env_pilot/f128-s$s.log 2>&1 &
done
wait
for s in 0 1; do
  .venv/bin/fortythieves train configs/streets.yaml $COMMON --set policy.features_dim=128 --set train.n_envs=32 --set ppo.n_steps=64 --set seed=$s --run-dir runs/vec_env_pilot/f128-e32-s$s > runs/vec_env_pilot/f128-e32-s$s.log 2>&1 &
done
wait
echo done > runs/vec_env_pilot/SMALL2_DONE
