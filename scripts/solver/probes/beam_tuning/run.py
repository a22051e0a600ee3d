"""Run the beam prototype on N deals (README.md)."""

import sys
import time

import gymnasium as gym
from prototype import iterated  # beside this script, which Python puts first on the path

from fortythieves_env import env_id, get_variant
from fortythieves_env.rules.engine import rules_for

variant = sys.argv[1]
n = int(sys.argv[2])
cap = int(float(sys.argv[3]))
w = [int(x) for x in sys.argv[4].split(",")]
first = int(sys.argv[5]) if len(sys.argv) > 5 else 0
base = int(sys.argv[6]) if len(sys.argv) > 6 else 2000000000
spec = get_variant(variant)
env = gym.make(env_id(variant))
rules = rules_for(spec)
won = []
t0 = time.process_time()
for i in range(first, first + n):
    env.reset(seed=base + i)
    st = rules.from_position(env.unwrapped.get_state())
    line, used, width = iterated(spec, st, cap, w)
    if line is not None:
        # replay check
        s = rules.from_position(env.unwrapped.get_state())
        for a in line:
            rules.play(s, a)
        assert s.foundation_cards == 104
        won.append((i, used, width, len(line)))
print(variant, cap, w, "won", len(won), "of", n, "cpu", round(time.process_time() - t0, 1))
print([x[0] for x in won])
print(won)
