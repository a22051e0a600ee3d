"""``python -m fortythieves_agents.reports``: write every generated table, page and picture
of the README and the docs from the checkout's ``results/`` (see the package's docstring).

Exit codes: 0 done (or, with ``--check``, everything current); 1 with ``--check``, some
target stale; 2 a results file could not be read, a page lacks its markers, or bad options.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .targets import COMMAND, RENDER_ERRORS, Block, Outcome, check, regenerate, select, targets

EXIT_STALE = 1
EXIT_FAILED = 2


def _root(text: str) -> Path:
    """An argparse ``type=``: a checkout's root (it has ``README.md`` and ``results/``)."""
    root = Path(text).resolve()
    if not ((root / "README.md").is_file() and (root / "results").is_dir()):
        raise argparse.ArgumentTypeError(
            f"{root} is not a checkout of the repository (no README.md and results/ there): "
            "run the command from the checkout's root or give --root"
        )
    return root


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Write every generated table, page and picture of README.md and docs/ "
        "from results/ (only those that differ are rewritten).",
    )
    parser.add_argument(
        "--root", type=_root, default=".", help="the checkout's root (default: here)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 naming each target that differs from its render",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=[],
        metavar="NAME",
        help="only these targets: a block's name (winnability-table) or a file's path "
        "(docs/solver.md: every target in it)",
    )
    parser.add_argument("--list", action="store_true", help="list the targets and their sources")
    parser.add_argument(
        "--print",
        dest="show",
        metavar="BLOCK",
        help="print one block's text as rendered now (e.g. leaderboard, summary-table)",
    )
    parser.add_argument(
        "--reports",
        nargs="+",
        default=[],
        metavar="FILE",
        help="with --print leaderboard: rank these evaluation reports beside the saved ones",
    )
    return parser


def _print_block(name: str, root: Path, extra: Sequence[str]) -> int:
    """Print block ``name`` (the leaderboard with the ``extra`` reports beside the saved
    ones; a refused report is one line on stderr and exit code 2)."""
    from ..evaluation.leaderboard import ReportError, leaderboard_table
    from .summary import checkout_rows, default_reports

    if name == "leaderboard":
        refused: list[ReportError] = []
        paths = [*default_reports(root), *map(Path, extra)]
        print(leaderboard_table(checkout_rows(root, paths, refused)))
        for exc in refused:
            print(f"{COMMAND}: refused: {exc}", file=sys.stderr)
        return EXIT_FAILED if refused else 0
    if extra:
        raise ValueError("--reports goes with --print leaderboard")
    block = next((t for t in targets() if isinstance(t, Block) and t.name == name), None)
    if block is None:
        names = sorted({t.name for t in targets() if isinstance(t, Block)})
        raise ValueError(f"no block named {name} (blocks: {', '.join(names)})")
    print(block.make(root))
    return 0


def _summary(outcomes: list[Outcome], checking: bool) -> int:
    """Print the outcomes worth a line and say what to do; the exit code."""
    for outcome in outcomes:
        if outcome.status != "current":
            stream = sys.stderr if outcome.status in ("failed", "stale") else sys.stdout
            print(outcome.line(), file=stream)
    statuses = ("current", "stale" if checking else "written", "skipped", "failed")
    count = {s: sum(o.status == s for o in outcomes) for s in (*statuses, "stale")}
    shown = [f"{count[s]} {s}" for s in statuses if count[s] or s in statuses[:2]]
    print(f"{len(outcomes)} generated blocks, pages and pictures: {', '.join(shown)}")
    if count["failed"]:
        return EXIT_FAILED
    if checking and count["stale"]:
        print(f"to regenerate them: {COMMAND}", file=sys.stderr)
        return EXIT_STALE
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command (see the module docstring); the exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.show:
            return _print_block(args.show, args.root, args.reports)
        if args.reports:
            raise ValueError("--reports goes with --print leaderboard")
        chosen = select(args.only)
        if args.list:
            for target in chosen:
                print(f"{target.label}: from {target.source}")
            return 0
    except RENDER_ERRORS as exc:  # a bad option, or a results file --print could not read
        print(f"{COMMAND}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    run = check if args.check else regenerate
    return _summary(run(args.root, chosen), checking=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
