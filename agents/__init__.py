"""Training and fair evaluation of agents on the ``fortythieves_env`` environments (the
repository's ``agents/`` folder, installed as ``fortythieves_agents``).

Subpackages, by role (each imports only those listed after it, and the shared modules):
    cli: the ``fortythieves`` command (``cli.main``, one module per subcommand in
        ``cli.commands``, what they share in ``cli.options``) and play at a prompt
        (``cli.play``).
    training: MaskablePPO runs (``train``: its callbacks ``callbacks``, the model
        ``model``, starting from saved models ``resume``, the run's record ``run_record``,
        the phases around PPO ``phases``), teacher games and behaviour cloning
        (``teacher``), expert iteration (``expert``), sweeps (``sweep``), learning curves
        (``plot``).
    evaluation: playing the test deals with any agent (``evaluate``; the results and their
        summaries ``results``, trained models as agents ``model_agent``, game records
        ``game_records``), the clairvoyant solver over them (``solve``; its results files
        ``solver_results``), the shipped solver labels (``labels``), the leaderboard
        (``leaderboard``), Ray splitting of both (``distributed``).
    networks: the ``player`` network (``policy``), the ``card_slots`` features
        (``features``), reading a model zip without unpickling (``model_zip``).
    players: the agent protocols and the ``random``/``greedy`` baselines (``baselines``),
        the search agent (``search``; its work on one position ``search_scores``, its
        budget's numbers ``search_budget``), the one episode loop every game is played by
        (``episodes``).

Shared modules:
    config: layered YAML configs (defaults, variant file, ``--set`` overrides) validated by
        pydantic models (``config_models``, read by ``safe_yaml``); the shipped configs by
        name.
    envs: building single and vectorised environments with the seed wrappers.
    shaping: potential-based reward shaping of the training environments.
    cycles: the agents' no-cycling rule.
    seeds: the disjoint deal-seed ranges for training, validation and the final test.
    run_folder: the layout of a training run's folder (every path of it).
    paths: checks of the files and folders the commands read and write.
    process: signals and threads of the commands.

``fortythieves_agents`` imports ``fortythieves_env``; never the reverse.
"""

from __future__ import annotations

__all__ = ["__version__"]

from fortythieves_env import __version__  # one version for the package
