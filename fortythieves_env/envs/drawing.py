"""Pictures of the table: ``render_mode="rgb_array"`` (drawn with Pillow, no downloaded assets).

The drawing alone, from the rules' modules only: the environments draw their frames with
:func:`render_rgb`; :mod:`.render` plays a deal to a picture and is the command line.

:func:`render_rgb` draws what a person watching the table sees, from a
:class:`~fortythieves_env.rules.view.PlayerView` only, so nothing hidden can reach a frame: the
face-down cards of each column as backs, the stock as a back with its count on it (never its
cards), the top three cards of the waste, the 8 foundations (their top cards, or an empty
place marked with its suit), and a header line with the variant's name, the stock and waste
counts, the foundation cards and, in variants with redeals, the redeals left. Columns are
labelled ``t0``, ``t1``, ... as in the move notation.

Suits are drawn as shapes (no font glyphs); card ranks are text in Pillow's own scalable
font (``ImageFont.load_default(size=...)``, Pillow >= 10.1 with FreeType, as in Pillow's
wheels): ranks at 20 px, the header at 16 px and the column labels at 14 px (font sizes).

The frame size depends on the variant only (:func:`frame_size`: room for the longest column
the variant can build), so every frame of a game, and of every game of the variant, has the
same shape, as a video needs; both sides are multiples of 16 (video codecs want that).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..rules.cards import RANK, RED, SUIT
from ..rules.variants import VariantSpec, get_variant
from ..rules.view import PlayerView

CARD_W, CARD_H = 60, 84
"""Card size in pixels."""
GAP = 8
"""Pixels between two columns (and between the places of the top row)."""
MARGIN = 12
"""Pixels around the table."""
DOWN_STEP, UP_STEP = 12, 26
"""Pixels between the tops of two stacked cards in a column: face down, face up."""
WASTE_STEP = 26
"""Pixels between the waste's fanned top cards."""
HEADER_H, LABEL_H = 30, 20
"""Height of the header line and of the column labels."""
RANK_SIZE, HEADER_SIZE, LABEL_SIZE = 20, 16, 14
"""Font sizes in pixels: card ranks, the header line, the column labels."""

TABLE = (22, 101, 52)
SLOT = (14, 74, 37)
FACE = (252, 252, 247)
EDGE = (40, 40, 40)
RED_INK = (200, 20, 30)
BLACK_INK = (20, 20, 20)
BACK = (36, 72, 160)
BACK_INNER = (70, 110, 200)
TEXT = (245, 245, 235)

_RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's built-in scalable font at ``size`` px (needs Pillow >= 10.1 with FreeType)."""
    font = ImageFont.load_default(size=size)
    if not isinstance(font, ImageFont.FreeTypeFont):  # pragma: no cover - Pillow without FreeType
        raise RuntimeError(
            "rgb_array rendering needs Pillow >= 10.1 built with FreeType (Pillow's wheels are)"
        )
    return font


def frame_size(variant: str | VariantSpec) -> tuple[int, int]:
    """``(height, width)`` in pixels of every frame of ``variant``.

    Wide enough for the columns and for the top row (stock, waste, 8 foundations); high
    enough for the longest column the variant can hold (``spec.max_visible`` cards).
    """
    spec = get_variant(variant)
    top_row = 10 * (CARD_W + GAP) + 2 * WASTE_STEP
    width = 2 * MARGIN + max(spec.n_columns * (CARD_W + GAP) - GAP, top_row)
    column = (spec.max_visible - 1) * UP_STEP + CARD_H
    height = MARGIN + HEADER_H + CARD_H + 2 * GAP + LABEL_H + column + MARGIN
    return (-(-height // 16) * 16, -(-width // 16) * 16)


def render_rgb(variant: str | VariantSpec, view: PlayerView) -> np.ndarray:
    """Draw the table of ``view``.

    Args:
        variant: the variant id or spec the view belongs to.
        view: what the table shows (:func:`fortythieves_env.rules.view.player_view`).

    Returns:
        ``uint8`` array of shape ``(*frame_size(variant), 3)`` (RGB), a new array.

    Raises:
        ValueError: the view is of another variant.
    """
    spec = get_variant(variant)
    if view.variant != spec.id:
        raise ValueError(f"the view is of variant {view.variant!r}, not {spec.id!r}")
    height, width = frame_size(spec)
    img = Image.new("RGB", (width, height), TABLE)
    draw = ImageDraw.Draw(img)

    header = (
        f"{spec.name}    stock {view.stock_size}    waste {len(view.waste)}    "
        f"foundations {view.foundation_cards}/104"
    )
    if spec.redeals:
        header += f"    redeals left {view.redeals_left}"
    draw.text((MARGIN, MARGIN), header, font=_font(HEADER_SIZE), fill=TEXT)

    top = MARGIN + HEADER_H
    x = MARGIN
    if view.stock_size:  # the stock: a back with its count
        img.paste(_back(), (x, top))
        count = str(view.stock_size)
        font = _font(RANK_SIZE)
        w = draw.textlength(count, font=font)
        draw.text((x + (CARD_W - w) / 2, top + CARD_H / 2 - 12), count, font=font, fill=TEXT)
    else:
        _slot(draw, x, top)
    x += CARD_W + GAP
    if view.waste:  # the waste: its top three cards, fanned to the right
        shown = view.waste[-3:]
        for k, code in enumerate(shown):
            img.paste(_face(code), (x + k * WASTE_STEP, top))
    else:
        _slot(draw, x, top)
    x += CARD_W + 2 * WASTE_STEP + 2 * GAP
    for pile, height_ in enumerate(view.foundations):
        suit = pile // 2
        if height_:
            img.paste(_face(suit * 13 + height_), (x, top))
        else:
            _slot(draw, x, top)
            _suit(draw, suit, x + CARD_W / 2 - 12, top + CARD_H / 2 - 12, 24, SLOT_MARK)
        x += CARD_W + GAP

    label_top = top + CARD_H + 2 * GAP
    col_top = label_top + LABEL_H
    for i, (cards, down) in enumerate(zip(view.tableau, view.face_down, strict=True)):
        x = MARGIN + i * (CARD_W + GAP)
        draw.text((x + 2, label_top), f"t{i}", font=_font(LABEL_SIZE), fill=TEXT)
        if not cards and not down:
            _slot(draw, x, col_top)
            continue
        y = col_top
        for _ in range(down):
            img.paste(_back(), (x, y))
            y += DOWN_STEP
        for code in cards:
            img.paste(_face(code), (x, y))
            y += UP_STEP
    return np.array(img)


SLOT_MARK = (40, 110, 62)
"""Colour of the suit marks on empty foundations."""


def _slot(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    """An empty place: a dark outlined rectangle."""
    draw.rounded_rectangle((x, y, x + CARD_W - 1, y + CARD_H - 1), 5, fill=SLOT, outline=SLOT_MARK)


@cache
def _back() -> Image.Image:
    """A face-down card."""
    img = Image.new("RGB", (CARD_W, CARD_H), TABLE)
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), 5, fill=FACE, outline=EDGE)
    draw.rectangle((4, 4, CARD_W - 5, CARD_H - 5), fill=BACK)
    for k in range(-CARD_H, CARD_W, 8):  # a diagonal lattice
        draw.line((4 + k, 4, 4 + k + CARD_H, 4 + CARD_H), fill=BACK_INNER)
        draw.line((4 + k + CARD_H, 4, 4 + k, 4 + CARD_H), fill=BACK_INNER)
    draw.rectangle((0, 0, 3, CARD_H - 1), fill=FACE)
    draw.rectangle((CARD_W - 4, 0, CARD_W - 1, CARD_H - 1), fill=FACE)
    draw.rectangle((0, CARD_H - 4, CARD_W - 1, CARD_H - 1), fill=FACE)
    draw.rectangle((0, 0, CARD_W - 1, 3), fill=FACE)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), 5, outline=EDGE)
    draw.rectangle((4, 4, CARD_W - 5, CARD_H - 5), outline=BACK)
    return img


