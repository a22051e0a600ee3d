"""A model zip from someone else runs no code when evaluated (agents/networks/model_zip.py).

stable-baselines3's loader unpickles the ``":serialized:"`` entries of a zip's ``data``
(cloudpickle). The payload planted here is such an entry: an object whose ``__reduce__``
makes unpickling call ``Path.write_text(marker, "ran")``. SB3's own loader writes the
marker (so the payload is live); ``fortythieves evaluate`` and ``fortythieves play
--hint-model`` do not, and still play the model, with the same actions as SB3's loader.
A zip whose architecture is not in the plain JSON, or whose ``policy.pth`` holds an
object instead of tensors, is refused in one line.
"""

from __future__ import annotations

import base64
import io
import json
import pathlib
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import ModelAgent, load_model_agent
from fortythieves_agents.networks.model_zip import ModelMismatchError, load_maskable_ppo
from helpers import ROOT, STREETS, play_cli, rewrite_zip

SHIPPED = ROOT / "results" / "training" / "Streets" / "best_model.zip"
"""A trained ``player`` model (the Results table's Streets agent)."""


class Payload:
    """Unpickled, it writes ``marker`` (standing for any code a zip could run)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (pathlib.Path.write_text, (pathlib.Path(self.marker), "ran"))


def plant(
    source: Path,
    target: Path,
    marker: Path,
    edit: Callable[[dict[str, Any]], None] | None = None,
    policy_pth: bytes | None = None,
) -> Path:
    """``source`` copied to ``target`` with the payload as every ``":serialized:"`` entry
    of ``data`` (the plain JSON beside them kept, then changed by ``edit``), and
    ``policy_pth`` as ``policy.pth`` if given."""
    import cloudpickle

    payload = base64.b64encode(cloudpickle.dumps(Payload(marker))).decode()
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            content = old.read(info.filename)
            if info.filename == "data":
                data = json.loads(content)
                for value in data.values():
                    if isinstance(value, dict) and ":serialized:" in value:
                        value[":serialized:"] = payload
                if edit is not None:
                    edit(data)
                content = json.dumps(data).encode()
            elif info.filename == "policy.pth" and policy_pth is not None:
                content = policy_pth
            new.writestr(info, content)
    return target


@pytest.fixture(scope="module")
def card_slots_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained ``card_slots`` Streets model (SB3's stock policy over CardSlotsExtractor)."""
    from fortythieves_agents.config import load_config
    from fortythieves_agents.envs import make_training_vec_env
    from fortythieves_agents.training.train import build_model

    from configs import PLAIN

    overrides = [*PLAIN, "train.n_envs=1", "ppo.n_steps=16", "ppo.batch_size=16"]
    config = load_config(STREETS, overrides)
    env = make_training_vec_env(config)
    path = tmp_path_factory.mktemp("card_slots") / "model.zip"
    build_model(config, env, None).save(path)
    env.close()
    return path


@pytest.fixture(scope="module")
def mlp_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SB3's stock ``"MlpPolicy"`` (flattened observation, ``net_arch=[8]``), Little Forty v0."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    id_ = "FortyThieves/LittleForty-v0"
    venv = DummyVecEnv([lambda: gym.make(id_)])
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [8]}, device="cpu")
    model.fortythieves_variant = "LittleForty"
    model.fortythieves_env_id = id_
    path = tmp_path_factory.mktemp("mlp") / "v0.zip"
    model.save(path)
    venv.close()
    return path


