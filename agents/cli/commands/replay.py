"""``fortythieves replay``: a game record checked and shown move by move
(:mod:`fortythieves_env.records`)."""

from __future__ import annotations

import argparse
import sys

from ...config import ConfigError
from ...paths import check_writable_file
from ..options import _add_variant_spec, _checked, _int_in


def _add_replay_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``replay`` subcommand (game records, :mod:`fortythieves_env.records`)."""
    rp = sub.add_parser(
        "replay",
        help="check a game record and show it move by move (text, --gif, --html)",
    )
    rp.add_argument(
        "file",
        metavar="FILE",
        help="a game record, written by evaluate --save-games or play --save",
    )
    _add_variant_spec(rp)
    rp.add_argument("--all", action="store_true", help="print every position at once (no waiting)")
    rp.add_argument(
        "--delay",
        type=float,
        metavar="S",
        help="show the next position after S seconds (default: on each Enter key)",
    )
    rp.add_argument(
        "--moves",
        type=_int_in(0, 10**9),
        metavar="N",
        help="show only the first N moves (the whole record is still checked)",
    )
    rp.add_argument(
        "--gif",
        metavar="OUT",
        type=_checked(check_writable_file),
        help="write an animated GIF of the table (4 positions/s) instead of the text",
    )
    rp.add_argument(
        "--html",
        metavar="OUT",
        type=_checked(check_writable_file),
        help="write a self-contained HTML page that steps through the game",
    )


def _replay(args: argparse.Namespace) -> int:
    """Check the record (refused: one-line error), then show or write it."""
    import time

    from fortythieves_env.records.record import (
        RecordError,
        boards,
        describe,
        load_record,
        verify,
        write_gif,
        write_html,
    )

    if args.delay is not None and not args.delay >= 0:
        raise ConfigError(f"argument --delay: must be a number of seconds >= 0, got {args.delay}")
    try:
        record = load_record(args.file)
        verify(record)
        if args.gif or args.html:
            for path, write in ((args.gif, write_gif), (args.html, write_html)):
                if path:
                    shown = write(record, path, moves=args.moves)
                    print(f"{shown} positions written to {path}")
            print(describe(record))
            return 0
        interactive = not args.all and args.delay is None and sys.stdin.isatty()
        n = len(record.moves)
        for k, (move, text) in enumerate(boards(record, "ansi", args.moves)):
            print("start" if move is None else f"move {k}/{n}: {move}")
            print(text)
            if k == min(n, n if args.moves is None else args.moves):
                break
            if interactive:
                if input("[Enter: next move, q: quit] ").strip().lower() == "q":
                    return 0
            elif args.delay:
                time.sleep(args.delay)
    except RecordError as exc:
        message = str(exc)  # every refusal names the record's file
        if not message.startswith(str(args.file)):
            message = f"{args.file}: {message}"
        raise ConfigError(message) from None
    except OSError as exc:
        raise ConfigError(f"cannot write: {exc}") from None
    print(describe(record))
    return 0
