"""Training: MaskablePPO runs (:mod:`.train`, with :mod:`.callbacks`, :mod:`.model`,
:mod:`.resume`, :mod:`.run_record` and :mod:`.phases`), teacher games and behaviour cloning
(:mod:`.teacher`), expert iteration (:mod:`.expert`), Ray Tune sweeps (:mod:`.sweep`) and
learning curves (:mod:`.plot`)."""
