#!/bin/bash
# issue 9 probes: can PPO started from a greedy clone beat greedy? Streets, 1M steps.
cd "$(dirname "$0")/../../.."  # the checkout
while [ ! -f runs/vec_env_pilot/BASE_DONE ]; do sleep 10; done
COMMON="--set train.total_timesteps=1e6 --set eval.eval_freq=100000 --set eval.n_eval_episodes=50 --set eval.final_episodes=500 --set train.checkpoint_freq=250000 --set train.progress_bar=false --set train.teacher=greedy"
.venv/bin/fortythieves train configs/streets.yaml $COMMON --run-dir runs/exp/streets-cs-teacher > runs/exp/streets-cs-teacher.log 2>&1 &
.venv/bin/fortythieves train configs/streets.yaml $COMMON --set policy.network=player --run-dir runs/exp/streets-pl-teacher > runs/exp/streets-pl-teacher.log 2>&1 &
wait
echo done > runs/exp/RUN1_DONE
