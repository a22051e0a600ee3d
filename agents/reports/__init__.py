"""The README's and the documentation's generated tables and pictures, rendered from a
checkout's saved results (``results/``): one command writes them all, a test keeps them
current.

After new results (a solver run, an evaluation, a benchmark's JSON), from the checkout's
root::

    python -m fortythieves_agents.reports            # write every block, page and picture
    python -m fortythieves_agents.reports --check    # exit 1 naming each stale one
    python -m fortythieves_agents.reports --list     # what is generated, from what

:mod:`.targets` lists every target (a block between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->`` markers in a page, a whole page, a picture) with the function that
renders it; ``tests/agents/reports/test_generated.py`` checks each against its render.

The renderers, by the results they read: :mod:`.training` (the shipped runs), :mod:`.summary`
(the leaderboard of the saved reports, the solver's labels, the README's table),
:mod:`.solver` (winnability, the search agent, its budget curve, the solver's speed),
:mod:`.allocations` (the search's settings compared deal by deal),
:mod:`.expert` and :mod:`.expert_ablation` (expert iteration), :mod:`.speed` (the
benchmarks' saved reports), :mod:`.pages` (a page and a picture per variant).

Why a subpackage of the installed ``fortythieves_agents`` and not files in ``benchmarks/``:
the tests, the measurement scripts of ``benchmarks/`` (which print their tables with
``--table``) and the command import the renderers by name, with no file loaded by path and
no ``sys.path`` edit. Installed, it depends on no checkout: nothing is read on import, every
function takes the folder (or the checkout's root) it reads, and the command works on the
checkout in the working folder (``--root`` for another). It sits above ``evaluation`` and
``players`` (whose reports, labels and constants it reads) and below ``cli``
(``tests/test_layout.py``); ``fortythieves_env`` never imports it (the environment package
imports no agent).
"""
