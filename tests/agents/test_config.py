"""Layered configs: every shipped file loads, layering and ``--set`` work, errors are clear."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import Config, ConfigError, ConfigLoader, dump_config, load_config
from helpers import CONFIGS, ROOT

VARIANT_FILES = sorted(
    p for p in CONFIGS.glob("*.yaml") if p.name not in ("defaults.yaml", "family.yaml")
)
"""The variants' configs (family.yaml, the family's: tests/agents/family/test_family_train.py)."""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def base_dir(tmp_path: Path) -> Path:
    """A folder holding a copy of the shipped defaults, for custom variant files."""
    write(tmp_path / "defaults.yaml", (CONFIGS / "defaults.yaml").read_text(encoding="utf-8"))
    return tmp_path


def test_one_config_per_registered_variant() -> None:
    import fortythieves_env

    named = {load_config(p).env.variant for p in VARIANT_FILES}
    assert named == set(fortythieves_env.VARIANTS)
    assert len(VARIANT_FILES) == len(fortythieves_env.VARIANTS)


@pytest.mark.parametrize("path", VARIANT_FILES, ids=lambda p: p.stem)
def test_variant_file_loads_and_names_its_variant(path: Path) -> None:
    config = load_config(path)
    assert isinstance(config, Config)
    assert config.env.variant.lower() == path.stem
    # a full run of the shipped recipe (docs/results.md); the quick start sets a smaller budget
    assert config.train.total_timesteps >= 500_000
    assert config.policy.network == "player" and config.train.teacher == "greedy"
    assert config.train.no_cycling and config.train.vec_env == "batched"
    assert config.eval.final_episodes == 500


EXPERT_FILES = sorted((CONFIGS / "expert").glob("*.yaml"))


@pytest.mark.parametrize("path", EXPERT_FILES, ids=lambda p: p.stem)
def test_expert_file_loads_and_starts_from_its_variants_model(path: Path) -> None:
    """Each shipped expert-iteration recipe (configs/expert/) validates, runs iterations of
    the improve targets, and its start model (relative to the checkout's root, where its
    comment says to run it) is a shipped model of its own variant."""
    from fortythieves_agents.networks.model_zip import model_variant

    config = load_config(path)
    assert path.stem.split("-")[0] == config.env.variant.lower()
    assert config.expert.iterations > 0 and config.expert.targets == "improve"
    if config.expert.start_model is not None:
        start = ROOT / config.expert.start_model
        assert model_variant(start) == config.env.variant
        assert config.train.teacher is None


def test_yaml_exponent_without_dot_is_a_number() -> None:
    assert yaml.load("a: 1e6\nb: 3e-4\nc: 1_000.5\nd: 12\ne: .5", Loader=ConfigLoader) == {
        "a": 1e6,
        "b": 3e-4,
        "c": 1000.5,
        "d": 12,
        "e": 0.5,
    }
    assert yaml.safe_load("a: 1e6") == {"a": "1e6"}  # the trap the loader avoids


def test_integral_float_accepted_for_int_fields(base_dir: Path) -> None:
    path = write(
        base_dir / "v.yaml",
        "base: defaults.yaml\ntrain:\n  total_timesteps: 1e6\nppo:\n  learning_rate: 1e-4\n",
    )
    config = load_config(path)
    assert config.train.total_timesteps == 1_000_000
    assert isinstance(config.train.total_timesteps, int)
    assert config.ppo.learning_rate == pytest.approx(1e-4)


def test_fractional_float_refused_for_int_field(base_dir: Path) -> None:
    path = write(base_dir / "v.yaml", "base: defaults.yaml\ntrain:\n  n_envs: 2.5\n")
    with pytest.raises(ConfigError, match=r"v\.yaml: train\.n_envs: .*integer"):
        load_config(path)


def test_layering_defaults_variant_then_set() -> None:
    default = load_config(CONFIGS / "defaults.yaml")
    maria = load_config(CONFIGS / "maria.yaml")
    assert default.env.variant == "Streets"
    assert maria.env.variant == "Maria"
    assert maria.ppo == default.ppo  # inherited untouched
    over = load_config(
        CONFIGS / "maria.yaml",
        [
            "train.total_timesteps=2e6",
            "ppo.learning_rate=1e-3",
            "policy.net_arch_pi=[32, 16]",
            "env.max_episode_steps=300",
            "train.vec_env=subproc",
            "train.no_cycling=false",
        ],
    )
    assert over.train.total_timesteps == 2_000_000
    assert over.ppo.learning_rate == pytest.approx(1e-3)
    assert over.policy.net_arch_pi == [32, 16]
    assert over.policy.net_arch_vf == default.policy.net_arch_vf
    assert over.env.max_episode_steps == 300
    assert over.env.variant == "Maria"
    assert over.train.vec_env == "subproc"


def test_later_set_wins() -> None:
    config = load_config(CONFIGS / "streets.yaml", ["seed=1", "seed=7"])
    assert config.seed == 7


def test_base_chain(base_dir: Path) -> None:
    write(base_dir / "mid.yaml", "base: defaults.yaml\nenv:\n  variant: Maria\nseed: 5\n")
    top = write(base_dir / "top.yaml", "base: mid.yaml\nseed: 9\n")
    config = load_config(top)
    assert (config.env.variant, config.seed) == ("Maria", 9)


def test_unknown_key_names_file_and_key(base_dir: Path) -> None:
    path = write(base_dir / "typo.yaml", "base: defaults.yaml\nppo:\n  learning_rat: 0.1\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert "typo.yaml" in message
    assert "ppo.learning_rat" in message
    assert "unknown key" in message
    assert "learning_rate" in message  # the allowed keys are listed


def test_unknown_top_level_key(base_dir: Path) -> None:
    path = write(base_dir / "top.yaml", "base: defaults.yaml\ntrainn:\n  n_envs: 2\n")
    with pytest.raises(ConfigError, match=r"top\.yaml: trainn: unknown key"):
        load_config(path)


def test_wrong_type_names_file_key_and_expectation(base_dir: Path) -> None:
    path = write(base_dir / "bad.yaml", "base: defaults.yaml\nppo:\n  n_steps: lots\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert "bad.yaml" in message
    assert "ppo.n_steps" in message
    assert "valid integer" in message
    assert "'lots'" in message


def test_wrong_choice(base_dir: Path) -> None:
    path = write(base_dir / "bad.yaml", "base: defaults.yaml\ntrain:\n  vec_env: threads\n")
    with pytest.raises(
        ConfigError, match=r"bad\.yaml: train\.vec_env: .*'dummy', 'subproc' or 'batched'"
    ):
        load_config(path)


def test_unknown_variant(base_dir: Path) -> None:
    path = write(base_dir / "bad.yaml", "base: defaults.yaml\nenv:\n  variant: Klondike\n")
    with pytest.raises(
        ConfigError, match=r"bad\.yaml: env\.variant: unknown variant 'Klondike'.*Streets"
    ):
        load_config(path)


def test_error_in_set_names_the_override() -> None:
    with pytest.raises(
        ConfigError, match=r"--set ppo\.gamma=2: ppo\.gamma: .*less than or equal to 1"
    ):
        load_config(CONFIGS / "streets.yaml", ["ppo.gamma=2"])
    with pytest.raises(ConfigError, match=r"--set ppo\.nope=1: ppo\.nope: unknown key"):
        load_config(CONFIGS / "streets.yaml", ["ppo.nope=1"])
    with pytest.raises(ConfigError, match=r"expected KEY\.SUB=VALUE"):
        load_config(CONFIGS / "streets.yaml", ["ppo.gamma"])


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match=r"nope\.yaml: config file not found"):
        load_config(CONFIGS / "nope.yaml")


def test_a_readme_config_path_outside_a_checkout_names_the_shipped_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 37 point 10: ``train configs/lucas.yaml`` where there is no ``configs/`` folder
    (outside a checkout) listed ``lucas`` among the shipped configs without suggesting it;
    now it says which command uses it. Other paths still get the list."""
    monkeypatch.chdir(tmp_path)
    assert main(["train", "configs/lucas.yaml"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "fortythieves train: error: configs/lucas.yaml: config file not found; did you mean "
        "the shipped config `lucas` (`fortythieves train lucas`)?\n"
    )
    for other in ("configs/nope.yaml", "configs/expert/lucas.yaml", "elsewhere/lucas.yaml"):
        with pytest.raises(ConfigError) as refused:
            load_config(other)
        assert str(refused.value).startswith(
            f"{other}: config file not found (nor a shipped config: defaults, family, fortythieves"
        )


def test_install_hints_name_the_checkout_or_the_published_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """issue 37 point 10: a wheel user was told to ``pip install -e '.[plots]'`` "in the
    checkout" they do not have; the hint is the checkout's form only in a checkout."""
    from fortythieves_agents import config as config_module

    assert config_module.checkout_root() == ROOT  # the tests run from this checkout
    assert config_module.install_hint("plots") == f"pip install -e '.[plots]' in {ROOT}"
    monkeypatch.setattr(config_module, "checkout_root", lambda: None)
    assert config_module.install_hint("plots") == "pip install 'fortythieves[plots]'"
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project]", 1)[1]
    name = re.search(r'^name = "([^"]+)"', project, flags=re.M)
    assert name is not None and name.group(1) == config_module.DISTRIBUTION


