"""The ``fortythieves`` command (:mod:`.main`; ``python -m fortythieves_agents.cli`` runs it
too) and a deal played at a prompt (:mod:`.play`)."""
