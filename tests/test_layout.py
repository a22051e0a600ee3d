"""The repository's layout (issue 27 point 3): ``results/`` holds data only; the scripts
that made it are in ``scripts/`` under the same sub-folders."""

from __future__ import annotations

from helpers import ROOT


def test_results_hold_data_only_and_their_scripts_are_in_scripts() -> None:
    code = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "results").rglob("*")
        if p.suffix in {".py", ".sh"}
    )
    assert code == [], f"scripts under results/ (move them to scripts/): {code}"
    for script in ("solver/run_v3.sh", "search/run_eval.sh", "training/run_variant.sh"):
        assert (ROOT / "scripts" / script).is_file(), script
