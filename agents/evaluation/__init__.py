"""Evaluation: the test deals played by any agent (:mod:`.evaluate`, with :mod:`.results`,
:mod:`.model_agent` and :mod:`.game_records`), the clairvoyant solver over them
(:mod:`.solve`, its results files :mod:`.solver_results`), the protocol's shipped solver
labels (:mod:`.labels`), the leaderboard of reports (:mod:`.leaderboard`) and Ray splitting
(:mod:`.distributed`)."""
