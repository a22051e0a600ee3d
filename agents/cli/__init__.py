"""The ``fortythieves`` command (:mod:`.main`, which builds the parser and dispatches;
``python -m fortythieves_agents.cli`` runs it too), one module per subcommand
(:mod:`.commands`), what they share (:mod:`.options`), and a deal played at a prompt
(:mod:`.play`)."""
