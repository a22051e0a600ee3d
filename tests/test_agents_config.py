"""Layered configs: every shipped file loads, layering and ``--set`` work, errors are clear."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from agents.cli import main
from agents.config import Config, ConfigError, ConfigLoader, dump_config, load_config

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
VARIANT_FILES = sorted(p for p in CONFIGS.glob("*.yaml") if p.name != "defaults.yaml")


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
    # a full run of the shipped recipe (README, Results); the quick start sets a smaller budget
    assert config.train.total_timesteps >= 500_000
    assert config.policy.network == "player" and config.train.teacher == "greedy"
    assert config.train.no_cycling and config.train.vec_env == "batched"
    assert config.eval.final_episodes == 500


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
