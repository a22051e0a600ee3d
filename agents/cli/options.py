"""What the ``fortythieves`` command's modules share: the parser class whose errors are one
line, the argparse types, ``--variant-spec`` and ``--ray``, the exit codes and bounds, the
console the commands print with, and the model a run folder stands for."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..config import ConfigError
from ..run_folder import MODEL_NAMES, RunFolder

__all__ = [
    "EPISODES_MAX",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "MIN_WIDTH",
    "PIPED_WIDTH",
    "SEED_MAX",
    "VARIANT_SPEC_HELP",
    "WORKERS_MAX",
    "resolve_model_path",
]

EXIT_USAGE = 2


EXIT_INTERRUPTED = 130


SEED_MAX = 2**32 - 1
"""Largest seed (numpy's legacy global seeding, which SB3 uses, takes 32 bits)."""


EPISODES_MAX = 1_000_000_000
"""Most test deals (the size of the test seed range, see :mod:`fortythieves_agents.seeds`)."""


WORKERS_MAX = 1024
"""Most worker processes of ``solve`` (and CPUs per sweep trial)."""


EXIT_FAILED = 1


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line, ``<prog>: error: <message>``, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())}\n")


def _int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer in ``low..high`` (``1e3`` and ``1_000`` accepted)."""

    def parse(text: str) -> int:
        value: int | None
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                number = float("nan")
            value = int(number) if number.is_integer() else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in {low}..{high}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def _variant(text: str) -> str:
    """An argparse ``type=``: a registered variant id (imports no torch)."""
    import fortythieves_env

    try:
        fortythieves_env.env_id(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


VARIANT_SPEC_HELP = (
    "a custom variant: a YAML file of VariantSpec fields (or a training config with "
    "env.custom_variant), registered before the other arguments are read, so that its id "
    "works as a variant (repeatable)"
)


def _add_variant_spec(parser: argparse.ArgumentParser) -> None:
    """``--variant-spec FILE`` (read by :func:`_register_variant_specs` before parsing)."""
    parser.add_argument(
        "--variant-spec", metavar="FILE", action="append", default=[], help=VARIANT_SPEC_HELP
    )


def _register_variant_specs(argv: Sequence[str]) -> None:
    """Register the custom variant of every ``--variant-spec FILE`` in ``argv`` (before the
    parser checks variant ids).

    Raises:
        ConfigError: ``argument --variant-spec: FILE: ...`` (the file's problem, one line),
            or its id is already registered as another variant.
    """
    import fortythieves_env

    from ..config import load_variant_spec

    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--variant-spec", action="append", default=[])
    files = pre.parse_known_args(list(argv))[0].variant_spec
    for file in files:
        try:
            fortythieves_env.register_variant(load_variant_spec(file))
        except (ConfigError, ValueError) as exc:
            text = str(exc)
            if not text.startswith(file):
                text = f"{file}: {text}"
            raise ConfigError(f"argument --variant-spec: {text}") from None


def _checked(check: Callable[[str, str], None]) -> Callable[[str], str]:
    """An argparse ``type=`` running a :mod:`fortythieves_agents.paths` check (the path is not
    named twice)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError("empty path")
        try:
            check(text, "")
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc).strip()) from None
        return text

    return parse


def _address(text: str) -> str:
    """An argparse ``type=``: a Ray address (not empty)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty address")
    return text


def _add_ray_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray`` and ``--address`` (see :mod:`fortythieves_agents.evaluation.distributed`)."""
    parser.add_argument("--ray", action="store_true", help=what)
    parser.add_argument(
        "--address",
        type=_address,
        help="the Ray cluster to use with --ray (default: RAY_ADDRESS, else a local Ray)",
    )


def resolve_model_path(target: Path) -> Path:
    """The model zip a run folder or path stands for.

    Raises:
        ConfigError: nothing usable at ``target``.
    """
    if target.is_file():
        return target
    if target.is_dir():
        for folder in (RunFolder(target).models, target):
            for name in MODEL_NAMES:
                if (folder / name).is_file():
                    return folder / name
        raise ConfigError(f"{target}: no model found (looked for {', '.join(MODEL_NAMES)})")
    if target.exists():  # a FIFO, a device, a socket
        from fortythieves_env.records.files import file_kind

        kind = file_kind(target.stat().st_mode)
        raise ConfigError(f"{target}: {kind}, not a run folder or a model file")
    raise ConfigError(f"{target}: no such run folder or model file")


PIPED_WIDTH = 160
"""Characters per line of the commands' output when it is not a terminal and ``COLUMNS`` does
not say (rich would cut its tables to 80 columns)."""


MIN_WIDTH = 40
"""A ``COLUMNS`` below this (or not a number) is ignored: rich prints nothing at 0 and empty
table cells at a few columns."""


def _console(**kwargs: Any) -> Any:
    """The ``rich`` console the commands print with (``soft_wrap``): ``COLUMNS`` wide when it
    is a number of at least :data:`MIN_WIDTH`, else the terminal's width, or
    :data:`PIPED_WIDTH` when the output is not a terminal."""
    from rich.console import Console

    raw = os.environ.get("COLUMNS", "").strip()
    width = int(raw) if raw.isdecimal() and raw.isascii() else 0
    if width < MIN_WIDTH:
        try:
            width = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError, AttributeError):  # not a terminal (or no fileno)
            width = PIPED_WIDTH
        width = width if width >= MIN_WIDTH and sys.stdout.isatty() else PIPED_WIDTH
    return Console(width=width, soft_wrap=True, **kwargs)


def _write_report(path: Path, report: dict[str, object]) -> None:
    """Write the JSON report (its folder created if missing).

    Raises:
        ConfigError: the file cannot be written (the report then goes to stdout, so the
            evaluation is not lost).
    """
    text = json.dumps(report, indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        sys.stdout.write(text)
        raise ConfigError(
            f"argument --json: {path}: cannot write the report ({exc.strerror or exc}); "
            "it was printed to stdout instead"
        ) from None
