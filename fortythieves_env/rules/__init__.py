"""The rules of the Forty Thieves family, free of Gymnasium (the package's lowest floor).

By what they state:

* the game's data: :mod:`.cards`, :mod:`.state` (:class:`~.state.GameState`, a position as
  lists), :mod:`.variants` (:class:`~.variants.VariantSpec`, the rule enums, the built-in
  variants, :data:`~.variants.RULES_VERSION`), :mod:`.rule_table` (what a column or a
  foundation takes);
* the encodings: :mod:`.actions` (the action index and the move notation),
  :mod:`.observation` (the observation's slices), :mod:`.tables` (a variant's tables and
  the packed state array, made once per spec);
* the compiled rules core: :mod:`.core` (also :mod:`fortythieves_env.core`, its public name),
  compiled through :mod:`.jit`'s :func:`~.jit.kernel`; :mod:`.keys` (position keys);
  :mod:`.greedy` (the greedy rule);
* the API over it: :mod:`.engine` (:class:`~.engine.Rules`), :mod:`.episode` (one episode
  step: reward, end, truncation), :mod:`.positions` (positions as text),
  :mod:`.view` (the player's view), :mod:`.pysol` (PySolFC's deals);
* the checks of input values (:mod:`.checks`) and the digest of the rules
  (:mod:`.digest`, beside :data:`~.variants.RULES_VERSION`).

The environments (:mod:`fortythieves_env.envs`), the solver (:mod:`fortythieves_env.solver`)
and the records (:mod:`fortythieves_env.records`) import from here, never the other way.
"""
