"""Game records (issue 11, point 3): written by ``evaluate --save-games``, replayed by
``fortythieves replay`` to the same outcome, corrupted records refused."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import (
    ModelAgent,
    evaluate_agents,
    play_deals,
    play_episode,
)
from fortythieves_agents.players.baselines import legal_actions, make_baseline
from fortythieves_agents.seeds import TEST_START, seeds_for_test

from fortythieves_env import RULES_VERSION, FortyThievesEnv, VariantSpec, __version__
from fortythieves_env.records.record import (
    FORMAT_VERSION,
    GameRecord,
    RecordError,
    boards,
    describe,
    load_record,
    make_record,
    verify,
    write_gif,
)

DEALS = 2


class FirstLegal:
    """An agent of the one-game protocol only (no ``act_batch``): the first legal action."""

    name = "first-legal"

    def reset(self, env: gym.Env) -> None:
        pass

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        return int(legal_actions(env)[0])


@pytest.fixture(scope="module")
def tiny_model() -> object:
    """An untrained MaskablePPO for Streets (as in tests/agents/players/test_batch_agents.py)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: gym.make("FortyThieves/Streets-v0")])
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [16]}, seed=3, device="cpu")
    venv.close()
    return model


def _agent(kind: str, model: object) -> object:
    if kind == "ppo":
        return ModelAgent(model, "ppo")
    if kind == "ppo-sampled":
        return ModelAgent(model, "ppo-sampled", deterministic=False, seed=4)
    if kind == "first-legal":
        return FirstLegal()
    return make_baseline(kind, 2)


@pytest.mark.parametrize("kind", ["random", "greedy", "ppo", "ppo-sampled", "first-legal"])
def test_saved_records_replay_to_the_reported_outcome(
    kind: str, tiny_model: object, tmp_path: Path
) -> None:
    agent = _agent(kind, tiny_model)
    report = evaluate_agents(
        [agent],
        "Streets",
        DEALS,
        per_episode=True,
        save_games=tmp_path,  # type: ignore[list-item]
        allow_cycles=kind == "first-legal",  # a one-game agent ranks no moves
    )
    rows = report["results"][kind]["per_episode"]
    files = sorted((tmp_path / kind).glob("*.json"))
    assert [f.name for f in files] == [f"Streets-{TEST_START + i}.json" for i in range(DEALS)]
    for row, path in zip(rows, files, strict=True):
        record = load_record(path)
        assert record.source == {"kind": "seed", "value": row["seed"]}
        assert record.agent["name"] == kind
        assert record.variant == VariantSpec(**json.loads(path.read_text())["variant"])
        assert record.step_limit == 1000 and record.package_version == __version__
        assert len(record.moves) == row["length"]
        assert verify(record)["foundation_cards"] == row["foundation_cards"]
        # an independent replay: the registered env, the deal from its seed, the moves
        env = gym.make("FortyThieves/Streets-v0")
        env.reset(seed=row["seed"])
        assert env.unwrapped.get_state() == record.start
        for k, move in enumerate(record.moves):
            _, _, terminated, truncated, info = env.step(env.unwrapped.move_to_action(move))
            # a stuck game (the agents' no-cycling rule) is not ended by the env
            assert (terminated or truncated) == (k == len(record.moves) - 1 and not row["stuck"])
        assert record.outcome["stuck"] == row["stuck"]
        assert info["foundation_cards"] == row["foundation_cards"]
        assert bool(info["is_success"]) == row["won"]
        assert bool(truncated and not terminated) == row["truncated"]


def test_the_batched_traces_are_the_one_by_one_games() -> None:
    seeds = seeds_for_test(5)
    one_batch: list = []
    play_deals(make_baseline("greedy"), "FortyThieves/Maria-v0", seeds, 2, traces=one_batch)
    env = gym.make("FortyThieves/Maria-v0")
    for seed, trace in zip(seeds, one_batch, strict=True):
        actions: list[int] = []
        result = play_episode(env, make_baseline("greedy"), seed, actions)
        assert trace.actions.tolist() == actions and result.length == len(actions)
        env.reset(seed=seed)
        assert trace.start == env.unwrapped.get_state()