def same_play(path: Path, reference: Path, env_version: int | None = None, steps: int = 30) -> None:
    """``load_model_agent(path)`` scores and plays as SB3's loader of ``reference`` does:
    equal logits and actions along a game, and ``predict`` as ``MaskablePPO.predict``."""
    agent, _ = load_model_agent(path, env_version=env_version)
    full = load_maskable_ppo(reference, device="cpu")
    sb3 = ModelAgent(full)
    env = gym.make(_env_id(reference))
    obs, info = env.reset(seed=11)
    for step in range(steps):
        masks = torch.as_tensor(info["action_mask"][None])
        with torch.no_grad():
            assert torch.equal(agent.logits(obs[None], masks), sb3.logits(obs[None], masks))
        mask = info["action_mask"].astype(bool)
        mine, _ = agent.model.predict(obs, action_masks=mask, deterministic=True)
        theirs, _ = full.predict(obs, action_masks=mask, deterministic=True)
        assert int(mine) == int(theirs) == agent.act(obs, env)
        obs, _, terminated, truncated, info = env.step(int(mine))
        if terminated or truncated:
            obs, info = env.reset(seed=step)
    env.close()


def _env_id(path: Path) -> str:
    from fortythieves_agents.networks.model_zip import model_env_id

    made_for = model_env_id(path)
    assert made_for is not None
    return made_for


def test_sb3_own_loader_runs_the_planted_payload(tmp_path: Path) -> None:
    """The test's payload is live: SB3's loader (train --resume's) writes the marker."""
    marker = tmp_path / "marker"
    planted = plant(SHIPPED, tmp_path / "planted.zip", marker)
    with pytest.raises(ModelMismatchError):  # policy_class unpickles to an int
        load_maskable_ppo(planted, device="cpu")
    assert marker.read_text() == "ran"


def test_evaluate_does_not_run_a_planted_payload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The payload in every ``:serialized:`` entry of a trained model's zip: ``evaluate``
    plays the model from its weights and plain JSON, and the marker is never written."""
    marker = tmp_path / "marker"
    planted = plant(SHIPPED, tmp_path / "planted.zip", marker)
    report = tmp_path / "report.json"
    code = main(["evaluate", str(planted), "--episodes", "2", "--baselines", "--json", str(report)])
    _, err = capsys.readouterr()
    assert not marker.exists()
    assert code == 0, err
    assert list(json.loads(report.read_text())["results"]) == ["ppo"]


def test_play_hint_model_does_not_run_a_planted_payload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --hint-model`` with the planted zip gives the model's hint; no marker."""
    marker = tmp_path / "marker"
    planted = plant(SHIPPED, tmp_path / "planted.zip", marker)
    argv = ["Streets", "--seed", "3", "--hint-model", str(planted)]
    code, out, err = play_cli(argv, ["h"], monkeypatch, capsys)
    assert not marker.exists()
    assert code == 0, err
    assert "hint (ppo): " in out


def test_a_planted_zip_plays_as_sb3_loader_plays_the_clean_one(tmp_path: Path) -> None:
    """The trained model loaded from the planted zip scores every move as SB3's loader
    scores it from the clean zip (equal logits, actions and ``predict``); no marker."""
    marker = tmp_path / "marker"
    planted = plant(SHIPPED, tmp_path / "planted.zip", marker)
    refused = None
    try:
        same_play(planted, SHIPPED)
    except ModelMismatchError as exc:
        refused = exc
    assert not marker.exists()
    assert refused is None, refused


@pytest.mark.parametrize("network", ["card_slots", "mlp"])
def test_the_stock_policy_loads_from_plain_json_too(
    network: str, card_slots_zip: Path, mlp_zip: Path, tmp_path: Path
) -> None:
    """SB3's stock policy over CardSlotsExtractor (``policy.network: card_slots``) and with
    its default flattened input: planted, they play as SB3's loader plays them clean."""
    source = card_slots_zip if network == "card_slots" else mlp_zip
    marker = tmp_path / "marker"
    planted = plant(source, tmp_path / "planted.zip", marker)
    refused = None
    try:
        same_play(planted, source, env_version=0 if network == "mlp" else None)
    except ModelMismatchError as exc:
        refused = exc
    assert not marker.exists()
    assert refused is None, refused


