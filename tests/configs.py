"""Config overrides shared by the tests that train or build models.

The shipped configs train the ``player`` network, start from a greedy teacher (behaviour
cloning of 200 games) and follow the no-cycling rule in training (batched env only). Tests of
the training machinery (run folders, resume, vector envs, Ray, the CLI) do not need any of
that and must stay fast, so they start from :data:`PLAIN`; tests of the network, the teacher
or the rule set those keys themselves, after it.
"""

from __future__ import annotations

PLAIN = ["policy.network=card_slots", "train.teacher=null", "train.no_cycling=false"]
"""The stock network, no teacher, no no-cycling rule in training (any ``train.vec_env``)."""
