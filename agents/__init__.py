"""Training and fair evaluation of agents on the ``fortythieves_env`` environments.

Modules:
    config: layered YAML configs (defaults, variant file, ``--set`` overrides) validated by
        pydantic models.
    seeds: the disjoint deal-seed ranges for training, validation and the final test.
    envs: building single and vectorised environments with the seed wrappers.
    features: the one-hot card features extractor of the ``card_slots`` network.
    policy: the ``player`` network (shared column encoder and move scorer), ``policy_logits``.
    shaping: potential-based reward shaping of the training environments.
    baselines: the ``random`` and ``greedy`` reference agents.
    evaluation: playing the test deals with any agent, confidence intervals, tables and JSON.
    train: MaskablePPO training runs (callbacks, checkpoints, resume, run folders).
    distributed: the Ray connection; evaluation and solving split across Ray workers.
    sweep: seed and hyperparameter sweeps as Ray Tune trials (``fortythieves sweep``).
    cli: the ``fortythieves`` command.

``agents`` imports ``fortythieves_env``; never the reverse.
"""

from __future__ import annotations

__all__ = ["__version__"]

from fortythieves_env import __version__  # one version for the package
