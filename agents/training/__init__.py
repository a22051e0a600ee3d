"""Training: MaskablePPO runs (:mod:`.train`), teacher games and behaviour cloning
(:mod:`.teacher`), expert iteration (:mod:`.expert`), Ray Tune sweeps (:mod:`.sweep`) and
learning curves (:mod:`.plot`)."""