def test_missing_base_names_the_naming_file(tmp_path: Path) -> None:
    path = write(tmp_path / "v.yaml", "base: gone.yaml\n")
    with pytest.raises(
        ConfigError, match=r"gone\.yaml: config file not found \(named as base by .*v\.yaml\)"
    ):
        load_config(path)


def test_base_cycle(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "base: b.yaml\n")
    write(tmp_path / "b.yaml", "base: a.yaml\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_config(tmp_path / "a.yaml")


def test_missing_key_without_base(tmp_path: Path) -> None:
    path = write(tmp_path / "alone.yaml", "env:\n  variant: Streets\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert "ppo: required key missing" in message
    assert "alone.yaml" in message


def test_a_section_check_names_every_source_of_the_section_in_order() -> None:
    # train.no_cycling (true in defaults.yaml) needs the batched env: the --set that
    # broke it is named, after the file that opened the section, not hidden behind it
    defaults = str(CONFIGS / "defaults.yaml")
    with pytest.raises(ConfigError) as info:
        load_config(CONFIGS / "streets.yaml", ["train.vec_env=dummy"])
    assert str(info.value) == (
        f"invalid configuration: {defaults}, --set train.vec_env=dummy: train: "
        "train.no_cycling needs train.vec_env: batched (got 'dummy')"
    )
    # a check of the whole config names the files and --set arguments that set anything
    with pytest.raises(ConfigError) as info:
        load_config(CONFIGS / "streets.yaml", ["ppo.batch_size=4096"])
    head = str(info.value).split(": (top level)")[0]
    assert head == (
        f"invalid configuration: {defaults}, {CONFIGS / 'streets.yaml'}, --set ppo.batch_size=4096"
    )
    # a section set by one source only still names that source alone
    with pytest.raises(ConfigError, match=r"^invalid configuration: --set ppo\.gamma=2: "):
        load_config(CONFIGS / "streets.yaml", ["ppo.gamma=2"])


def test_batch_larger_than_rollout() -> None:
    with pytest.raises(ConfigError, match=r"ppo\.batch_size \(4096\) is larger than a rollout"):
        load_config(CONFIGS / "streets.yaml", ["ppo.batch_size=4096"])


def test_invalid_yaml(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.yaml", "env: [unclosed\n")
    with pytest.raises(ConfigError, match=r"broken\.yaml: invalid YAML"):
        load_config(path)


def test_dump_round_trip(tmp_path: Path) -> None:
    config = load_config(CONFIGS / "lucas.yaml", ["train.total_timesteps=1e6"])
    path = write(tmp_path / "resolved.yaml", dump_config(config))
    assert load_config(path) == config


def test_cli_config_error_exit_code_2_without_traceback(
    base_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(base_dir / "typo.yaml", "base: defaults.yaml\nppo:\n  learning_rat: 0.1\n")
    assert main(["train", str(path)]) == 2
    err = capsys.readouterr().err
    assert "typo.yaml: ppo.learning_rat: unknown key" in err
    assert "Traceback" not in err
    assert main(["train", str(base_dir / "missing.yaml")]) == 2
    assert "missing.yaml: config file not found" in capsys.readouterr().err


def _keys(model: type, prefix: str = "") -> list[str]:
    from pydantic import BaseModel

    out = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out.extend(_keys(annotation, f"{prefix}{name}."))
        else:
            out.append(f"{prefix}{name}")
    return out


def test_every_key_documented_and_in_defaults() -> None:
    """Every config key is in configs/README.md's table and in defaults.yaml, and the table's
    default column says what defaults.yaml holds (read as YAML), so the two cannot drift."""
    readme = (CONFIGS / "README.md").read_text(encoding="utf-8")
    defaults = yaml.load((CONFIGS / "defaults.yaml").read_text(), Loader=ConfigLoader)
    documented = {
        m.group(1): m.group(2).strip()
        for m in re.finditer(r"^\| `([a-z_.]+)` \| ([^|]*) \|", readme, flags=re.MULTILINE)
    }
    for key in _keys(Config):
        assert key in documented, f"{key} not in configs/README.md's table"
        node = defaults
        for part in key.split("."):
            assert part in node, f"{key} missing from defaults.yaml"
            node = node[part]
        if key == "env.variant":
            assert documented[key] == "per file"
            continue
        assert yaml.safe_load(documented[key]) == node, (
            f"configs/README.md says {key} defaults to {documented[key]!r}; "
            f"defaults.yaml has {node!r}"
        )


# ------------------------------------------------------------------ custom variants

WIDE = """base: defaults.yaml
env:
  variant: Wide
  custom_variant:
    id: Wide
    name: Wide Forty
    n_columns: 12
    face_down: 1
    face_up: 3
    build: alternate_colour
    sequence_moves: true
    redeals: 1
"""


def test_custom_variant_in_a_config(base_dir: Path, tmp_path: Path) -> None:
    from fortythieves_env import VariantSpec

    config = load_config(write(base_dir / "wide.yaml", WIDE), ["env.custom_variant.redeals=2"])
    spec = config.env.variant_spec()
    assert spec == VariantSpec("Wide", "Wide Forty", 12, 1, 3, "alternate_colour", True, redeals=2)
    assert config.env.custom_variant == {
        "id": "Wide", "name": "Wide Forty", "n_columns": 12, "face_down": 1, "face_up": 3,
        "build": "alternate_colour", "sequence_moves": True, "deal_count": 1, "redeals": 2,
        "aces_on_foundations": False, "max_episode_steps": 1000, "pysol_id": None,
    }  # fmt: skip
    saved = write(tmp_path / "config.yaml", dump_config(config))  # as a run folder keeps it
    assert load_config(saved) == config
    assert load_config(CONFIGS / "streets.yaml").env.variant_spec() is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("  variant: Wide\n", "  variant: Streets\n"),
         r"env\.variant: 'Streets' is not the custom variant's id 'Wide'.*must be Wide"),
        (("    redeals: 1\n", "    redeals: 1\n    n_colums: 9\n"),
         r"env\.custom_variant: unknown VariantSpec field\(s\) n_colums \(fields: id, name, "),
        (("    face_up: 3\n", ""), r"env\.custom_variant: missing VariantSpec field\(s\) face_up"),
        (("    face_up: 3\n", "    face_up: 0\n"),
         r"env\.custom_variant: variant Wide: need face_up >= 1, got 0"),
        (("    build: alternate_colour\n", "    build: same_colour\n"),
         r"env\.custom_variant: variant Wide: unknown build rule 'same_colour'"),
        (("    n_columns: 12\n", "    n_columns: 30\n"),
         r"env\.custom_variant: variant Wide: the tableau takes 120 cards"),
        (("id: Wide\n", "id: Maria\n"),
         r"env\.custom_variant: id 'Maria' is a built-in variant; give the custom variant"),
    ],
)  # fmt: skip
def test_bad_custom_variant_names_the_field(
    base_dir: Path, edit: tuple[str, str], message: str
) -> None:
    path = write(base_dir / "wide.yaml", WIDE.replace(*edit))
    with pytest.raises(ConfigError, match=r"wide\.yaml: " + message):
        load_config(path)


def test_custom_variant_must_be_a_mapping(base_dir: Path) -> None:
    path = write(base_dir / "w.yaml", "base: defaults.yaml\nenv:\n  custom_variant: Wide\n")
    with pytest.raises(
        ConfigError, match=r"w\.yaml: env\.custom_variant: Input should be a valid dictionary"
    ):
        load_config(path)


@pytest.mark.parametrize(
    "override",
    [
        "env.reward_per_card=.nan",
        "env.win_bonus=.inf",
        "env.illegal_action_penalty=.inf",
        "ppo.learning_rate=.inf",
        "ppo.max_grad_norm=.nan",
    ],
)
def test_nan_and_infinite_numbers_are_refused(override: str) -> None:
    """A NaN or infinite reward or hyperparameter would poison training silently."""
    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=rf"{key}: Input should be a finite number"):
        load_config(CONFIGS / "streets.yaml", [override])


@pytest.mark.parametrize(
    "override",
    [
        "seed=true",
        "train.total_timesteps=true",
        "train.n_envs=false",
        "ppo.n_epochs=true",
        "env.reward_per_card=true",
        "policy.net_arch_pi=[64, true]",
        "train.shaping={face_down: true}",
    ],
)
def test_a_boolean_is_refused_where_a_number_is_expected(override: str) -> None:
    """YAML's true/false would otherwise be read as 1/0 by pydantic."""
    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=rf"{re.escape(key)}.*expected a number, got a boolean"):
        load_config(CONFIGS / "streets.yaml", [override])


