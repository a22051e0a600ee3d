"""One agent for the whole family: training on sampled rule sets, zero-shot evaluation on
the held-out games, fine-tuning on one of them (issue 41, points 3 and 4; ``docs/family.md``).

- :mod:`.views`: the agents' no-cycling rule for games of different rule sets in one batch;
- :mod:`.envs`: the training env over :class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv`
  and the family's deal table (validation, and play through ``Family-v0``);
- :mod:`.agents`: the family network playing a variant's own id through the shared encoding,
  and greedy read from the shared observation (the family's teacher);
- :mod:`.config`: the validated ``family:`` configuration (``configs/family.yaml``);
- :mod:`.train`: ``fortythieves train family``;
- :mod:`.zero_shot`: the held-out games' report (``fortythieves family evaluate``).
"""
