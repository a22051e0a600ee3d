"""The ``fortythieves`` command's subcommands, one module each: its parser
(``_add_<command>_parser``) and what it does (``_<command>``); :mod:`..main` builds the
parser from them and dispatches."""
