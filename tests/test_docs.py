"""The documentation site (``docs/``, ``mkdocs.yml``): it builds with warnings as errors, its
pages render in a headless browser, and its generated pages and tables say what they should
(that each is current: ``tests/agents/reports/test_generated.py``).

``tests/test_readme.py`` runs the pages' code blocks and checks the tables moved there from
the README. With ``DOCS_SCREENSHOTS=DIR`` the browser test keeps its screenshots in DIR, for
a person to look at.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import Config
from fortythieves_agents.evaluation.leaderboard import ReportError, leaderboard_table
from fortythieves_agents.reports import pages, summary
from helpers import ROOT

from fortythieves_env import VARIANTS
from fortythieves_env.envs.render import frame_size

DOCS = ROOT / "docs"


def _keys(model: type, prefix: str = "") -> list[str]:
    """Every leaf key of a pydantic config model, dotted."""
    out = []
    for name, field in model.model_fields.items():  # type: ignore[attr-defined]
        sub = field.annotation
        if isinstance(sub, type) and hasattr(sub, "model_fields"):
            out += _keys(sub, f"{prefix}{name}.")
        else:
            out.append(f"{prefix}{name}")
    return out


# ------------------------------------------------------------------------ the built site
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built by ``mkdocs build --strict`` (every warning an error)."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("material", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-4000:]}"
    return out


def test_the_site_builds_with_warnings_as_errors(site: Path) -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "strict: true" in config
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    for name in pages:  # every page is built (mkdocs warns, so fails, on one left out of nav)
        folder = name.removesuffix(".md").removesuffix("index").strip("/")
        assert (site / folder / "index.html").is_file(), name
    # the learning curves are served at their repository paths (scripts/mkdocs_hooks.py)
    for variant in VARIANTS:
        assert (site / "results" / "training" / variant / "learning_curves.png").is_file()


def test_the_docs_say_which_versions_are_pinned_and_why() -> None:
    """issue 37 point 12: Material prints its end-of-life notice on every build (Zensical
    succeeds it; MkDocs 2 cannot build it); the docs extra pins the versions that build the
    site, and the site says which and why."""
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    docs = re.search(r"^docs = \[(.*)\]$", project, flags=re.M)
    assert docs is not None
    assert '"mkdocs>=1.6,<2"' in docs.group(1) and '"mkdocs-material>=9.5,<10"' in docs.group(1)
    about = (DOCS / "index.md").read_text(encoding="utf-8").split("## About this site", 1)[1]
    assert "**Pinned versions.**" in about
    for text in ("`mkdocs>=1.6,<2`", "`mkdocs-material>=9.5,<10`", "5 May 2027", "Zensical"):
        assert text in about, text


def test_api_reference_is_built_from_the_docstrings(site: Path) -> None:
    html = (site / "api" / "env" / "index.html").read_text(encoding="utf-8")
    assert 'id="fortythieves_env.envs.env.FortyThievesEnv"' in html
    assert "Action Space" in html  # a heading of FortyThievesEnv's docstring
    html = (site / "api" / "agents" / "index.html").read_text(encoding="utf-8")
    assert 'id="fortythieves_agents.players.baselines.BatchAgent"' in html


def test_every_config_key_is_on_the_training_page(site: Path) -> None:
    """The training page includes ``configs/README.md``'s table of every key, which
    ``tests/agents/test_config.py`` keeps equal to the pydantic models and defaults.yaml."""
    html = (site / "training" / "index.html").read_text(encoding="utf-8")
    for key in _keys(Config):
        assert f"<code>{key}</code>" in html, key


def test_the_rule_book_and_changelog_pages_include_their_files(site: Path) -> None:
    html = (site / "rules" / "index.html").read_text(encoding="utf-8")
    assert "Position and move notation" in html
    html = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    first = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
    assert first in html


# ------------------------------------------------------------------ headless Chromium
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if found := shutil.which(name):
            return found
    return None


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site served over HTTP on a free local port (as ``mkdocs serve`` would)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _browser(chromium: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",  # as root (CI runs as root)
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--virtual-time-budget=3000",
            "--window-size=1280,1000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


PAGES_TO_OPEN = [
    ("", "fortythieves", "Results at a glance"),
    ("variants/Streets/", "Streets - fortythieves", "Winnability"),
    ("api/env/", "fortythieves_env - fortythieves", "FortyThievesEnv"),
    ("protocol/", "Benchmark protocol - fortythieves", "Adding your agent"),
]


@pytest.mark.parametrize(("path", "title", "text"), PAGES_TO_OPEN)
def test_pages_render_in_headless_chromium(
    served: str, path: str, title: str, text: str, tmp_path: Path
) -> None:
    """Each page loads with its title, the site's navigation and its own content, its
    pictures are served, and its screenshot is not blank."""
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    from PIL import Image

    url = f"{served}/{path}"
    dom = _browser(chromium, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert f"<title>{title}</title>" in html
    assert 'class="md-nav' in html  # the navigation, with the site's sections
    assert re.search(r">\s*Benchmark protocol\s*<", html) and re.search(
        r">\s*API reference\s*<", html
    )
    assert text in html
    for src in re.findall(r'<img [^>]*src="([^"]+)"', html):  # every picture is there
        with urllib.request.urlopen(urllib.request.urljoin(url, src)) as answer:
            assert answer.status == 200 and answer.read(8) == b"\x89PNG\r\n\x1a\n", src
    folder = Path(os.environ.get("DOCS_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / f"{path.strip('/').replace('/', '-') or 'home'}.png"
    done = _browser(chromium, f"--screenshot={shot}", url)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 1000)
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50  # text, the header's colour, pictures: not a blank page
    white = max((count for count, rgb in colours if rgb == (255, 255, 255)), default=0)
    assert white < 0.97 * image.size[0] * image.size[1]


_MEASURE = """<script>
addEventListener("load", () => {
  const found = [];
  for (const el of document.querySelectorAll(".md-content .md-typeset__scrollwrap, .md-content pre > code")) {
    const code = el.tagName === "CODE";
    const head = code ? el.textContent : el.querySelector("tr").textContent;
    found.push({kind: code ? "code" : "table", head: head.replace(/\\s+/g, " ").trim().slice(0, 60),
                cut: el.scrollWidth > el.clientWidth + 1});
  }
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""
"""Lists every table (its scrolling wrapper) and code block of a page's content, with its
first words and whether its content runs past its right edge (cut off on the screen)."""


def _measured(chromium: str, site: Path, served: str, page: str) -> list[dict[str, object]]:
    """The tables and code blocks of ``page`` as laid out at the test window's width."""
    import html

    original = site / page / "index.html"
    probe = original.with_name("measure.html")  # beside it: the same relative links
    probe.write_text(original.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"))
    dom = _browser(chromium, "--dump-dom", f"{served}/{page}/measure.html")
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom.stdout, flags=re.S)
    assert found is not None, dom.stdout[-2000:]
    return list(json.loads(html.unescape(found.group(1))))


@pytest.mark.parametrize(
    ("page", "kinds", "which"),
    [
        ("getting-started", {"code", "table"}, None),  # every command block, every table
        ("variants", {"table"}, None),
        ("variants/Streets", {"table"}, 0),  # the rule book's row
        ("variants/Lucas", {"table"}, 0),
        ("results", {"table"}, 1),  # the reproducibility table
    ],
)
def test_pages_show_their_tables_and_commands_whole(
    site: Path, served: str, page: str, kinds: set[str], which: int | None
) -> None:
    """issue 37 point 12: at 1280 pixels the variants table (its "start" column), the
    rule book's row on a variant page, the results page's reproducibility table and the
    quick start's one-line commands ran past the right edge of the page and were cut."""
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    found = [item for item in _measured(chromium, site, served, page) if item["kind"] in kinds]
    if which is not None:
        found = found[which : which + 1]
    assert found, f"{page}: nothing to measure"
    assert [item["head"] for item in found if item["cut"]] == []
    if page == "results":
        assert str(found[0]["head"]).startswith("agent run 1: own")  # the one meant


# ---------------------------------------------------------------- generated pages and tables
def test_every_variant_has_its_page_and_picture() -> None:
    """``docs/variants/<id>.md`` and its picture, one per registered variant, the picture the
    size the environment draws."""
    from PIL import Image

    for variant in VARIANTS:
        assert (DOCS / "variants" / f"{variant}.md").is_file(), variant
        with Image.open(DOCS / "variants" / f"{variant}.png") as picture:
            assert picture.size[::-1] == frame_size(variant)


def test_variant_page_spells_out_each_rule_of_the_spec() -> None:
    lucas = pages.page("Lucas", ROOT)
    assert "The 8 Aces start on the foundations" in lucas
    assert "57 of the 96 cards form the stock" in lucas
    little = pages.page("LittleForty", ROOT)
    assert "A `draw` deals 3 cards" in little and "3 redeals" in little
    assert "`23` .. `1192`" in little  # 3 + 2*10 .. 3 + 2*10 + 10*9*13 - 1
    assert "Little Forty deals three cards at a time" in little  # the rule book's note
    streets = pages.page("Streets", ROOT)
    assert "of the other colour" in streets and "One card moves at a time" in streets


def test_variant_pages_write_out_an_empty_start() -> None:
    """issue 37 point 12: the rule book leaves "start" empty for the variants whose
    foundations start empty, which read on their pages as a missing value."""
    streets = pages.page("Streets", ROOT)
    rules = streets.split("## Rules", 1)[1].split("## Actions", 1)[0]
    assert "| start | - (the foundations start empty; all 104 cards are dealt) |" in rules
    assert not re.search(r"\|\s*\|\s*$", rules, flags=re.M)  # no empty cell
    assert "| start | the 8 Aces start on the foundations |" in pages.page("Lucas", ROOT)


def test_summary_table_has_every_agent_and_the_ceiling() -> None:
    table = summary.summary_table(ROOT / "results")
    assert table.splitlines()[0] == (
        "| variant | random (500 deals) | greedy (500) | PPO (500) | later network (500) "
        "| family, fine-tuned (500) | search (200) | solver ceiling (200) |"
    )
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split("|")[1].strip() for r in rows[1:]] == list(VARIANTS)
    lucas = next(r for r in rows if r.startswith("| Lucas |"))
    assert lucas.endswith("| 100.0%..100.0% |")  # all of the first 200 deals proved winnable
    # the search column: the default budget's report where one is saved, else marked
    for row in rows[1:]:
        variant = row.split("|")[1].strip()
        saved = [
            json.loads(p.read_text(encoding="utf-8"))["results"]["search"].get("settings", {})
            for p in (ROOT / "results" / "search").glob(f"{variant}-*.json")
        ]
        has_default = any(summary.is_default_search(s) for s in saved)
        assert ("16 samples of rollouts" in row) is not has_default, row
    assert summary.is_default_search(
        {"method": "solve", "budget_seconds_per_move": 0.1, "nodes_per_sample": 1000,
         "allocation": "halving"}
    )  # fmt: skip


def test_the_fine_tuned_networks_column_and_rows_are_their_final_evaluations() -> None:
    """The README's "family, fine-tuned" column is each variant's fine-tuned run's final
    evaluation (``-`` without one) and the leaderboard names that run as such, never as
    the shipped config's PPO."""
    from fortythieves_agents.evaluation.leaderboard import agent_label

    table = summary.summary_table(ROOT / "results")
    rows = {r.split("|")[1].strip(): r.split("|") for r in table.splitlines() if r[:2] == "| "}
    shipped = 0
    for variant in VARIANTS:
        path = summary.finetuned_evaluation(ROOT / "results", variant)
        cell = rows[variant][6].strip()
        if not path.is_file():
            assert cell == "-", variant
            continue
        shipped += 1
        ppo = json.loads(path.read_text(encoding="utf-8"))["results"]["ppo"]
        assert cell == f"{100 * ppo['win_rate']:.1f}% ({ppo['mean_foundation_cards']:.1f})"
        assert path in summary.default_reports(ROOT)
        assert agent_label("ppo", ppo, path, saved=True) == "PPO fine-tuned from the family network"
        user = agent_label("ppo", ppo, path)  # a user's file of that name
        assert user != "PPO fine-tuned from the family network"
    assert shipped >= 1  # Number Ten's, at least
    shipped_ppo = ROOT / "results/training/NumberTen/final_evaluation.json"
    assert agent_label("ppo", {}, shipped_ppo, saved=True) == "PPO (shipped config)"
    assert agent_label("ppo", {}, shipped_ppo) == "ppo"  # a user's file of that name
    assert "PPO fine-tuned from the family network" in summary.leaderboard(ROOT)


def test_leaderboard_refuses_a_file_that_is_not_a_report(tmp_path: Path) -> None:
    from fortythieves_agents.reports.__main__ import main as reports_main

    bad = tmp_path / "bad.json"
    bad.write_text('{"variant": "Lucas"}', encoding="utf-8")
    with pytest.raises(ReportError, match=r"bad\.json: not an evaluation report"):
        summary.checkout_rows(ROOT, [bad])
    argv = ["--root", str(ROOT), "--print", "leaderboard", "--reports", str(bad)]
    assert reports_main(argv) == 2


def test_report_example_is_what_evaluate_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``docs/report-example.json`` (shown on the protocol page) is what the command shown
    above it writes, its wall time aside."""
    protocol = (DOCS / "protocol.md").read_text(encoding="utf-8")
    command = re.search(r"fortythieves (evaluate greedy [^\n`]*report-example\.json)", protocol)
    assert command is not None
    argv = command.group(1).split()
    argv[argv.index("--json") + 1] = str(tmp_path / "report.json")
    monkeypatch.chdir(ROOT)  # the solver's labels, results/solver/, as in a clone
    assert main([*argv, "--no-progress"]) == 0
    made = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    saved = json.loads((DOCS / "report-example.json").read_text(encoding="utf-8"))
    made.pop("timing"), saved.pop("timing")
    assert made == saved, "run the command on the protocol page again to refresh the example"
    assert "solver_ceiling" in saved["results"]["greedy"]  # the normalized score is shown


def test_the_protocol_example_agent_gets_a_leaderboard_row(tmp_path: Path) -> None:
    """The protocol page's own agent plays, saves its report, and the checkout's leaderboard
    gives it a row with the normalized score beside the saved ones."""
    protocol = (DOCS / "protocol.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", protocol, flags=re.S)
    assert len(blocks) == 1 and "class FoundationFirst" in blocks[0]
    (tmp_path / "results").symlink_to(ROOT / "results", target_is_directory=True)
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert "'proved_won': 20" in done.stdout  # the first 20 Lucas deals are proved winnable
    report = tmp_path / "Lucas-foundation-first.json"
    rows = summary.checkout_rows(ROOT, [*summary.default_reports(ROOT), report])
    mine = [r for r in rows if r.agent == "foundation-first"]
    assert len(mine) == 1 and mine[0].deals == 20 and mine[0].ceiling is not None
    assert mine[0].ceiling["proved_won"] == 20
    table = leaderboard_table(rows)
    assert "| Lucas | foundation-first | 20 |" in table
    assert "`Lucas-foundation-first.json`" in table


def test_serve_script_serves_the_site_strictly() -> None:
    script = (ROOT / "scripts" / "serve_docs.sh").read_text(encoding="utf-8")
    assert "serve --strict" in script
    assert os.access(ROOT / "scripts" / "serve_docs.sh", os.X_OK)
