#!/bin/bash
# issue 8.5 follow-up: can a cheaper PPO update (ppo.n_epochs 2) keep the learning of the
# shipped defaults (the pilot's candidate runs, now the defaults) at 200k and 500k steps?
cd "$(dirname "$0")/../../.."  # the checkout
COMMON="--set train.total_timesteps=5e5 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=0 --set train.checkpoint_freq=0 --set train.progress_bar=false"
for s in 0 1; do
  .venv/bin/fortythieves train configs/streets.yaml $COMMON --set ppo.n_epochs=2 --set seed=$s --run-dir runs/vec_env_pilot/epochs2-s$s > runs/vec_env_pilot/epochs2-s$s.log 2>&1 &
done
wait
echo done > runs/vec_env_pilot/EPOCHS_DONE
