"""The README's commands are the ones CI runs, and its tables match the code."""

from __future__ import annotations

import re
from pathlib import Path

from fortythieves_env import VARIANTS, FortyThievesEnv

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command() -> None:
    blocks = _bash_blocks(README)
    test_command = next(b for b in blocks if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()
    assert "pip install torch==2.13.0" in test_command  # the CPU build comes first


def test_quick_start_trains_a_real_variant() -> None:
    main = _bash_blocks(README)[0]
    config = re.search(r"fortythieves train (configs/\S+\.yaml)", main)
    assert config is not None and (ROOT / config.group(1)).is_file()


def test_variants_table_matches_the_specs() -> None:
    rows = [line.split("|")[1:-1] for line in README.splitlines() if line.startswith("| ")]
    # the variants table is the one with 11 columns (variant names head other tables too)
    table = {
        r[0].strip(): [c.strip() for c in r]
        for r in rows
        if len(r) == 11 and r[0].strip() in VARIANTS
    }
    assert list(table) == list(VARIANTS)
    for variant, row in table.items():
        spec = VARIANTS[variant]
        env = FortyThievesEnv(variant)
        assert row[2] == str(spec.n_columns)
        assert row[3] == f"{spec.cards_per_column} ({spec.face_down}+{spec.face_up})"
        assert row[4] == str(spec.stock_size)
        assert row[7] == f"{spec.deal_count} / {spec.redeals}"
        assert row[9] == str(env.action_space.n)
        assert row[10] == str(env.observation_space.shape[0])


def test_rule_book_copy_matches_the_shared_one() -> None:
    """RULES.md ships with the package; the team's shared copy, where present, is the source."""
    ours = (ROOT / "RULES.md").read_text(encoding="utf-8")
    assert "## Position and move notation" in ours
    shared = ROOT.parent / "shared" / "RULES.md"
    if shared.is_file():
        assert ours == shared.read_text(encoding="utf-8")
