"""The measurement scripts: each measures something (speed, memory, a search budget's
strength) and saves its figures as JSON under ``results/`` (``--json``).

Run them from the checkout's root as modules, ``python -m benchmarks.env_throughput ...``
(each one's docstring has its commands); they import one another as ``benchmarks.<name>``
and the installed packages, and edit no ``sys.path``. The docs' tables of their saved
reports are rendered by :mod:`fortythieves_agents.reports` (``--table JSON`` prints one;
``python -m fortythieves_agents.reports`` writes them all into the docs).
"""
