"""The players: the agent protocols and the ``random`` and ``greedy`` baselines
(:mod:`.baselines`), the search agent over sampled hidden cards (:mod:`.search`; its work on
one position :mod:`.search_scores`, its budget's numbers :mod:`.search_budget`), and the one
episode loop every game is played by (:mod:`.episodes`)."""