def test_booleans_still_set_the_switches() -> None:
    config = load_config(
        CONFIGS / "streets.yaml", ["train.progress_bar=false", "train.no_cycling=false"]
    )
    assert config.train.progress_bar is False and config.train.no_cycling is False


@pytest.mark.parametrize("device", ["gpu9", "", "cpu:x"])
def test_a_device_torch_cannot_name_is_refused_before_training(device: str) -> None:
    with pytest.raises(ConfigError, match=r"train\.device: not a torch device"):
        load_config(CONFIGS / "streets.yaml", [f"train.device={device!r}"])
    assert load_config(CONFIGS / "streets.yaml", ["train.device=cuda:1"]).train.device == "cuda:1"


# ------------------------------------------------------------------ issue 23: refused at load


def _train_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> str:
    """Run ``fortythieves train *argv`` in an empty folder; check exit 2, nothing written
    and one line on stderr; return that line."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["train", *argv]) == 2
    assert list(work.iterdir()) == []  # no run folder
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    return err.rstrip("\n")


def test_a_key_given_twice_is_refused_naming_it_its_file_and_both_lines(
    base_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23.10 (yaml/pyyaml#165): PyYAML keeps the last of two equal keys, so a config
    with two ``ppo:`` blocks trained without the first. Every YAML the package reads
    (config files, ``--set`` values, ``--grid`` lists) refuses a repeated key."""
    from fortythieves_agents.config import parse_override
    from fortythieves_agents.training.sweep import parse_grid

    text = "base: defaults.yaml\nppo:\n  n_epochs: 2\neval:\n  eval_freq: 0\nppo:\n  gamma: 0.9\n"
    path = write(base_dir / "twice.yaml", text)
    message = (
        f"{path}: invalid YAML: line 6, column 1: key 'ppo' is given twice in one mapping, at "
        "lines 2 and 6: YAML would keep only the last and drop the first silently"
    )
    with pytest.raises(ConfigError) as error:  # first, so that no training starts without it
        load_config(path)
    assert str(error.value) == message
    assert _train_refused(tmp_path, monkeypatch, capsys, str(path)) == (
        f"fortythieves train: error: {message}"
    )
    nested = write(
        base_dir / "nested.yaml", "base: defaults.yaml\nppo:\n  gamma: 0.9\n  gamma: 0.8\n"
    )
    with pytest.raises(
        ConfigError, match=r"line 4, column 3: key 'gamma' is given twice .* at lines 3 and 4:"
    ):
        load_config(nested)
    with pytest.raises(ConfigError) as set_error:
        parse_override("ppo={gamma: 0.9, gamma: 0.8}")
    assert str(set_error.value) == (
        "--set ppo={gamma: 0.9, gamma: 0.8}: the value is not valid YAML (key 'gamma' is given "
        "twice in one mapping, at line 1, columns 2 and 14: YAML would keep only the last and "
        "drop the first silently)"
    )
    with pytest.raises(ConfigError) as grid_error:
        parse_grid(["ppo=[{n_epochs: 1, n_epochs: 2}]"])
    assert str(grid_error.value) == (
        "--grid ppo=[{n_epochs: 1, n_epochs: 2}]: the values are not valid YAML (key "
        "'n_epochs' is given twice in one mapping, at line 1, columns 3 and 16: YAML would "
        "keep only the last and drop the first silently)"
    )
    # a merge key's entries may still be overridden: that is what it is for
    assert yaml.load("a: &a {x: 1, y: 2}\nb:\n  <<: *a\n  x: 3\n", Loader=ConfigLoader) == {
        "a": {"x": 1, "y": 2},
        "b": {"x": 3, "y": 2},
    }


