"""The documentation's page per variant, generated from the registry and the saved results.

For each variant of :data:`fortythieves_env.VARIANTS` it writes ``docs/variants/<id>.md``:
the rule book's row and notes for it (``RULES.md``), the rules spelled out from its
``VariantSpec``, a picture of its first test deal (``docs/variants/<id>.png``, drawn by
``render_mode="rgb_array"``), its actions and observation (sizes and index ranges from the
environment itself), its winnability (the solver's rows, ``results/solver/<id>.jsonl``) and
its baselines (the leaderboard's rows for it, ``benchmarks/leaderboard.py``), with the
shipped PPO run's learning curves. Nothing on these pages is typed: a test renders them
again and compares.

Usage::

    python benchmarks/variant_pages.py            # write every page and picture
    python benchmarks/variant_pages.py --check    # exit 1 if a page differs from its render
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages
import leaderboard
from fortythieves_agents.evaluation.solve import markdown_table

from fortythieves_env import VARIANTS, FortyThievesEnv, VariantSpec, env_id
from fortythieves_env.variants import Build

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "variants"
PICTURE_SEED = 2_000_000_000
"""The picture is the first test deal, before any move."""

BUILD_WORDS = {
    Build.SAME_SUIT: "one rank lower and of the same suit (10H only onto JH)",
    Build.ALTERNATE_COLOUR: "one rank lower and of the other colour (10H onto JC or JS)",
    Build.OTHER_SUIT: "one rank lower and of any suit but its own (10H onto JC, JD or JS)",
}


def rule_book_row(variant: str, rules: str) -> tuple[str, str]:
    """The header and the row of ``variant`` in the rule book's table of the nine variants.

    Raises:
        ValueError: the rule book has no row for it.
    """
    lines = rules.splitlines()
    header = next(line for line in lines if line.startswith("| id | name |"))
    for line in lines:
        if line.startswith(f"| {variant} |"):
            return header, line
    raise ValueError(f"RULES.md has no row for {variant}")


def rule_book_notes(spec: VariantSpec, rules: str) -> list[str]:
    """The rule book's notes ("Details that follow from the table") that name the variant."""
    notes = rules.split("Details that follow from the table:", 1)[-1].split("\n## ", 1)[0]
    items = re.split(r"\n- ", "\n" + notes.strip())
    found = []
    for item in items:
        text = " ".join(item.split())
        sequences = spec.sequence_moves and text.startswith('"Sequences" means')
        if sequences or text.startswith(spec.name):
            found.append(text)
    return found


def spelled_rules(spec: VariantSpec) -> list[str]:
    """The rules of ``spec`` as sentences, from its fields alone."""
    dealt = 104 - 8 * spec.aces_on_foundations
    out = []
    if spec.aces_on_foundations:
        out.append("The 8 Aces start on the foundations; the other 96 cards are shuffled.")
    out.append(
        f"Deal: {spec.n_columns} columns of {spec.cards_per_column} cards "
        f"({spec.face_down} face down, {spec.face_up} face up); the other "
        f"{spec.stock_size} of the {dealt} cards form the stock."
    )
    out.append(f"A card goes onto a column top that is {BUILD_WORDS[spec.build]}.")
    if spec.sequence_moves:
        out.append(
            "Any built sequence at the end of a column moves as a unit (`ti>tjxN`), onto a "
            "column top that takes its first card or into an empty column."
        )
    else:
        out.append("One card moves at a time; an empty column takes any card.")
    cards = "one card" if spec.deal_count == 1 else f"{spec.deal_count} cards"
    redeals = (
        "no redeal"
        if spec.redeals == 0
        else f"{spec.redeals} redeals (the waste turned over into the stock, unshuffled)"
    )
    out.append(f"A `draw` deals {cards} from the stock onto the waste; {redeals}.")
    out.append(
        "Won when all 104 cards are on the foundations; lost when no legal move is left; "
        f"the registered step limit is {spec.max_episode_steps} moves."
    )
    return out


