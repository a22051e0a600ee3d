"""``python -m fortythieves_agents.cli``: the ``fortythieves`` command."""

import sys

from fortythieves_agents.cli.main import main

sys.exit(main())
