"""The Gymnasium-facing environments, built on :mod:`fortythieves_env.rules`.

* :mod:`.env`: :class:`~.env.FortyThievesEnv`, one game; :mod:`.backends`, its two ways of
  holding the position;
* :mod:`.vector` (:class:`~.vector.FortyThievesVectorEnv`) and :mod:`.vector_step` (the
  compiled batch step): N games stepped by one compiled call;
* :mod:`.family`, :mod:`.family_env`, :mod:`.family_vector`: every game of the family
  through one shared encoding;
* :mod:`.registration` (the Gymnasium ids), :mod:`.drawing` (pictures of the table),
  :mod:`.render` (a deal's picture as a PNG, the command), :mod:`.wrappers`.
"""