def actions_table(spec: VariantSpec) -> str:
    """The action index ranges of ``spec`` (the formula of :mod:`fortythieves_env.actions`
    with its numbers)."""
    c, m = spec.n_columns, spec.max_move
    n = 3 + 2 * c + c * (c - 1) * m
    many = "`ti>tj` (one card)" if m == 1 else "`ti>tj`, `ti>tjxN` (N = 2..13 cards)"
    rows = [
        ("`0`", "`draw`"),
        ("`1`", "`redeal`" + (" (never legal: no redeals)" if spec.redeals == 0 else "")),
        ("`2`", "`w>f`"),
        (f"`3` .. `{2 + c}`", f"`w>t0` .. `w>t{c - 1}`"),
        (f"`{3 + c}` .. `{2 + 2 * c}`", f"`t0>f` .. `t{c - 1}>f`"),
        (f"`{3 + 2 * c}` .. `{n - 1}`", f"{many}: `{3 + 2 * c} + (i*{c - 1} + j')*{m} + (N-1)`"),
    ]
    lines = ["| actions | moves |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)]
    return "\n".join(lines)


def observation_table(spec: VariantSpec) -> tuple[str, int, int]:
    """The observation's index ranges of ``spec`` at its newest version, with the size and
    the version."""
    env = FortyThievesEnv(spec.id)
    layout = env.unwrapped.layout
    version = env.observation_version

    def span(part: slice) -> str:
        return f"`{part.start}` .. `{part.stop - 1}`"

    rows = [(span(layout.tableau), f"the columns' face-up cards, {layout.column_slots} per column")]
    rows.append((span(layout.waste), "the waste, bottom to top"))
    if layout.stock_slots:
        rows.append((span(layout.known_stock), "the stock once a redeal has shown its order"))
    rows += [
        (span(layout.foundations), "foundation heights (0..13), two per suit C, D, H, S"),
        (span(layout.face_down), "face-down cards under each column"),
        (f"`{layout.stock}`", "cards in the stock"),
        (f"`{layout.redeals_left}`", "redeals left"),
    ]
    lines = ["| indices | meaning |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)]
    env.close()
    return "\n".join(lines), layout.size, version


def page(variant: str, root: Path = ROOT) -> str:
    """The Markdown page of ``variant``."""
    spec = VARIANTS[variant]
    rules = (root / "RULES.md").read_text(encoding="utf-8")
    header, row = rule_book_row(variant, rules)
    env = FortyThievesEnv(variant)
    n_actions = int(env.action_space.n)
    env.close()
    obs_table, size, version = observation_table(spec)
    the_id = env_id(variant)
    pysol = f" · PySolFC game {spec.pysol_id}" if spec.pysol_id is not None else ""
    solver = root / "results" / "solver" / f"{variant}.jsonl"
    winnability = markdown_table([solver]) if solver.is_file() else "_No solver results yet._"
    reports = [p for p in leaderboard.default_reports(root) if _report_variant(p) == variant]
    rows = leaderboard.rows_of(reports, root / "results" / "solver", root)
    curves = root / "results" / "training" / variant / "learning_curves.png"
    lines = [
        "<!-- Generated by benchmarks/variant_pages.py from the registry and the saved "
        "results: do not edit. -->",
        "",
        f"# {spec.name}",
        "",
        f'`gymnasium.make("{the_id}")` · {n_actions} actions · observation of {size} '
        f"numbers{pysol}",
        "",
        f'![{spec.name}: the first test deal]({variant}.png){{ width="560" }}',
        "",
        f'*The first test deal (`reset(seed={PICTURE_SEED:_})`) as `render_mode="rgb_array"` '
        "draws it: face-down cards as backs, the stock as a count.*",
        "",
        "## Rules",
        "",
        "The rule book's row ([the rule book](../rules.md) has the common rules):",
        "",
        header,
        "|" + "---|" * (header.count("|") - 1),
        row,
        "",
        *(f"- {note}" for note in rule_book_notes(spec, rules)),
        *([""] if rule_book_notes(spec, rules) else []),
        'Spelled out from its `VariantSpec` (`fortythieves_env.VARIANTS["' + variant + '"]`):',
        "",
        *(f"- {sentence}" for sentence in spelled_rules(spec)),
        "",
        "## Actions",
        "",
        f"`Discrete({n_actions})`, the formula of [the environment](../environment.md#actions) "
        f"with C = {spec.n_columns} columns and M = {spec.max_move}; `j' = j - (j > i)`:",
        "",
        actions_table(spec),
        "",
        "## Observation",
        "",
        f"`Box(0, high, ({size},), uint8)` in `{the_id}` (observation version {version}); "
        "card codes are `suit*13 + rank + 1`, 0 for no card:",
        "",
        obs_table,
        "",
        "## Winnability",
        "",
        "The clairvoyant solver on the first test deals (it sees every card; "
        "[solver and search](../solver.md)); one row per solver version and node budget:",
        "",
        winnability,
        "",
        "## Baselines",
        "",
        "Every saved report of this variant ([the protocol](../protocol.md) says how to add "
        "yours):",
        "",
        leaderboard.leaderboard_table(rows, variant_column=False),
        "",
    ]
    if curves.is_file():
        lines += [
            "The shipped PPO run's validation curves:",
            "",
            f"![{spec.name}: learning curves](../results/training/{variant}/learning_curves.png)",
            "",
        ]
    return "\n".join(lines)


def _report_variant(path: Path) -> str | None:
    try:
        return str(leaderboard.read_report(path)["variant"])
    except leaderboard.ReportError:
        return None


def write_picture(variant: str, folder: Path = PAGES) -> Path:
    """Draw the first test deal of ``variant`` to ``folder/<variant>.png``."""
    from PIL import Image

    from fortythieves_env.render import table_picture

    path = folder / f"{variant}.png"
    Image.fromarray(table_picture(variant, PICTURE_SEED, 0)).save(path, optimize=True)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    PAGES.mkdir(parents=True, exist_ok=True)
    stale = []
    for variant in VARIANTS:
        path = PAGES / f"{variant}.md"
        text = page(variant)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
            continue
        path.write_text(text, encoding="utf-8")
        write_picture(variant)
        print(f"written: {path} and {variant}.png")
    if stale:
        print("out of date (run python benchmarks/variant_pages.py):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
