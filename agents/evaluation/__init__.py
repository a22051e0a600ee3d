"""Evaluation: the test deals played by any agent (:mod:`.evaluate`), the clairvoyant solver
over them (:mod:`.solve`), the protocol's shipped solver labels (:mod:`.labels`), the
leaderboard of reports (:mod:`.leaderboard`) and Ray splitting (:mod:`.distributed`)."""
