"""``fortythieves play`` (agents/cli/play.py): a person plays a deal at a prompt.

Whole games are driven through standard input: in-process through ``fortythieves_agents.cli.main.main`` with
``sys.stdin`` replaced, and once in a real subprocess. The winning line comes from the
clairvoyant solver (``fortythieves_env.solver.solve``) and the losing one from the greedy
baseline, both worked out here, not written down.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.cli.play import (
    END_MESSAGES,
    Game,
    MoveError,
    describe_move,
    render_table,
    run,
)
from fortythieves_agents.players.baselines import GreedyAgent
from helpers import STREETS, play_cli, run_cli
from rich.console import Console

from fortythieves_env import FortyThievesEnv
from fortythieves_env.records.record import FORMAT_VERSION, load_record, verify
from fortythieves_env.rules.cards import CARD_NAMES, RED


@pytest.fixture(scope="module")
def winning_line() -> tuple[str, int, list[str]]:
    """A deal and the solver's winning line for it (the first Little Forty seed it wins)."""
    from fortythieves_env.solver import solve

    for seed in range(10):
        env = FortyThievesEnv("LittleForty")
        env.reset(seed=seed)
        result = solve(env.get_state(), nodes=200_000)
        if result.status == "won":
            return "LittleForty", seed, list(result.moves)
    raise AssertionError("the solver won none of Little Forty seeds 0..9 within 200k nodes")


@pytest.fixture(scope="module")
def losing_line() -> tuple[str, int, list[str]]:
    """A Limited deal that the greedy baseline plays until no legal move is left."""
    greedy = GreedyAgent()
    for seed in range(20):
        game = Game("Limited", seed=seed)
        while game.end is None:
            game.play(game.hint(greedy))
        if game.end == "no legal move":
            return "Limited", seed, game.moves
    raise AssertionError("greedy ran out of moves in none of Limited seeds 0..19")