def test_yaml_nested_too_deep_is_refused_with_its_depth(
    base_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23.12: a config nested 2,000 levels deep raised RecursionError (a traceback);
    fortythieves_agents.config.MAX_NESTING (32) is the limit."""
    deep = "[" * 2000 + "]" * 2000
    path = write(base_dir / "deep.yaml", f"base: defaults.yaml\ntrain:\n  shaping: {deep}\n")
    message = (
        f"{path}: invalid YAML: line 3, column 42: nested 2002 levels deep; at most 32 are allowed"
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == message
    assert _train_refused(tmp_path, monkeypatch, capsys, str(path)) == (
        f"fortythieves train: error: {message}"
    )
    with pytest.raises(ConfigError) as set_error:
        load_config(CONFIGS / "streets.yaml", [f"train.shaping={deep}"])
    assert str(set_error.value) == (
        f"--set train.shaping={deep}: the value is not valid YAML (nested 2000 levels deep; at "
        "most 32 are allowed)"
    )
    key = ".".join(["train"] * 2000)
    with pytest.raises(ConfigError) as key_error:
        load_config(CONFIGS / "streets.yaml", [f"{key}=1"])
    assert str(key_error.value) == f"--set {key}=1: the key has 2000 parts; at most 32 are allowed"
    # 32 levels load (and are then refused as a config, naming the key)
    with pytest.raises(ConfigError, match=r"train\.shaping: Input should be a valid dictionary"):
        load_config(CONFIGS / "streets.yaml", ["train.shaping=" + "[" * 30 + "]" * 30])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("env.reward_per_card=1e308", "env.reward_per_card: must be within -1000..1000, got 1e+308"),
        ("env.win_bonus=-2000", "env.win_bonus: must be within -1000..1000, got -2000"),
        ("env.illegal_action_penalty=1e4",
         "env.illegal_action_penalty: must be within 0..1000, got 10000"),
        ("train.shaping.face_down=1e5", "train.shaping.face_down: must be within -1000..1000, got 100000"),
        ("env.max_episode_steps=1e9",
         "env.max_episode_steps: must be null or an integer 1..1000000, got 1e+09"),
        ("env.max_episode_steps=0", "env.max_episode_steps: must be null or an integer 1..1000000, got 0"),
        ("env.max_steps_without_progress=1e20",
         "env.max_steps_without_progress: must be null or an integer 1..1000000, got 1e+20"),
    ],
)  # fmt: skip
def test_rewards_and_step_limits_out_of_range_are_refused_at_load(
    override: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23.12: ``env.reward_per_card=1e308`` trained into NaN logits (float32 overflow)
    and ``env.max_episode_steps=1e9`` died allocating 64 GiB; each is one line naming the
    value and the range (fortythieves_agents.config.MAX_REWARD, MAX_EPISODE_STEPS), exit 2, no run folder."""
    message = f"invalid configuration: --set {override}: {message}"
    with pytest.raises(ConfigError) as error:  # first, so that no training starts without it
        load_config(CONFIGS / "streets.yaml", [override])
    assert str(error.value) == message
    streets = str(CONFIGS / "streets.yaml")
    assert _train_refused(tmp_path, monkeypatch, capsys, streets, "--set", override) == (
        f"fortythieves train: error: {message}"
    )


def test_the_reward_and_step_bounds_themselves_are_accepted() -> None:
    config = load_config(
        CONFIGS / "streets.yaml",
        [
            "env.reward_per_card=-1000",
            "env.win_bonus=1000",
            "env.illegal_action_penalty=1000",
            "train.shaping={face_down: 1000, empty_columns: -1000}",
            "env.max_episode_steps=1e6",
            "env.max_steps_without_progress=1",
        ],
    )
    assert (config.env.reward_per_card, config.env.max_episode_steps) == (-1000.0, 10**6)


def test_a_custom_variants_step_limit_is_bounded_too(base_dir: Path) -> None:
    path = write(base_dir / "wide.yaml", WIDE + "    max_episode_steps: 2000000\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"invalid configuration: {path}: env.custom_variant: max_episode_steps must be an "
        "integer 1..1000000, got 2000000"
    )


def test_the_ablation_settings_refuse_a_setting_named_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other YAML input, ``scripts/training/full_run.py``'s ablation settings, is read
    by the same loader: a setting named twice would have been run once, silently."""
    import importlib.util
    import sys

    path = CONFIGS.parent / "scripts" / "training" / "full_run.py"
    spec = importlib.util.spec_from_file_location("full_run_settings", path)
    assert spec is not None and spec.loader is not None
    full_run = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "full_run_settings", full_run)  # for its dataclasses
    spec.loader.exec_module(full_run)
    settings = write(tmp_path / "settings.yaml", "settings:\n  a: [x.y=1]\n  a: [x.z=2]\n")
    with pytest.raises(full_run.RunError, match=r"key 'a' is given twice in one mapping, at "
                       r"lines 2 and 3: YAML would keep only the last"):  # fmt: skip
        full_run.read_settings(settings)


def test_a_custom_variant_without_a_stock_refuses_redeals(
    base_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23.12: 8 columns of 13 face-up cards leave no stock, so its redeals (1 here)
    can never apply: refused at load, one line, exit 2, no run folder."""
    text = WIDE.replace("n_columns: 12", "n_columns: 8").replace("face_down: 1", "face_down: 0")
    path = write(base_dir / "open.yaml", text.replace("face_up: 3", "face_up: 13"))
    message = (
        f"invalid configuration: {path}: env.custom_variant: variant Wide: redeals must be 0 "
        "without a stock (the tableau takes all 104 cards), got 1"
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == message
    assert _train_refused(tmp_path, monkeypatch, capsys, str(path)) == (
        f"fortythieves train: error: {message}"
    )
    assert load_config(path, ["env.custom_variant.redeals=0"]).env.variant_spec().stock_size == 0


def _laughs(levels: int, indent: str = "") -> str:
    """YAML list items whose aliases expand to ``10**levels`` values (each level names the
    one before ten times): a "billion laughs" at 9 levels."""
    lines = [f"{indent}- &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"]
    lines += [f"{indent}- &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, levels)]
    return "".join(lines)


def test_yaml_aliases_expanding_past_the_bound_are_refused(
    base_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 37, point 4: an alias names a collection again without copying it, so a few
    lines of a config stood for a billion values, and ``train`` hung walking them. A
    document expanding past MAX_YAML_VALUES (10,000) values, or nesting past MAX_NESTING
    through aliases, or containing itself, is refused in one line, in files, ``--set`` and
    ``--grid`` alike; anchors within the bound (shared defaults) still load."""
    from fortythieves_agents.config import MAX_YAML_VALUES, load_yaml, parse_override
    from fortythieves_agents.training.sweep import parse_grid

    assert MAX_YAML_VALUES == 10_000
    too_many = (
        "it holds more than 10,000 values once its aliases are expanded; at most 10,000 are allowed"
    )
    path = write(
        base_dir / "laughs.yaml",
        f"base: defaults.yaml\npolicy:\n  net_arch_pi:\n{_laughs(5, '    ')}",
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}: invalid YAML: {too_many}"
    assert _train_refused(tmp_path, monkeypatch, capsys, str(path)) == (
        f"fortythieves train: error: {path}: invalid YAML: {too_many}"
    )
    flow = (
        "["
        + ", ".join(
            ["&a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"] + ["[" + ", ".join(["*a"] * 10) + "]"] * 100
        )
        + "]"
    )
    with pytest.raises(ConfigError) as set_error:
        parse_override(f"policy.net_arch_pi={flow}")
    assert str(set_error.value).endswith(f": the value is not valid YAML ({too_many})")
    with pytest.raises(ConfigError) as grid_error:
        parse_grid([f"policy.net_arch_pi={flow}"])
    assert str(grid_error.value).endswith(f": the values are not valid YAML ({too_many})")
    # a chain of aliases nests past MAX_NESTING though the text nests 2 levels
    chain = "a0: &a0 [1]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 40))
    with pytest.raises(
        ConfigError,
        match=r"invalid YAML: its aliases nest it more than 32 levels deep; at most 32 are allowed$",
    ):
        load_config(write(base_dir / "chain.yaml", chain))
    with pytest.raises(
        ConfigError,
        match=r"invalid YAML: an alias names a collection it is inside of \(endless nesting\)$",
    ):
        load_config(write(base_dir / "loop.yaml", "base: defaults.yaml\ntrain: &t {shaping: *t}\n"))
    # within the bound: 1,000 values through aliases, and the zoo's shared defaults
    assert len(load_yaml(f"x:\n{_laughs(3)}")["x"][2]) == 10
    shared = "common: &c {gamma: 0.9, n_epochs: 4}\nppo:\n  <<: *c\n  n_epochs: 8\n"
    assert load_yaml(shared)["ppo"] == {"gamma": 0.9, "n_epochs": 8}