def test_a_custom_variant_player_model_is_rebuilt_from_its_recorded_spec(tmp_path: Path) -> None:
    """A ``player`` model of a custom variant names its variant by the plain spec the zip
    records (``fortythieves_variant_spec``); planted, it plays as SB3's loader plays it."""
    from fortythieves_agents.config import load_config
    from fortythieves_agents.envs import make_training_vec_env
    from fortythieves_agents.training.train import build_model

    from configs import PLAIN

    wide = (
        "env.custom_variant={id: WideZip, name: Wide Forty, n_columns: 12, face_down: 1, "
        "face_up: 3, build: alternate_colour, sequence_moves: true, redeals: 1}"
    )
    small = ["train.n_envs=1", "ppo.n_steps=16", "ppo.batch_size=16"]
    overrides = [*PLAIN, *small, "policy.network=player", "env.variant=WideZip", wide]
    config = load_config(STREETS, overrides)
    env = make_training_vec_env(config)
    source = tmp_path / "wide.zip"
    build_model(config, env, None).save(source)
    env.close()
    marker = tmp_path / "marker"
    planted = plant(source, tmp_path / "planted.zip", marker)
    refused = None
    try:
        same_play(planted, source, steps=10)
    except ModelMismatchError as exc:
        refused = exc
    assert not marker.exists()
    assert refused is None, refused


def _foreign_class(data: dict[str, Any]) -> None:
    data["policy_class"]["__module__"] = "evil"
    data["policy_class"]["__init__"] = "<function Evil.__init__ at 0x7f00>"


def _pickle_only_class(data: dict[str, Any]) -> None:
    data["policy_class"] = {k: v for k, v in data["policy_class"].items() if k.startswith(":")}


def _foreign_kwarg(data: dict[str, Any]) -> None:
    data["policy_kwargs"]["features_extractor_class"] = "<class 'evil.Extractor'>"


def _foreign_activation(data: dict[str, Any]) -> None:
    data["policy_kwargs"]["activation_fn"] = "<class 'evil.Activation'>"


def _pickle_only_space(data: dict[str, Any]) -> None:
    del data["observation_space"]["_shape"]


REFUSED = [
    (_foreign_class, "policy_class evil.Evil is not one this package builds"),
    (_pickle_only_class, "policy_class has no plain module and class name"),
    (_foreign_kwarg, "policy_kwargs key 'features_extractor_class' is not one this package"),
    (_foreign_activation, "policy_kwargs activation_fn \"<class 'evil.Activation'>\" is not"),
    (_pickle_only_space, "the model's observation_space Box(shape=None, dtype=uint8) does not"),
]