def _a_record(tmp_path: Path) -> tuple[Path, dict]:
    evaluate_agents([make_baseline("greedy")], "Maria", 1, save_games=tmp_path)
    path = tmp_path / "greedy" / f"Maria-{TEST_START}.json"
    return path, json.loads(path.read_text())


def _refused(tmp_path: Path, data: dict, capsys: pytest.CaptureFixture[str]) -> str:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(RecordError) as caught:
        verify(load_record(bad))
    capsys.readouterr()
    assert main(["replay", str(bad), "--all"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"fortythieves replay: error: {bad}")
    assert str(caught.value) in err
    return str(caught.value)


def test_corrupted_records_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, good = _a_record(tmp_path)
    assert verify(load_record(path))
    env = FortyThievesEnv("Maria")
    env.reset(options={"state": good["start"]})
    illegal = next(m for m in ("t0>t1", "t1>t2", "t2>t3", "w>f") if m not in env.legal_moves())
    data = json.loads(json.dumps(good))
    data["moves"][0] = illegal
    assert f"move 1 {illegal!r} is illegal" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["moves"][3] = "t9>t0x99"
    assert "move 4 't9>t0x99'" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["outcome"]["foundation_cards"] += 1
    assert "outcome differs" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["moves"].pop()
    assert "has not ended" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["moves"].append("draw")
    assert "the game ended after move" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["source"]["value"] += 1
    assert "not the deal of seed" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["format_version"] = FORMAT_VERSION + 1
    assert "format_version" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    del data["outcome"]
    assert "missing field(s) outcome" in _refused(tmp_path, data, capsys)
    data = json.loads(json.dumps(good))
    data["variant"]["build"] = "diagonal"
    assert "unknown build rule" in _refused(tmp_path, data, capsys)


def test_a_format_2_record_reads_as_finished_and_an_unfinished_one_needs_format_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 3 adds ``outcome.unfinished`` (a game the player stopped, ``play --save``):
    a format-2 record (without it) still reads, as finished; the key is required in 3."""
    path, good = _a_record(tmp_path)
    assert good["format_version"] == FORMAT_VERSION == 5
    assert good["outcome"]["unfinished"] is False
    old = json.loads(json.dumps(good))
    old["format_version"] = 2
    del old["outcome"]["unfinished"], old["rules_version"], old["digest"]
    path.write_text(json.dumps(old))
    assert verify(load_record(path))["unfinished"] is False
    data = json.loads(json.dumps(good))
    del data["outcome"]["unfinished"]
    assert "must have exactly the keys won, foundation_cards, length, terminated, truncated, " in (
        _refused(tmp_path, data, capsys)
    )
    old["outcome"]["unfinished"] = False  # a format-2 record has no such key
    assert "must have exactly the keys" in _refused(tmp_path, old, capsys)


def test_a_record_carries_its_rules_version_and_one_of_other_rules_is_not_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 4 records ``rules_version``; a format-3 record (without it) was made under
    rules version 1 and replays as such; a record of other rules is read but not replayed
    (``replay``: one line naming both versions); the field is required in format 4 and
    refused in the older formats."""
    path, good = _a_record(tmp_path)
    assert list(good)[:3] == ["format_version", "package_version", "rules_version"]
    assert good["rules_version"] == RULES_VERSION == load_record(path).rules_version
    old = json.loads(json.dumps(good))
    old["format_version"] = 3
    del old["rules_version"], old["digest"]
    path.write_text(json.dumps(old))
    record = load_record(path)
    assert record.rules_version == 1 and record.to_json() == old  # written back as read
    if RULES_VERSION == 1:
        assert verify(record) == good["outcome"]
    other = json.loads(json.dumps(good))
    other["rules_version"] = RULES_VERSION + 1
    assert load_record(_saved(tmp_path, other)).rules_version == RULES_VERSION + 1
    assert _refused(tmp_path, other, capsys) == (
        f"the record was made under rules version {RULES_VERSION + 1}, not the current rules "
        f"version {RULES_VERSION}: it does not replay under these rules"
    )
    for bad in (0, "1", None, True):
        data = {**good, "rules_version": bad}
        assert f"rules_version: must be a positive integer, got {bad!r}" in _refused(
            tmp_path, data, capsys
        )
    data = dict(good)
    del data["rules_version"]
    assert "missing field(s) rules_version" in _refused(tmp_path, data, capsys)
    assert "unknown field(s) rules_version" in _refused(
        tmp_path, {**old, "rules_version": 1}, capsys
    )


def _saved(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(data))
    return path


def test_a_position_record_of_a_custom_variant_replays(tmp_path: Path) -> None:
    spec = VariantSpec("Tiny", "Tiny", 4, 0, 2, "same_suit", False, max_episode_steps=30)
    env = FortyThievesEnv(spec)
    env.reset(seed=5)
    start = env.get_state()
    rng = np.random.default_rng(0)
    actions = []
    for _ in range(30):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        actions.append(a)
        _, _, terminated, truncated, info = env.step(a)
        if terminated or truncated:
            break
    outcome = {
        "won": bool(info["is_success"]),
        "foundation_cards": int(info["foundation_cards"]),
        "length": len(actions),
        "terminated": bool(terminated),
        "truncated": not terminated,
    }
    record = make_record(spec, ("position", None), {"name": "test"}, start, actions, outcome, 30)
    record.save(tmp_path / "r.json")
    again = load_record(tmp_path / "r.json")
    assert again == record and verify(again) == {**outcome, "stuck": False, "unfinished": False}
    assert GameRecord.from_json(record.to_json()) == record


def test_numpy_integers_in_a_record_are_read_as_int(tmp_path: Path) -> None:
    """A record built in Python with NumPy integers saves and verifies like a JSON one."""
    env = FortyThievesEnv("NumberTen")
    env.reset(seed=3)
    start = env.get_state()
    action = int(np.flatnonzero(env.action_masks())[0])
    _, _, terminated, _, info = env.step(action)
    assert not terminated
    outcome = {  # the record's step limit of 1 truncates the game after its one move
        "won": False,
        "foundation_cards": int(info["foundation_cards"]),
        "length": 1,
        "terminated": False,
        "truncated": True,
    }
    data = make_record(
        env.variant, ("seed", 3), {"name": "t"}, start, [action], outcome, 1
    ).to_json()
    data.update(step_limit=np.int64(1), format_version=np.int64(data["format_version"]))
    data["source"] = {"kind": "seed", "value": np.int64(3)}
    record = GameRecord.from_json(data)
    assert type(record.step_limit) is int and type(record.format_version) is int
    assert type(record.source["value"]) is int
    record.save(tmp_path / "r.json")
    assert load_record(tmp_path / "r.json") == record
    assert verify(record) == {**outcome, "stuck": False, "unfinished": False}


def test_replay_all_prints_every_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", "greedy", "--variant", "Maria", "--episodes", "1", "--no-progress"]
    assert main([*argv, "--save-games", str(tmp_path)]) == 0
    path = tmp_path / "greedy" / f"Maria-{TEST_START}.json"
    record = load_record(path)
    capsys.readouterr()
    assert main(["replay", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    n = len(record.moves)
    shown = [line for line in out.splitlines() if line.startswith("move ")]
    assert shown == [f"move {k}/{n}: {m}" for k, m in enumerate(record.moves, start=1)]
    texts = [text for _, text in boards(record)]
    assert texts[-1] in out and texts[0] in out and out.count("foundations: ") == 2 * (n + 1)
    assert out.splitlines()[-1].endswith(
        f"{record.outcome['foundation_cards']} foundation cards in {n} moves"
    )


def test_describe_counts_one_card_and_one_move_in_the_singular(tmp_path: Path) -> None:
    """issue 37 point 12: ``replay`` ended with "1 foundation cards"."""
    import dataclasses

    record = load_record(_a_record(tmp_path)[0])

    def told(cards: int, moves: int) -> str:
        outcome = {**record.outcome, "foundation_cards": cards, "length": moves}
        return describe(dataclasses.replace(record, outcome=outcome))

    assert told(1, 1).endswith(" with 1 foundation card in 1 move")
    assert told(0, 2).endswith(" with 0 foundation cards in 2 moves")
    assert told(104, 300).endswith(" with 104 foundation cards in 300 moves")


def test_replay_help_names_both_writers_of_records(capsys: pytest.CaptureFixture[str]) -> None:
    """issue 37 point 12: ``replay --help`` named ``evaluate --save-games`` alone, but
    ``play --save`` writes records too."""
    assert main(["replay", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "FILE a game record, written by evaluate --save-games or play --save" in out


def test_gif_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    path, _ = _a_record(tmp_path)
    record = load_record(path)
    assert write_gif(record, tmp_path / "a.gif", moves=5) == 6
    with Image.open(tmp_path / "a.gif") as gif:
        assert gif.n_frames == 6
        env = FortyThievesEnv("Maria", render_mode="rgb_array")
        env.reset(seed=TEST_START)
        assert gif.size == env.render().shape[1::-1]
    assert main(["replay", str(path), "--html", str(tmp_path / "a.html"), "--moves", "3"]) == 0
    page = (tmp_path / "a.html").read_text()
    assert "http" not in page.replace("http-equiv", "")  # self-contained: nothing fetched
    data = page.split('type="application/json">')[1].split("</script>")[0]
    shown = json.loads(data)
    assert shown["boards"] == [text for _, text in boards(record, moves=3)]
    assert shown["captions"] == ["start"] + [
        f"move {k}/{len(record.moves)}: {m}" for k, m in enumerate(record.moves[:3], start=1)
    ]


def test_a_record_nested_too_deep_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 23.12: a replay file nested 2,000 levels deep gave a RecursionError traceback
    (Python's json parses recursively). It is one line naming the depth and the limit
    (``_checks.MAX_JSON_NESTING``, 32; a record has 4), exit 2, nothing written."""
    _, data = _a_record(tmp_path)
    data["agent"]["notes"] = "NESTED"
    bad = tmp_path / "deep.json"
    bad.write_text(json.dumps(data).replace('"NESTED"', "[" * 2000 + "]" * 2000))
    with pytest.raises(RecordError) as caught:
        load_record(bad)
    assert str(caught.value) == (
        f"{bad}: not a game record: nested 2002 levels deep; at most 32 are allowed"
    )
    capsys.readouterr()
    gif, page = tmp_path / "deep.gif", tmp_path / "deep.html"
    assert main(["replay", str(bad), "--gif", str(gif), "--html", str(page)]) == 2
    assert capsys.readouterr() == ("", f"fortythieves replay: error: {caught.value}\n")
    assert not gif.exists() and not page.exists()
    # brackets inside strings do not count, and 32 levels are read
    data["agent"]["notes"] = ["[[[[" * 100, [[[[[[]]]]]] * 3]
    data["agent"]["deep"] = "NESTED"
    fine = tmp_path / "fine.json"
    fine.write_text(json.dumps(data).replace('"NESTED"', "[" * 30 + "]" * 30))
    assert load_record(fine).agent["notes"] == data["agent"]["notes"]


def test_a_record_carries_a_digest_of_itself_and_an_edited_one_is_no_longer_intact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format 5 adds ``digest``, the SHA-256 of every other field (issue 37, point 2): a record
    read as written is intact; one whose agent (or anything else) was changed afterwards still
    replays but is not; a format-4 record (without it) reads, not intact; the field is
    required in format 5 and refused in format 4."""
    path, good = _a_record(tmp_path)
    assert list(good)[-1] == "digest" and good["digest"].startswith("sha256:")
    record = load_record(path)
    assert record.intact and record.digest == record.content_digest() == good["digest"]
    assert record.to_json() == good  # written back as read
    relabelled = {**good, "agent": {"name": "random", "seed": 0}}
    edited = load_record(_saved(tmp_path, relabelled))
    assert not edited.intact and verify(edited) == good["outcome"]  # it replays all the same
    assert edited.content_digest() != good["digest"]
    old = {k: v for k, v in good.items() if k != "digest"}
    old["format_version"] = 4
    assert not load_record(_saved(tmp_path, old)).intact
    assert load_record(_saved(tmp_path, old)).to_json() == old
    assert "unknown field(s) digest" in _refused(
        tmp_path, {**old, "digest": good["digest"]}, capsys
    )
    missing = {k: v for k, v in good.items() if k != "digest"}
    assert "missing field(s) digest" in _refused(tmp_path, missing, capsys)
    for bad in (None, 5, "sha256:xyz", "md5:" + "0" * 64):
        assert f"field digest: must be 'sha256:' and 64 lowercase hex digits, got {bad!r}" in (
            _refused(tmp_path, {**good, "digest": bad}, capsys)
        )
