"""scripts/search/fit_leaf_value.py (issue 40, point 3): the rows it gathers on training deals,
the fit, and the models' file it writes."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from fortythieves_agents.players.search_leaf import FEATURES, LeafModel
from helpers import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "search" / "fit_leaf_value.py"


def _script() -> ModuleType:
    return load_script(SCRIPT, "fit_leaf_value")


def test_the_fit_recovers_a_logistic_model_from_soft_labels() -> None:
    script = _script()
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(4000), rng.random((4000, len(FEATURES) - 1))])
    true = np.linspace(-1.0, 1.0, len(FEATURES))
    y = 1.0 / (1.0 + np.exp(-(x @ true)))  # soft labels: the probabilities themselves
    assert script.fit(x, y, l2=0.0) == pytest.approx(true, abs=1e-6)


def test_the_script_writes_rows_and_the_variants_model(tmp_path: Path) -> None:
    script = _script()
    shipped = tmp_path / "leaf_values.json"
    shipped.write_text(json.dumps({"about": "x", "variants": {"Maria": {"weights": [0]}}}))
    argv = ["Indian", "--deals", "1", "--moves", "41", "--every", "20", "--samples", "1"]
    argv += ["--children", "2", "--out", str(tmp_path), "--shipped", str(shipped)]
    assert script.main(argv) == 0
    report = json.loads((tmp_path / "Indian.json").read_text())
    assert report["figures"]["rows"] == len(report["rows"]) >= 1
    assert report["figures"]["held_out_learned"] is None  # one deal: none held out
    for row in report["rows"]:
        assert row["deal"] == 500_000_000 and row["move"] in (0, 20, 40)
        assert row["deep"][0] in ("won", "lost", "unknown") and 0.0 <= row["label"] <= 1.0
        assert len(row["features"]) == len(FEATURES) and row["features"][0] == 1.0
    table = json.loads(shipped.read_text())["variants"]
    assert sorted(table) == ["Indian", "Maria"]  # the other entry kept
    model = LeafModel("Indian", np.array(table["Indian"]["weights"]))
    assert table["Indian"]["command"].startswith("python scripts/search/fit_leaf_value.py Indian")
    assert np.all(np.isfinite(model.weights))


def test_a_deal_outside_the_training_range_is_refused(tmp_path: Path) -> None:
    script = _script()
    with pytest.raises(SystemExit, match="is not a training deal"):
        script.main(["Indian", "--first-deal", "2000000000", "--out", str(tmp_path)])