@pytest.mark.parametrize(("edit", "message"), REFUSED, ids=[e.__name__ for e, _ in REFUSED])
def test_a_zip_that_needs_unpickling_is_refused_in_one_line(
    edit: Callable[[dict[str, Any]], None],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Plain JSON that names a class this package does not build (or none) is refused by
    ``evaluate`` and ``play --hint-model``, exit 2, one line naming it; nothing runs."""
    marker = tmp_path / "marker"
    planted = plant(SHIPPED, tmp_path / "planted.zip", marker, edit)
    code = main(["evaluate", str(planted), "--episodes", "2", "--baselines"])
    _, err = capsys.readouterr()
    assert not marker.exists()
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert err.startswith(f"fortythieves evaluate: error: {planted}: ")
    code, out, err = play_cli(["Streets", "--hint-model", str(planted)], ["h"], monkeypatch, capsys)
    assert not marker.exists()
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_an_object_pickled_in_policy_pth_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``policy.pth`` is read with ``torch.load(..., weights_only=True)``: a pickled object
    there (the payload) is refused, not built."""
    marker = tmp_path / "marker"
    buffer = io.BytesIO()
    torch.save({"weights": Payload(marker)}, buffer)
    planted = plant(SHIPPED, tmp_path / "planted.zip", marker, policy_pth=buffer.getvalue())
    code = main(["evaluate", str(planted), "--episodes", "2", "--baselines"])
    _, err = capsys.readouterr()
    assert not marker.exists()
    assert code == 2 and err.count("\n") == 1 and "policy.pth is not plain weights" in err, err
    assert "refusing to unpickle it" in err


def test_weights_that_do_not_fit_the_described_network_are_refused(tmp_path: Path) -> None:
    """A ``policy.pth`` of other shapes than the plain JSON describes is refused."""
    source = tmp_path / "source.zip"
    source.write_bytes(SHIPPED.read_bytes())

    def wider(data: dict[str, Any]) -> None:
        data["policy_kwargs"]["card_dim"] = 17

    planted = plant(source, tmp_path / "planted.zip", tmp_path / "marker", wider)
    with pytest.raises(ModelMismatchError, match=r"policy\.pth does not fit the policy"):
        load_model_agent(planted)


def test_the_accepted_names_are_the_classes_this_package_builds() -> None:
    """The tables name real classes (a renamed module would otherwise refuse every zip)."""
    from fortythieves_agents.networks.family_policy import FamilyPlayerPolicy
    from fortythieves_agents.networks.features import CardSlotsExtractor
    from fortythieves_agents.networks.model_zip import ACTIVATIONS, EXTRACTORS, POLICY_CLASSES
    from fortythieves_agents.networks.policy import PlayerPolicy
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    def name(cls: type) -> str:
        return f"{cls.__module__}.{cls.__qualname__}"

    classes = (PlayerPolicy, MaskableActorCriticPolicy, FamilyPlayerPolicy)
    assert tuple(name(cls) for cls in classes) == POLICY_CLASSES
    assert (name(CardSlotsExtractor), name(FlattenExtractor)) == EXTRACTORS
    assert (name(torch.nn.ReLU), name(torch.nn.Tanh)) == ACTIVATIONS


# ---------------------------------------------------------------------- the rules version
def test_a_model_records_its_rules_version_and_one_without_is_version_1(
    card_slots_zip: Path, tmp_path: Path
) -> None:
    """A model built by ``train`` records ``fortythieves_rules_version`` as plain JSON; a
    zip saved before the field existed (as the first shipped models were) was trained under
    version 1."""
    from fortythieves_agents.networks.model_zip import model_rules_version

    from fortythieves_env import RULES_VERSION

    with zipfile.ZipFile(card_slots_zip) as archive:
        data = json.loads(archive.read("data"))
        assert data["fortythieves_rules_version"] == RULES_VERSION
        members = {name: archive.read(name) for name in archive.namelist()}
    assert model_rules_version(card_slots_zip) == RULES_VERSION
    # the same zip as saved before the field existed
    del data["fortythieves_rules_version"]
    members["data"] = json.dumps(data).encode()
    old = tmp_path / "before_the_field.zip"
    with zipfile.ZipFile(old, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    assert model_rules_version(old) == 1


@pytest.mark.parametrize("recorded", ["other", "bad"])
def test_a_model_of_other_rules_is_refused_in_one_line(
    recorded: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``evaluate``, ``play --hint-model`` and ``train --resume`` refuse a model trained
    under other rules, exit 2, one line naming both rules versions (and a recorded version
    that is not one, naming it); nothing is unpickled, nothing is written."""
    from fortythieves_env import RULES_VERSION

    value: object = RULES_VERSION + 1 if recorded == "other" else "two"
    marker = tmp_path / "marker"
    planted = plant(
        SHIPPED,
        tmp_path / "planted.zip",
        marker,
        lambda data: data.update(fortythieves_rules_version=value),
    )
    if recorded == "other":
        reason = (
            f"{planted}: the model was made under rules version {RULES_VERSION + 1}, not the "
            f"current rules version {RULES_VERSION}; train it again under these rules"
        )
    else:
        reason = f"{planted}: fortythieves_rules_version must be a positive integer, got 'two'"
    with pytest.raises(ModelMismatchError) as refused:
        load_model_agent(planted)
    assert str(refused.value) == reason
    assert main(["evaluate", str(planted), "--episodes", "2", "--baselines"]) == 2
    assert capsys.readouterr().err == f"fortythieves evaluate: error: {reason}\n"
    code, out, err = play_cli(["Streets", "--hint-model", str(planted)], ["h"], monkeypatch, capsys)
    assert code == 2
    assert out == "" and err.count("\n") == 1 and reason in err, err
    run = tmp_path / "run"
    argv = ["train", str(STREETS), "--resume", str(planted)]
    assert main([*argv, "--run-dir", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fortythieves train: error: --resume ") and err.count("\n") == 1
    assert reason in err
    assert not run.exists() and not marker.exists()


def test_a_model_saved_under_the_old_package_name_resumes_training(tmp_path: Path) -> None:
    """A model saved when the package's import name was ``agents`` (its policy class reads
    ``agents.policy.PlayerPolicy``, as the shipped models of that time did; here the shipped
    Lucas model with its policy class renamed so): ``train --resume`` continues it, and the
    new model names today's class."""
    shipped = ROOT / "results" / "training" / "Lucas" / "best_model.zip"
    old = _with_policy_module(shipped, tmp_path / "old.zip", "agents.policy")
    with zipfile.ZipFile(old) as archive:
        data = json.loads(archive.read("data"))
    assert data["policy_class"]["__module__"] == "agents.policy"
    steps = data["num_timesteps"]
    run = tmp_path / "run"
    overrides = [f"train.total_timesteps={steps + 1}", "eval.eval_freq=0"]
    overrides += ["eval.final_episodes=0", "train.progress_bar=false", "train.tensorboard=false"]
    argv = ["train", str(ROOT / "configs" / "lucas.yaml"), "--resume", str(old)]
    assert main([*argv, "--run-dir", str(run), *[a for o in overrides for a in ("--set", o)]]) == 0
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "completed" and meta["timesteps"] == steps + 2048
    with zipfile.ZipFile(run / "models" / "final_model.zip") as archive:
        saved = json.loads(archive.read("data"))
    assert saved["policy_class"]["__module__"] == "fortythieves_agents.networks.policy"


def _with_policy_module(source_path: Path, target_path: Path, module: str) -> Path:
    """A copy of the model zip at ``source_path`` whose policy class names ``module``."""

    def renamed(name: str, content: bytes) -> bytes:
        if name != "data":
            return content
        data = json.loads(content)
        data["policy_class"]["__module__"] = module
        return json.dumps(data).encode()

    return rewrite_zip(source_path, target_path, renamed)


@pytest.mark.parametrize(
    "module", ["agents.policy", "fortythieves_agents.policy", "agents.networks.policy"]
)
def test_models_saved_under_earlier_module_paths_load_to_play(tmp_path: Path, module: str) -> None:
    """The policy class of a model saved before the networks moved to
    ``fortythieves_agents.networks`` (or by a checkout imported as ``agents``) is read as
    today's: the model loads to play without unpickling, and plays as the shipped one; an
    unknown module is refused, named."""
    old = ROOT / "results" / "training" / "Lucas" / "best_model.zip"
    copy = _with_policy_module(old, tmp_path / "model.zip", module)
    agents = [load_model_agent(path, "Lucas")[0] for path in (old, copy)]
    env = gym.make("FortyThieves/Lucas-v0")
    obs, _ = env.reset(seed=4)
    mask = env.unwrapped.action_masks()[None]
    first, second = (a.action_scores(obs[None], mask, np.array([0])) for a in agents)
    assert np.array_equal(first, second)
    bad = _with_policy_module(old, tmp_path / "bad.zip", "elsewhere.policy")
    with pytest.raises(ModelMismatchError, match=r"elsewhere\.policy\.PlayerPolicy"):
        load_model_agent(bad, "Lucas")