def session(game: Game, lines: list[str], width: int = 120, **kwargs: object) -> str:
    """Run the prompt loop on ``game`` with ``lines`` typed; the transcript (no colour)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None)
    typed = iter(lines)

    def read(prompt: str) -> str | None:
        console.print(prompt, end="")
        return next(typed, None)

    assert run(game, console, read, GreedyAgent(), echo=True, **kwargs) == 0  # type: ignore[arg-type]
    return buffer.getvalue()


# ------------------------------------------------------------------ whole games through stdin


def test_a_winning_line_typed_wins_and_the_record_replays(
    winning_line: tuple[str, int, list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    variant, seed, moves = winning_line
    save = tmp_path / "game.json"
    # an illegal move and a wrong word first: each refused, the game goes on
    typed = ["t0>t0", "w>f", "hello", *moves]
    code, out, err = play_cli(
        [variant, "--seed", str(seed), "--save", str(save)], typed, monkeypatch, capsys
    )
    assert code == 0 and err == ""
    assert "a column cannot move onto itself" in out
    assert "illegal move 'w>f': the waste is empty" in out
    assert "'hello' is not a move" in out
    assert END_MESSAGES["won"].format(cards=104, steps=len(moves)) in out
    assert f"step {len(moves)}/1500" in out
    assert f"game record written to {save}" in out
    record = load_record(save)
    assert record.moves == moves
    assert record.source == {"kind": "seed", "value": seed}
    assert record.agent == {"name": "human", "hints": 0, "undos": 0}
    assert verify(record)["won"] is True
    assert main(["replay", str(save), "--all"]) == 0
    assert "won with 104 foundation cards" in capsys.readouterr().out


def test_a_whole_game_through_a_real_stdin(
    winning_line: tuple[str, int, list[str]], tmp_path: Path
) -> None:
    """The console script's path: a subprocess reading a pipe (echoed, no colour codes)."""
    variant, seed, moves = winning_line
    typed = "\n".join(["u", "l", *moves, "q"]) + "\n"
    done = run_cli("play", variant, "--seed", str(seed), input=typed, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "nothing to undo" in done.stdout
    assert f"move> {moves[0]}\n" in done.stdout  # the typed line is echoed
    assert END_MESSAGES["won"].format(cards=104, steps=len(moves)) in done.stdout
    assert "\x1b[" not in done.stdout


def test_no_legal_move_is_told_apart(
    losing_line: tuple[str, int, list[str]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    variant, seed, moves = losing_line
    code, out, _ = play_cli([variant, "--seed", str(seed)], moves, monkeypatch, capsys)
    assert code == 0
    game = Game(variant, seed=seed)
    for move in moves:
        game.play(game.parse(move))
    cards = game.view().foundation_cards
    assert game.end == "no legal move" and cards < 104
    assert END_MESSAGES["no legal move"].format(cards=cards, steps=len(moves)) in out
    assert "You won" not in out and "Step limit" not in out


def test_step_limit_is_told_apart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = play_cli(
        ["Streets", "--seed", "3", "--max-steps", "3"], ["d", "d", "d", "d"], monkeypatch, capsys
    )
    assert code == 0
    assert END_MESSAGES["step limit"].format(steps=3, limit=3, cards=0) in out
    # the fourth draw is refused: the game is over
    assert "the game is over: undo (u) to take back the last move, or quit (q)" in out
    assert "No legal move" not in out and "No progress" not in out


def test_no_progress_is_told_apart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # two tableau moves that turn nothing up (Streets deals no face-down card)
    game = Game("Streets", seed=3, max_steps_without_progress=2)
    moves = []
    for _ in range(2):
        tableau = [a for a in game.legal_actions() if ">t" in game.base.action_to_move(a)]
        tableau = [a for a in tableau if not game.base.action_to_move(a).startswith("w")]
        assert tableau
        moves.append(game.base.action_to_move(tableau[0]))
        game.play(tableau[0])
    assert game.end == "no progress"
    code, out, _ = play_cli(
        ["Streets", "--seed", "3", "--max-steps-without-progress", "2"], moves, monkeypatch, capsys
    )
    assert code == 0
    assert "no progress 1/2" in out
    assert END_MESSAGES["no progress"].format(idle=2, cards=0, steps=2) in out
    assert "Step limit" not in out


def test_the_four_end_messages_differ() -> None:
    fields = {"cards": 50, "steps": 10, "limit": 10, "idle": 5}
    texts = {key: message.format(**fields) for key, message in END_MESSAGES.items()}
    assert set(texts) == {"won", "no legal move", "step limit", "no progress"}
    assert len(set(texts.values())) == 4
    first_words = {text.split(":")[0] for text in texts.values()}
    assert len(first_words) == 4


# ------------------------------------------------------------------ undo


def test_undo_restores_position_step_count_and_no_progress_count() -> None:
    game = Game("Streets", seed=3, max_steps_without_progress=50)
    start = game.base.get_state()
    game.play(game.parse("draw"))  # progress: the count stays 0
    assert (game.steps, game.base.steps_without_progress) == (1, 0)
    before = (game.base.get_state(), game.steps, game.base.steps_without_progress)
    obs_before = game.obs.copy()
    tableau = next(
        a
        for a in game.legal_actions()
        if game.base.action_to_move(a)[0] == "t" and ">t" in game.base.action_to_move(a)
    )
    game.play(tableau)
    assert (game.steps, game.base.steps_without_progress) == (2, 1)
    assert game.env._elapsed_steps == 2

    assert game.undo() == game.base.action_to_move(tableau)
    assert (game.base.get_state(), game.steps, game.base.steps_without_progress) == before
    assert game.env._elapsed_steps == 1  # TimeLimit's own count, not a copy of ours
    assert np.array_equal(game.obs, obs_before)
    assert game.moves == ["draw"] and game.undos == 1

    assert game.undo() == "draw"
    assert game.base.get_state() == start and game.steps == 0
    assert game.undo() is None  # nothing left to take back
    assert game.undos == 2


def test_undo_gives_the_step_back_to_the_step_limit() -> None:
    """With a limit of 3, draw, draw, undo, draw, draw still plays 3 standing moves before
    the limit: the taken-back move does not count."""
    game = Game("Streets", seed=3, max_steps=3)
    for word in ("d", "d"):
        game.play(game.parse(word))
    game.undo()
    game.play(game.parse("d"))
    assert game.end is None and game.steps == 2
    game.play(game.parse("d"))
    assert game.end == "step limit" and game.steps == 3 and len(game.moves) == 3


def test_undo_after_the_end_plays_on(
    losing_line: tuple[str, int, list[str]],
) -> None:
    variant, seed, moves = losing_line
    game = Game(variant, seed=seed)
    out = session(game, [*moves, "x", "u", "l"])
    assert "game over (u: undo, q: quit)> x" in out
    assert "the game is over: undo (u)" in out
    assert f"took back {moves[-1]}" in out
    assert game.end is None and game.moves == moves[:-1]
    assert f" 1 {game.base.action_to_move(game.legal_actions()[0])} (" in out


# ------------------------------------------------------------------ moves, list, hint


def test_moves_by_number_and_notation_with_case_and_spaces() -> None:
    game = Game("Streets", seed=3)
    legal = game.legal_actions()
    out = session(game, ["l", "2"])
    second = game.base.action_to_move(legal[1])
    assert f" 2 {second} (" in out
    assert game.moves == [second]
    game = Game("Streets", seed=3)
    upper = " ".join(second.upper())  # e.g. "T 1 > T 3"
    session(game, [upper, "D"])
    assert game.moves == [second, "draw"]


def entry(game: Game, k: int) -> str:
    """Move ``k`` of the numbered list as it shows it now: ``w>t2 (7D onto 8S)``."""
    action = game.legal_actions()[k - 1]
    move = game.base.action_to_move(action)
    return f"{move} ({describe_move(game.view(), game, action).plain})"


def test_a_number_plays_only_the_move_it_was_shown_for() -> None:
    """After ``l`` and a move, ``3`` named a move the player never saw, and it was played;
    now a number is played only when the list's entry is the one shown for it (by ``l`` or
    a hint), else it is refused and the list of the position is shown."""
    shown = Game("Streets", seed=3)
    old = entry(shown, 3)
    shown.play(shown.parse("d"))
    new, new_move = entry(shown, 3), entry(shown, 3).split()[0]
    assert new != old  # the draw changed move 3
    game = Game("Streets", seed=3)
    out = session(game, ["l", "d", "3"], width=400).splitlines()
    assert game.moves == ["draw"] and game.steps == 1  # refused: nothing played
    refusal = (
        f"move 3 not played: the list has changed since it was shown (3 was {old}, now it is "
        f"{new}); here it is, type the number again"
    )
    at = out.index(refusal)
    assert out[at - 1] == "move> 3"
    listed = "\n".join(out[at + 1 :])  # the list of the position, shown at once
    assert f" 3 {new}" in listed and f" 1 {entry(shown, 1)}" in listed
    game = Game("Streets", seed=3)
    session(game, ["l", "d", "3", "3"], width=400)
    assert game.moves == ["draw", new_move]  # the number typed again, from that list
    # a list never shown at this position: refused too, then played
    game = Game("Streets", seed=3)
    second = entry(game, 2).split()[0]
    out = session(game, ["2", "2"], width=400).splitlines()
    unseen = (
        "move 2 not played: the numbered list has not been shown for this position (the "
        "numbers change with every move); here it is, type the number again"
    )
    assert out[out.index("move> 2") + 1] == unseen and out.count(unseen) == 1
    assert game.moves == [second]  # played the second time only
    # the move taken back: the list is the one shown, its numbers stand
    game = Game("Streets", seed=3)
    session(game, ["l", "d", "u", "3"], width=400)
    assert game.moves == [old.split()[0]]
    # a hint shows its move's number: that number plays it
    game = Game("Streets", seed=3)
    hinted = GreedyAgent().act(game.obs, game.env)
    number = game.legal_actions().index(hinted) + 1
    session(game, ["h", str(number)], width=400)
    assert game.moves == [game.base.action_to_move(hinted)]


def test_an_illegal_move_names_the_reason_and_the_game_goes_on() -> None:
    game = Game("Streets", seed=3)
    legal = set(game.legal_actions())
    illegal = next(
        a for a in range(3 + 10, game.base.action_space.n) if a not in legal
    )  # a column move
    move = game.base.action_to_move(illegal)
    reason = game.base.rules.why_illegal(game.base.state, illegal)
    assert reason
    with pytest.raises(MoveError, match="illegal move"):
        game.parse(move)
    out = session(game, [move, "99", "d"])
    assert f"illegal move {move!r}: {reason}" in out
    assert f"there is no move 99: the list has 1..{len(legal)}" in out
    assert game.moves == ["draw"] and game.steps == 1  # the refused ones cost no step


def test_digits_that_are_not_decimal_are_refused_not_a_crash() -> None:
    # "²" and "⑷" are str.isdigit() but int() rejects them: they are refused as text
    # that is not a move; decimal digits of any script (Arabic-Indic "٢") are numbers.
    game = Game("Streets", seed=3)
    legal = game.legal_actions()
    for text in ("²", "1²", "⑷"):
        with pytest.raises(MoveError, match="is not a move"):
            game.parse(text)
    assert game.parse("\u0662") == legal[1]
    out = session(game, ["²", "d"])
    assert "'²' is not a move" in out
    assert game.moves == ["draw"]


def test_hint_is_greedys_choice_and_is_not_played() -> None:
    game = Game("Streets", seed=3)
    expected = GreedyAgent().act(game.obs, game.env)
    name = game.base.action_to_move(expected)
    out = session(game, ["h"])
    number = game.legal_actions().index(expected) + 1
    assert f"hint (greedy): {name} (move {number}: " in out
    assert game.steps == 0 and game.moves == [] and game.hints == 1


def test_hint_from_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fortythieves_agents.config import load_config
    from fortythieves_agents.envs import make_training_vec_env
    from fortythieves_agents.evaluation.evaluate import load_model_agent
    from fortythieves_agents.training.train import build_model

    from configs import PLAIN

    config = load_config(
        STREETS,
        [*PLAIN, "train.n_envs=1", "ppo.n_steps=16", "ppo.batch_size=16", "policy.features_dim=16"],
    )
    env = make_training_vec_env(config)
    path = tmp_path / "model.zip"
    build_model(config, env, None).save(path)
    env.close()
    agent, _ = load_model_agent(path, "Streets")
    game = Game("Streets", seed=3)
    expected = game.base.action_to_move(agent.act(game.obs, game.env))
    code, out, _ = play_cli(
        ["Streets", "--seed", "3", "--hint-model", str(path)], ["h"], monkeypatch, capsys
    )
    assert code == 0
    assert f"hint (ppo): {expected} (move " in out
    # a model of another variant is refused before the game starts
    code, out, err = play_cli(["Maria", "--hint-model", str(path)], ["h"], monkeypatch, capsys)
    assert code == 2 and out == ""
    assert err.startswith("fortythieves play: error: ") and "'Streets'" in err


def test_hint_from_a_model_made_for_little_forty_v0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model trained before observation version 1 gives hints from the -v0 observation
    (play has no --env-version; it was refused, naming an option play does not have)."""
    import gymnasium as gym
    from fortythieves_agents.evaluation.evaluate import load_model_agent
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    id_ = "FortyThieves/LittleForty-v0"
    venv = DummyVecEnv([lambda: gym.make(id_)])
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [8]}, device="cpu")
    model.fortythieves_variant = "LittleForty"
    model.fortythieves_env_id = id_
    path = tmp_path / "v0.zip"
    model.save(path)
    venv.close()
    agent, _ = load_model_agent(path, "LittleForty", env_version=0)
    game = Game("LittleForty", seed=3, observation_version=0)
    assert game.obs.shape == (244,)  # the -v0 observation
    assert Game("LittleForty", seed=3).obs.shape == (308,)
    expected = game.base.action_to_move(agent.act(game.obs, game.env))
    code, out, err = play_cli(
        ["LittleForty", "--seed", "3", "--hint-model", str(path)], ["h"], monkeypatch, capsys
    )
    assert code == 0, err
    assert f"hint (ppo): {expected} (move " in out


def test_help_lists_every_command() -> None:
    out = session(Game("Maria", seed=0), ["?"])
    for word in ("draw, d", "redeal", "t2>t0x3", "l, list", "h, hint", "u, undo", "q, quit"):
        assert word in out
    assert "(greedy)" in out


# ------------------------------------------------------------------ the table


def test_the_table_in_colour_red_suits_red() -> None:
    game = Game("Streets", seed=3)
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, force_terminal=True, color_system="standard")
    console.print(render_table(game))
    out = buffer.getvalue()
    view = game.view()
    seen = {code for column in view.tableau for code in column}
    assert any(RED[c] for c in seen) and any(not RED[c] for c in seen)
    for code in seen:
        name = CARD_NAMES[code]
        if RED[code]:
            assert f"\x1b[1;31m{name}" in out, name
        else:
            assert f"\x1b[1m{name}" in out and f"\x1b[1;31m{name}" not in out, name


def test_the_table_shows_what_a_player_sees() -> None:
    game = Game("NumberTen", seed=11)  # two face-down cards under each column
    buffer = io.StringIO()
    Console(file=buffer, width=120, color_system=None).print(render_table(game))
    lines = buffer.getvalue().splitlines()
    assert lines[0].startswith("Number Ten, seed 11   step 0/1000")
    assert "stock 64   waste --" in lines[1]
    assert lines[4].split() == [f"t{i}" for i in range(10)]
    assert lines[5].split() == ["##"] * 10 and lines[6].split() == ["##"] * 10
    view = game.view()
    assert lines[7].split() == [CARD_NAMES[col[0]] for col in view.tableau]
    hidden = game.base.get_state()["tableau"][0][0]  # a face-down card's name ...
    assert all(hidden not in line.split() for line in lines[5:7])  # ... is not shown there


# ------------------------------------------------------------------ deals and refusals


def test_random_seed_is_shown_and_replays_the_deal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = play_cli(["Maria"], ["q"], monkeypatch, capsys)
    assert code == 0
    seed = int(out.split("seed ", 1)[1].split()[0])
    again = Game("Maria", seed=seed)
    buffer = io.StringIO()
    Console(file=buffer, width=80, color_system=None).print(render_table(again))
    assert buffer.getvalue().splitlines()[5] in out


def test_pysol_deal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pysol_cards", reason="the pysol extra is not installed")
    game = Game("Streets", pysol_deal=5)
    env = FortyThievesEnv("Streets")
    env.reset(options={"pysol_deal": 5})
    assert game.start == env.get_state()
    code, out, _ = play_cli(["Streets", "--pysol-deal", "5"], ["q"], monkeypatch, capsys)
    assert code == 0 and "Streets, PySolFC deal 5" in out


def test_quitting_early_saves_an_unfinished_record_that_replay_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --save F`` then ``q`` wrote nothing; now F holds the moves played, marked
    unfinished, and ``replay`` checks it and says so."""
    save = tmp_path / "game.json"
    code, out, _ = play_cli(
        ["Streets", "--seed", "3", "--save", str(save)], ["d", "d", "q"], monkeypatch, capsys
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[-2:] == [
        "stopped before the end; the 2 moves played: draw draw",
        f"unfinished game record written to {save} (fortythieves replay {save})",
    ]
    game = Game("Streets", seed=3)
    game.play(game.parse("d"))
    game.play(game.parse("d"))
    cards = game.view().foundation_cards
    data = json.loads(save.read_text())
    assert data["format_version"] == FORMAT_VERSION and data["moves"] == ["draw", "draw"]
    assert data["outcome"] == {
        "won": False,
        "foundation_cards": cards,
        "length": 2,
        "terminated": False,
        "truncated": False,
        "stuck": False,
        "unfinished": True,
    }
    record = load_record(save)
    assert verify(record)["unfinished"] is True
    assert type(record).from_json(record.to_json()) == record  # the mark round-trips
    assert main(["replay", str(save), "--all"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"Streets, seed 3, played by human: unfinished (stopped before the end), with {cards} "
        "foundation cards in 2 moves"
    )
    # the mark must be true: an unfinished game not marked so, or a finished game marked
    # unfinished, is refused (one line, exit 2)
    data["outcome"]["unfinished"] = False
    save.write_text(json.dumps(data))
    assert main(["replay", str(save), "--all"]) == 2
    assert capsys.readouterr().err == (
        f"fortythieves replay: error: {save}: the game has not ended after the record's 2 moves "
        "(and is not marked unfinished)\n"
    )
    ended = Game("Streets", seed=3, max_steps=2)
    ended.play(ended.parse("d"))
    ended.play(ended.parse("d"))
    assert ended.end == "step limit"
    data = ended.record().to_json()
    data["outcome"].update(truncated=False, unfinished=True)
    save.write_text(json.dumps(data))
    assert main(["replay", str(save), "--all"]) == 2
    assert capsys.readouterr().err == (
        f"fortythieves replay: error: {save}: the outcome differs from the replay: truncated "
        "False (replay: True), unfinished True (replay: False)\n"
    )
    code, _, _ = play_cli(
        ["Streets", "--seed", "3", "--save", str(save)], ["q"], monkeypatch, capsys
    )
    assert code == 0 and load_record(save).moves == []  # no move yet: a record of the deal
    # the end of the input quits too
    code, out, _ = play_cli(["Streets", "--seed", "3"], ["d"], monkeypatch, capsys)
    assert code == 0 and "the move played: draw" in out
    # ... also before any move, with a closing line
    code, out, _ = play_cli(["Streets", "--seed", "3"], [], monkeypatch, capsys)
    assert code == 0 and out.rstrip().endswith("stopped before the end; no move played")


def test_ctrl_c_saves_an_unfinished_record_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "game.json"
    typed = iter(["d"])

    def read(_console: Console, prompt: str = "") -> str:
        line = next(typed, None)
        if line is None:
            raise KeyboardInterrupt
        return line

    monkeypatch.setattr(Console, "input", read)
    assert main(["play", "Streets", "--seed", "3", "--save", str(save)]) == 130
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:] == [
        "interrupted",
        "stopped before the end; the move played: draw",
        f"unfinished game record written to {save} (fortythieves replay {save})",
    ]
    record = load_record(save)
    assert record.moves == ["draw"] and verify(record)["unfinished"] is True


def test_record_after_undo_holds_the_standing_moves(
    losing_line: tuple[str, int, list[str]], tmp_path: Path
) -> None:
    variant, seed, moves = losing_line
    save = tmp_path / "g.json"
    game = Game(variant, seed=seed)
    session(game, ["d", "u", "h", *moves], save=save)
    record = json.loads(save.read_text())
    assert record["moves"] == moves
    assert record["agent"] == {"name": "human", "hints": 1, "undos": 1}
    assert record["outcome"]["terminated"] and not record["outcome"]["won"]
    assert verify(load_record(save))["length"] == len(moves)


PLAY_BAD = [
    (["Streets", "--seed", "1", "--pysol-deal", "2"], ["--pysol-deal", "--seed"]),
    (["Lucas", "--pysol-deal", "2"], ["--pysol-deal", "Lucas"]),
    (["Streets", "--pysol-deal", "0"], ["--pysol-deal", "'0'"]),
    (["Streets", "--seed", "-1"], ["--seed", "-1"]),
    (["Streets", "--max-steps", "0"], ["--max-steps", "'0'"]),
    (["Streets", "--max-steps-without-progress", "x"], ["--max-steps-without-progress"]),
    (["Klondike"], ["Klondike"]),
    (["Streets", "--hint-model", "{missing}"], ["--hint-model", "{missing}"]),
    (["Streets", "--save", "{under_file}"], ["--save"]),
]


@pytest.mark.parametrize(("argv", "names"), PLAY_BAD, ids=lambda v: " ".join(v))
def test_bad_play_arguments_are_one_line_and_exit_2(
    argv: list[str],
    names: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = tmp_path / "a_file"
    file.write_text("x")
    values = {"missing": str(tmp_path / "none.zip"), "under_file": str(file / "g.json")}
    argv = [a.format(**values) for a in argv]
    code, out, err = play_cli(argv, ["q"], monkeypatch, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fortythieves play: error: "), err
    for name in names:
        assert name.format(**values) in lines[0], (name, lines[0])