@cache
def _face(code: int) -> Image.Image:
    """A face-up card: rank and a small suit in the top corner (the part a stacked card
    shows), a large suit in the middle."""
    img = Image.new("RGB", (CARD_W, CARD_H), TABLE)
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), 5, fill=FACE, outline=EDGE)
    ink = RED_INK if RED[code] else BLACK_INK
    rank = _RANK_TEXT[RANK[code]]
    font = _font(RANK_SIZE)
    draw.text((4, 1), rank, font=font, fill=ink)
    w = draw.textlength(rank, font=font)
    _suit(draw, SUIT[code], 4 + w + 3, 5, 15, ink)
    _suit(draw, SUIT[code], CARD_W / 2 - 14, 38, 28, ink)
    return img


def _suit(draw: ImageDraw.ImageDraw, suit: int, x: float, y: float, s: float, ink: tuple) -> None:
    """Draw suit ``suit`` (0..3: C D H S) as a shape in the ``s`` x ``s`` box at ``(x, y)``."""
    r = s * 0.27  # lobe radius
    if suit == 1:  # diamond
        draw.polygon(
            [
                (x + s / 2, y),
                (x + s * 0.88, y + s / 2),
                (x + s / 2, y + s),
                (x + s * 0.12, y + s / 2),
            ],
            fill=ink,
        )
    elif suit == 2:  # heart: two lobes and a point
        cy = y + r
        draw.ellipse((x + s / 2 - 2 * r, cy - r, x + s / 2, cy + r), fill=ink)
        draw.ellipse((x + s / 2, cy - r, x + s / 2 + 2 * r, cy + r), fill=ink)
        draw.polygon(
            [
                (x + s / 2 - 2 * r + 0.5, cy + r * 0.35),
                (x + s / 2 + 2 * r - 0.5, cy + r * 0.35),
                (x + s / 2, y + s),
            ],
            fill=ink,
        )
    elif suit == 3:  # spade: a point, two lobes and a stem
        cy = y + s * 0.62 - r
        draw.polygon(
            [
                (x + s / 2, y),
                (x + s / 2 + 2 * r - 0.5, cy + r * 0.1),
                (x + s / 2 - 2 * r + 0.5, cy + r * 0.1),
            ],
            fill=ink,
        )
        draw.ellipse((x + s / 2 - 2 * r, cy - r * 0.4, x + s / 2, cy + r * 1.6), fill=ink)
        draw.ellipse((x + s / 2, cy - r * 0.4, x + s / 2 + 2 * r, cy + r * 1.6), fill=ink)
        draw.polygon(
            [(x + s / 2, y + s * 0.6), (x + s * 0.68, y + s), (x + s * 0.32, y + s)], fill=ink
        )
    else:  # club: three lobes and a stem
        cx = x + s / 2
        draw.ellipse((cx - r, y, cx + r, y + 2 * r), fill=ink)
        draw.ellipse((cx - 2.1 * r, y + 1.45 * r, cx - 0.1 * r, y + 3.45 * r), fill=ink)
        draw.ellipse((cx + 0.1 * r, y + 1.45 * r, cx + 2.1 * r, y + 3.45 * r), fill=ink)
        draw.polygon([(cx, y + s * 0.45), (x + s * 0.68, y + s), (x + s * 0.32, y + s)], fill=ink)
