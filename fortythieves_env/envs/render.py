"""A picture of a deal's table as a PNG: ``python -m fortythieves_env.envs.render``.

:func:`table_picture` plays a deal with a fixed rule and draws the frame; :func:`main` is the
command that saves it (``docs/table.png`` and the golden image of ``tests/env/test_render.py``
are made with it). The drawing itself, :func:`render_rgb` and :func:`frame_size`, is in
:mod:`.drawing` (this module hands both on), so that the environments draw their frames without
importing this module, which imports them (the drawing's other names still read from here).
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np
from PIL import Image

from ..rules.variants import VariantSpec
from . import drawing as _drawing
from .drawing import frame_size, render_rgb

__all__ = ["COMMAND_DESCRIPTION", "frame_size", "main", "render_rgb", "table_picture"]


def __getattr__(name: str) -> Any:
    """The drawing's other names (``CARD_W``, ``_font``, ...), which this module held until
    the drawing had a module of its own: the old paths keep every name."""
    return getattr(_drawing, name)


def table_picture(variant: str | VariantSpec, seed: int, moves: int) -> np.ndarray:
    """The frame after ``moves`` moves of the deal ``reset(seed=seed)``: the picture of the
    README and of the golden-image test.

    The moves are fixed, not learnt: a move to a foundation when there is one, else the
    legal move at index ``(7 * k + seed) % len(legal)`` of the ``k``-th step (action
    order). Stops early when the game ends.

    Returns:
        ``uint8`` array ``(*frame_size(variant), 3)``.
    """
    from .env import FortyThievesEnv

    env = FortyThievesEnv(variant, render_mode="rgb_array")
    env.reset(seed=seed)
    for k in range(moves):
        legal = np.flatnonzero(env.action_masks()).tolist()
        if not legal:
            break
        names = [env.action_to_move(a) for a in legal]
        to_foundation = [a for a, name in zip(legal, names, strict=True) if name.endswith(">f")]
        action = to_foundation[0] if to_foundation else legal[(7 * k + seed) % len(legal)]
        _, _, terminated, _, _ = env.step(action)
        if terminated:
            break
    return env.render()


COMMAND_DESCRIPTION = (
    "Save a picture of a deal's table as a PNG: the deal reset(seed=S) of variant V, after "
    "N moves played by a fixed rule (cards to the foundations first). This is how "
    "docs/table.png and the golden image of tests/env/test_render.py are made."
)
"""The ``--help`` text of ``python -m fortythieves_env.envs.render`` (plain text, no markup)."""


def _non_negative(text: str) -> int:
    """An argparse ``type=``: an integer >= 0."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> None:
    """``python -m fortythieves_env.envs.render OUT.png [--variant V] [--seed S] [--moves N]``:
    save :func:`table_picture` as a PNG and print one line saying what was written.

    Raises:
        SystemExit: 2 on bad input, after one ``python -m fortythieves_env.envs.render: error:
            ...`` line on stderr (an unknown variant, a negative number, a file that cannot
            be written); nothing is written then.
    """
    import argparse
    import sys

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line, no usage block
            self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")

    parser = Parser(prog="python -m fortythieves_env.envs.render", description=COMMAND_DESCRIPTION)
    parser.add_argument("out", metavar="OUT.png", help="the PNG file to write")
    parser.add_argument(
        "--variant", metavar="V", default="Streets", help="variant id (default: Streets)"
    )
    parser.add_argument(
        "--seed",
        metavar="S",
        type=_non_negative,
        default=0,
        help="the deal: reset(seed=S) (default 0)",
    )
    parser.add_argument(
        "--moves",
        metavar="N",
        type=_non_negative,
        default=0,
        help="moves to play first (default 0; fewer if the game ends)",
    )
    args = parser.parse_args(argv)
    try:
        frame = table_picture(args.variant, args.seed, args.moves)
    except ValueError as err:
        parser.error(str(err))
    try:
        Image.fromarray(frame).save(args.out, format="PNG", optimize=True)
    except OSError as err:
        parser.error(f"argument out: cannot write {args.out} ({err})")
    height, width = frame.shape[:2]
    print(
        f"table picture written to {args.out} ({width}x{height} pixels): {args.variant}, "
        f"seed {args.seed}, --moves {args.moves}",
        file=sys.stdout,
    )


if __name__ == "__main__":
    main()
