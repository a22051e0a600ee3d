"""The networks: the ``player`` policy (:mod:`.policy`), the one-hot ``card_slots`` features
extractor (:mod:`.features`) and a model zip read from weights and plain metadata only
(:mod:`.model_zip`)."""
