"""numba's debugging switch ``NUMBA_DISABLE_JIT=1``: the kernels run as Python and play the
games they play compiled (issue 37, point 7).

Interpreted, NumPy arithmetic on the ``int16`` state array kept its type: ``step``'s packed
return overflowed (``OverflowError: Python integer 34304 out of bounds for int16``) once a
position had 128 legal actions or more, and the hashes' intended ``uint64`` wrap-around
printed ``RuntimeWarning``s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict

from fortythieves_agents.evaluation.evaluate import play_deals
from fortythieves_agents.players.baselines import make_baseline

from fortythieves_env import env_id

SEED = 2_000_000_000
"""Number Ten's first test deal: greedy wins it in 245 moves and meets a position of 135
legal actions on the way (more than ``int16``'s 127 << 8)."""

PLAY = f"""
import json
from dataclasses import asdict
from fortythieves_agents.evaluation.evaluate import play_deals
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_env import env_id
out = {{}}
for name in ("greedy", "random"):
    results = play_deals(make_baseline(name, 0), env_id("NumberTen"), [{SEED}])
    out[name] = [asdict(r) for r in results]
print(json.dumps(out))
"""


def test_interpreted_kernels_play_the_compiled_games() -> None:
    """Greedy and random play Number Ten's first test deal with the kernels interpreted
    (warnings as errors: no overflow warning either) exactly as compiled."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", PLAY],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    interpreted = json.loads(done.stdout.splitlines()[-1])
    compiled = {
        name: [asdict(r) for r in play_deals(make_baseline(name, 0), env_id("NumberTen"), [SEED])]
        for name in ("greedy", "random")
    }
    assert compiled["greedy"][0]["won"] and compiled["greedy"][0]["length"] == 245
    assert interpreted == json.loads(json.dumps(compiled))
