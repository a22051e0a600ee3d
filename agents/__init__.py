"""Training and fair evaluation of agents on the ``fortythieves_env`` environments (the
repository's ``agents/`` folder, installed as ``fortythieves_agents``).

Modules:
    config: layered YAML configs (defaults, variant file, ``--set`` overrides) validated by
        pydantic models; the shipped configs by name.
    paths: checks of the files and folders the commands read and write.
    seeds: the disjoint deal-seed ranges for training, validation and the final test.
    envs: building single and vectorised environments with the seed wrappers.
    features: the one-hot card features extractor of the ``card_slots`` network.
    policy: the ``player`` network (shared column encoder and move scorer), ``policy_logits``.
    model_zip: loading a model zip from weights and plain metadata only (no unpickling).
    shaping: potential-based reward shaping of the training environments.
    baselines: the agent protocols and the ``random`` and ``greedy`` reference agents.
    cycles: the agents' no-cycling rule.
    search: the search agent (hindsight optimisation over sampled hidden cards).
    episodes: the one episode loop every game is played by (evaluation, teacher, search and
        expert games) and the tables of games it plays on.
    teacher: teacher games and behaviour cloning before PPO.
    evaluation: playing the test deals with any agent, confidence intervals, tables and JSON.
    solve: the clairvoyant solver over the test deals, its records and verdicts.
    train: MaskablePPO training runs (callbacks, checkpoints, resume).
    run_folder: the layout of a training run's folder.
    leaderboard: the benchmark's leaderboard of evaluation reports.
    labels: the protocol's solver labels shipped with the package.
    plot: learning curves of runs.
    play: a person plays a deal at a prompt, with hints.
    distributed: the Ray connection; evaluation and solving split across Ray workers.
    sweep: seed and hyperparameter sweeps as Ray Tune trials (``fortythieves sweep``).
    process: signals and threads of the commands.
    cli: the ``fortythieves`` command.

``fortythieves_agents`` imports ``fortythieves_env``; never the reverse.
"""

from __future__ import annotations

__all__ = ["__version__"]

from fortythieves_env import __version__  # one version for the package
