"""Starting from a teacher (agents/training/teacher.py): teacher games, behaviour cloning, the imitation
term, the config keys and how train uses them (step-0 validation, resume without cloning).

Budgets are tiny (Streets games cut at 40 steps, small networks): each test takes seconds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from fortythieves_agents.config import Config, ConfigError, load_config
from fortythieves_agents.envs import make_training_vec_env
from fortythieves_agents.players.baselines import greedy_actions
from fortythieves_agents.seeds import is_training_seed
from fortythieves_agents.training.teacher import (
    TEACHERS,
    ImitationTerm,
    TeacherGames,
    clone_teacher,
    collect_teacher_games,
    held_out,
    make_teacher,
    teacher_metrics,
)
from fortythieves_agents.training.train import build_model, train
from helpers import CONFIGS, STREETS

from configs import PLAIN

SMALL = [
    *PLAIN,
    "train.n_envs=2",
    "ppo.n_steps=64",
    "ppo.batch_size=64",
    "ppo.n_epochs=1",
    "policy.features_dim=32",
    "policy.net_arch_pi=[32]",
    "policy.net_arch_vf=[32]",
    "policy.player.card_dim=8",
    "policy.player.column_dim=32",
    "policy.player.state_dim=32",
    "policy.player.scorer_arch=[32]",
    "policy.player.value_arch=[32]",
    "train.progress_bar=false",
    "train.tensorboard=false",
    "env.max_episode_steps=40",
    "train.teacher=greedy",
    "teacher.batch_size=64",
    "teacher.learning_rate=3e-3",
]


def small_config(*extra: str) -> Config:
    return load_config(STREETS, [*SMALL, *extra])


@pytest.fixture(scope="module")
def games_100() -> tuple[Config, TeacherGames]:
    config = small_config("teacher.games=100")
    return config, collect_teacher_games(config, make_teacher("greedy"), 100)


# ------------------------------------------------------------------ teacher games


def test_teacher_games_are_greedy_moves_on_training_deals(
    games_100: tuple[Config, TeacherGames],
) -> None:
    config, data = games_100
    assert data.lengths.shape == (100,) and np.all(data.lengths == 40)  # cut at 40 steps
    assert len(data) == 100 * 40 and sorted(set(data.game.tolist())) == list(range(100))
    masks = data.mask_rows(np.arange(len(data)))
    assert masks[np.arange(len(data)), data.actions].all()  # every recorded move is legal
    spec = make_training_vec_env(config).get_attr("variant")[0]
    assert np.array_equal(greedy_actions(spec, data.obs, masks.astype(np.int8)), data.actions)
    # returns: discounted training rewards; the last move's return is its own reward
    assert np.all(data.returns >= 0) and data.returns.max() > 0
    # the deals: BatchedVecEnv draws from default_rng((seed + 2**32, i)) in the training range
    from fortythieves_agents.envs import BatchedVecEnv

    env = BatchedVecEnv(config.env, 2, config.seed + 2**32)
    env.reset()
    deals = [info["deal_seed"] for info in env.reset_infos]
    env.close()
    assert all(is_training_seed(d) for d in deals)
    again = collect_teacher_games(config, make_teacher("greedy"), 100)
    assert np.array_equal(again.obs, data.obs) and np.array_equal(again.actions, data.actions)


def test_teacher_games_follow_the_game_order_not_the_stop(
    games_100: tuple[Config, TeacherGames],
) -> None:
    """Games are kept by their number, so a batch smaller than the game count gives the same
    games as one large batch."""
    config, data = games_100
    small = collect_teacher_games(config, make_teacher("greedy"), 10, batch=3)
    first = np.isin(data.game, np.arange(3))  # games 0..2 start in both, on the same deals
    assert np.array_equal(small.obs[np.isin(small.game, np.arange(3))], data.obs[first])
    assert small.lengths.shape == (10,)


def test_only_the_kept_games_ask_the_teacher(games_100: tuple[Config, TeacherGames]) -> None:
    """Slots freed near the end start surplus games, which are dropped: the teacher is not
    asked about them (a search teacher would spend most of its time there), and the kept
    games are the ones a teacher asked about every game would have played."""
    config, data = games_100
    asked: list[int] = []

    class Spy:
        def __init__(self) -> None:
            self.inner = make_teacher("greedy")
            self.name = "spy"

        def start_games(self, spec: object, games: np.ndarray) -> None:
            self.inner.start_games(spec, games)

        def end_games(self, games: np.ndarray) -> None:
            self.inner.end_games(games)

        def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
            asked.extend(games.tolist())
            return self.inner.act_batch(obs, masks, games)

    few = collect_teacher_games(config, Spy(), 5, batch=4)  # type: ignore[arg-type]
    assert set(asked) == set(range(5))  # games 5.. started in freed slots, never asked
    assert few.lengths.shape == (5,) and np.all(few.lengths == 40)
    # games 0..3 start in slots 0..3 in both runs, on the same deals: the same moves
    first = np.isin(few.game, np.arange(4))
    assert np.array_equal(few.obs[first], data.obs[np.isin(data.game, np.arange(4))])
    assert np.array_equal(few.actions[first], data.actions[np.isin(data.game, np.arange(4))])


def _replay_views(config: Config, data: TeacherGames, game: int) -> list[int]:
    """The player's view hashes of teacher game ``game`` (its start, then after every move),
    replayed on a fresh env dealt the same training deal."""
    from fortythieves_agents.envs import BatchedVecEnv

    from fortythieves_env.rules.core import view_hash

    env = BatchedVecEnv(config.env, 1, config.seed + 2**32)  # game 0 is slot 0's first deal
    try:
        env.reset()
        venv = env.venv.unwrapped
        tables = venv.tables.table
        hashes = [int(view_hash(venv.states[0], tables))]
        for action in data.actions[data.game == game]:
            _, _, dones, _ = env.step(np.array([action]))
            if dones[0]:
                break
            hashes.append(int(view_hash(venv.states[0], tables)))
    finally:
        env.close()
    return hashes


def test_teacher_games_follow_the_no_cycling_rule_when_asked() -> None:
    """``teacher.no_cycling`` (with ``train.no_cycling``): the teacher's games never come back
    to a view seen in the game; without it, greedy's do (it shuttles cards), so the test can
    fail. The rule's own tests are in tests/agents/test_cycles.py."""
    base = ["train.no_cycling=true", "env.max_episode_steps=200", "teacher.games=4"]
    repeats = {}
    for rule in (False, True):
        config = small_config(*base, f"teacher.no_cycling={str(rule).lower()}")
        data = collect_teacher_games(config, make_teacher("greedy"), 4, batch=1)
        views = _replay_views(config, data, 0)
        repeats[rule] = len(views) - len(set(views))
        masks = data.mask_rows(np.arange(len(data)))
        assert masks[np.arange(len(data)), data.actions].all()
    assert repeats[True] == 0
    assert repeats[False] > 0
    # the rule needs train.no_cycling: the teacher plays the game PPO trains on
    with pytest.raises(ConfigError, match=r"teacher\.no_cycling needs train\.no_cycling: true"):
        small_config(*base[1:], "teacher.no_cycling=true")


def test_tied_targets_are_the_teachers_equal_best_moves(
    games_100: tuple[Config, TeacherGames],
) -> None:
    """``teacher.ties: any``: each row's target is the set of legal moves greedy scores as
    high as its choice (the choice among them, the lowest index of the set); the moves and
    games are the same as with ``first``."""
    config, first = games_100
    data = collect_teacher_games(
        small_config("teacher.games=100", "teacher.ties=any"), make_teacher("greedy"), 100
    )
    assert first.ties is None and first.target_rows(np.arange(3)) is None
    assert np.array_equal(data.actions, first.actions) and np.array_equal(data.obs, first.obs)
    rows = np.arange(len(data))
    targets = data.target_rows(rows)
    masks = data.mask_rows(rows)
    teacher = make_teacher("greedy")
    teacher.start_games(make_training_vec_env(config).get_attr("variant")[0], np.arange(1))
    scores = teacher.action_scores(data.obs, masks.astype(np.int8), data.game)
    assert np.array_equal(targets, scores == scores.max(axis=1, keepdims=True))
    assert not (targets & ~masks).any()
    assert np.array_equal(np.argmax(targets, axis=1), data.actions)  # lowest index of the set
    sizes = targets.sum(axis=1)
    assert sizes.min() == 1 and (sizes > 1).mean() > 0.05  # greedy ties are common


def test_the_tied_loss_is_minus_log_of_the_sets_probability(
    games_100: tuple[Config, TeacherGames],
) -> None:
    """The cloning loss with ties is ``-log sum_{a in T} pi(a)``; with one-move sets it is the
    plain cross-entropy; agreement counts the policy's most likely move if it is in ``T``."""
    from dataclasses import replace

    from fortythieves_agents.training.teacher import _cross_entropy, _tensors

    config, first = games_100
    data = collect_teacher_games(
        small_config("teacher.games=100", "teacher.ties=any"), make_teacher("greedy"), 100
    )
    model = build_model(config, make_training_vec_env(config), None)
    rows = np.arange(200)
    obs, masks, actions, targets = _tensors(model.policy, data, rows)
    with torch.no_grad():
        loss, distribution = _cross_entropy(model.policy, obs, masks, actions, targets)
        probs = distribution.distribution.probs.numpy()
    sets = data.target_rows(rows)
    expected = -np.mean(np.log((probs * sets).sum(axis=1)))
    assert float(loss) == pytest.approx(expected, rel=1e-5)
    single = replace(data, ties=np.packbits(np.eye(data.n_actions, dtype=bool)[data.actions], 1))
    with torch.no_grad():
        loss_single = _cross_entropy(model.policy, *_tensors(model.policy, single, rows))[0]
        loss_plain = _cross_entropy(model.policy, *_tensors(model.policy, first, rows))[0]
    assert float(loss_single) == pytest.approx(float(loss_plain), rel=1e-5)
    metrics = teacher_metrics(model.policy, data, rows)
    picked = probs.argmax(axis=1)
    assert metrics["accuracy"] == pytest.approx(np.mean(sets[np.arange(200), picked]))
    assert metrics["accuracy"] >= teacher_metrics(model.policy, first, rows)["accuracy"]


def test_held_out_is_every_tenth_game(games_100: tuple[Config, TeacherGames]) -> None:
    _, data = games_100
    rows = held_out(data)
    assert set(data.game[rows].tolist()) == {9, 19, 29, 39, 49, 59, 69, 79, 89, 99}


# ------------------------------------------------------------------ behaviour cloning


@pytest.mark.parametrize(
    ("network", "threshold"),
    [("player", 0.8), ("card_slots", 0.6)],
)
def test_cloning_agrees_with_greedy_on_held_out_games(
    games_100: tuple[Config, TeacherGames],
    network: str,
    threshold: float,
) -> None:
    """Measured (90 training games of 40 moves, 6 epochs): held-out agreement 86% for the
    player network, 69% for card_slots (which reads cards by position and needs more games);
    before cloning 24% and 38%. Greedy breaks ties by the lowest action index, which the
    player network cannot see, so 100% is out of reach."""
    _, data = games_100
    config = small_config(f"policy.network={network}", "teacher.epochs=6")
    model = build_model(config, make_training_vec_env(config), None)
    report = clone_teacher(model, data, config.teacher, config.ppo.max_grad_norm, config.seed)
    assert report["held_out_games"] == 10
    assert report["after"]["accuracy"] > threshold
    assert report["after"]["accuracy"] > report["before"]["accuracy"] + 0.25
    assert report["after"]["loss"] < report["before"]["loss"]
    assert report["after"]["illegal_probability"] == 0.0  # masking: nothing on illegal moves
    # the value fit moved the critic towards the returns, and left the actor as it was
    assert report["value_fitted"]
    assert report["after"]["value_mse"] < report["before"]["value_mse"]
    # the model plays its most likely legal move: the measured agreement is how it plays
    from fortythieves_agents.evaluation.evaluate import ModelAgent

    rows = np.flatnonzero(held_out(data))
    agent = ModelAgent(model)
    chosen = agent.act_batch(data.obs[rows], data.mask_rows(rows).astype(np.int8), rows)
    assert np.mean(chosen == data.actions[rows]) == pytest.approx(report["after"]["accuracy"])


def test_value_fit_leaves_the_actor_unchanged(games_100: tuple[Config, TeacherGames]) -> None:
    _, data = games_100
    rows = np.flatnonzero(held_out(data))
    results = {}
    for fit in (False, True):
        config = small_config("teacher.epochs=2", f"teacher.fit_value={str(fit).lower()}")
        model = build_model(config, make_training_vec_env(config), None)
        report = clone_teacher(model, data, config.teacher, config.ppo.max_grad_norm, 0)
        results[fit] = (report, teacher_metrics(model.policy, data, rows))
    # same seed, same cloning: the policy is the same whether the critic was fitted or not
    assert results[True][1]["loss"] == pytest.approx(results[False][1]["loss"], abs=1e-6)
    assert results[True][1]["value_mse"] < results[False][1]["value_mse"]
    assert not results[False][0]["value_fitted"]


# ------------------------------------------------------------------ imitation term


def test_imitation_coefficient_decays_linearly_to_zero(
    games_100: tuple[Config, TeacherGames],
) -> None:
    _, data = games_100
    term = ImitationTerm(data, coef=0.8, fraction=0.5, total_timesteps=1000, batch_size=32)
    assert term.coef_at(0) == pytest.approx(0.8)
    assert term.coef_at(250) == pytest.approx(0.4)
    assert term.coef_at(500) == 0.0 and term.coef_at(900) == 0.0
    with pytest.raises(ValueError, match="fraction"):
        ImitationTerm(data, coef=0.5, fraction=0.0, total_timesteps=1000, batch_size=32)


def test_imitation_term_adds_its_gradient_to_the_ppo_loss(
    games_100: tuple[Config, TeacherGames],
) -> None:
    """Inside training, after ``zero_grad`` the gradients are ``coef_t`` times the teacher
    cross-entropy's; at coefficient 0 they stay zero; ``remove`` puts zero_grad back."""
    _, data = games_100
    config = small_config()
    model = build_model(config, make_training_vec_env(config), None)
    term = ImitationTerm(data, coef=0.5, fraction=1.0, total_timesteps=1000, batch_size=16)
    term.init_callback(model)
    term.install()
    optimizer = model.policy.optimizer
    params = [p for p in model.policy.parameters()]
    term.current = 0.5
    optimizer.zero_grad()
    norm_half = torch.norm(torch.stack([p.grad.norm() for p in params if p.grad is not None]))
    assert norm_half > 0 and len(term.losses) == 1
    term.current = 0.0
    optimizer.zero_grad()
    assert all(p.grad is None or not p.grad.any() for p in params)
    term.remove()
    assert "zero_grad" not in vars(optimizer)


# ------------------------------------------------------------------ config


def test_teacher_config_validation() -> None:
    with pytest.raises(ConfigError, match="unknown teacher 'oracle'; known teachers: greedy"):
        load_config(STREETS, ["train.teacher=oracle"])
    with pytest.raises(ConfigError, match=r"teacher\.games"):
        load_config(STREETS, ["teacher.games=0"])
    with pytest.raises(ConfigError, match=r"teacher\.imitation_fraction"):
        load_config(STREETS, ["teacher.imitation_fraction=1.5"])
    with pytest.raises(ConfigError, match=r"teacher\.imitation_coef"):
        load_config(STREETS, ["teacher.imitation_coef=-1"])
    with pytest.raises(ConfigError, match=r"teacher\.batch_sizes: unknown key"):
        load_config(STREETS, ["teacher.batch_sizes=3"])
    assert load_config(STREETS).train.teacher == "greedy"  # the shipped recipe starts from greedy
    with pytest.raises(ValueError, match="known teachers: greedy"):
        make_teacher("random")
    assert "greedy" in TEACHERS
    # the config's check reads its own list of names: it must name exactly the teachers made
    from fortythieves_agents.config import TEACHER_NAMES

    assert tuple(TEACHERS) == TEACHER_NAMES


def test_config_without_teacher_keys_still_loads(tmp_path: Path) -> None:
    """Run folders written before the teacher keys existed keep loading (resume, evaluate)."""
    import yaml

    data = yaml.safe_load((CONFIGS / "defaults.yaml").read_text())
    del data["teacher"]
    del data["train"]["teacher"]
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump(data))
    config = load_config(old)
    assert config.train.teacher is None and config.teacher.games == 200


def test_imitation_schedule_change_is_said_when_a_resume_moves_the_term() -> None:
    """Rank and File's term (coef 1.0, fraction 0.5) on its shipped 1.2M-step model continued
    to 4M steps: 0 in the saved run, 0.4 in the new one (the fault a session met)."""
    from fortythieves_agents.training.phases import imitation_schedule, imitation_schedule_change

    def rf(*extra: str) -> Config:
        return load_config(CONFIGS / "rankandfile.yaml", ["train.critic_warmup=0", *extra])

    config = rf("train.total_timesteps=4000000")
    said = imitation_schedule_change(config, 1_200_128, 1_200_128, rollout=2048)
    assert said is not None
    assert "falls to 0 at step 2000000" in said and "checkpoint's run at step 600064" in said
    assert "weight 0 at step 1200128 there, 0.4 here" in said
    assert "--set teacher.imitation_fraction=0.150016 keeps" in said
    off = rf("train.total_timesteps=4000000", "teacher.imitation_coef=0")
    assert imitation_schedule_change(off, 1_200_128, 1_200_128) is None
    # an interrupted run resumed with its own total (planned rounded up to whole rollouts)
    same = rf("train.total_timesteps=50000")
    assert imitation_schedule_change(same, 24_576, 51_200, rollout=2048) is None
    assert imitation_schedule_change(rf(), 300_000, 1_200_128, rollout=2048) is None
    assert imitation_schedule_change(rf(), 300_000, None) is None
    # an early checkpoint: the same weight now, but the term lasts 2M steps instead of 600k
    said = imitation_schedule_change(config, 2048, 1_200_128, rollout=2048)
    assert said is not None and "fraction=0.150016 keeps" in said
    # the checkpoint's own schedule, when it records one: following the hint silences it
    earlier = imitation_schedule(rf())
    assert imitation_schedule_change(config, 299_008, 1_200_128, earlier) is not None
    kept = rf("train.total_timesteps=4000000", "teacher.imitation_fraction=0.15")
    assert imitation_schedule_change(kept, 299_008, 1_200_128, earlier) is None
    # a smaller total: the term ends sooner; no fraction above 1 keeps the old schedule
    short = rf("train.total_timesteps=400000")
    said = imitation_schedule_change(short, 100_000, 1_200_128, rollout=2048)
    assert said is not None and "weight 0.833 at step 100000 there, 0.5 here" in said
    assert "imitation_fraction=" not in said
    assert said.endswith("--set teacher.imitation_coef=0 turns it off")


# ------------------------------------------------------------------ train


def test_train_clones_then_validates_at_step_0_and_resume_does_not_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    run = tmp_path / "run"
    overrides = [
        "teacher.games=20",
        "teacher.epochs=2",
        "teacher.imitation_coef=0.5",
        "train.total_timesteps=128",
        "train.checkpoint_freq=128",
        "eval.eval_freq=128",
        "eval.n_eval_episodes=2",
        "eval.final_episodes=0",
    ]
    console = Console(file=open(tmp_path / "out.txt", "w"))  # noqa: SIM115
    result = train(small_config(*overrides), run_dir=run, argv=["t"], console=console)
    assert result.status == "completed"
    meta = json.loads((run / "run.json").read_text())
    teacher = meta["teacher"]
    assert teacher["name"] == "greedy" and teacher["games"] == 20
    clone = teacher["behaviour_cloning"]
    assert clone["after"]["accuracy"] > clone["before"]["accuracy"]
    assert teacher["validation_after_cloning"]["episodes"] == 2
    cards = np.load(run / "eval" / "foundation_cards.npz")
    assert cards["timesteps"].tolist() == [0, 128]  # the curve starts right after cloning
    assert teacher["validation_after_cloning"]["mean_foundation_cards"] == pytest.approx(
        cards["foundation_cards"][0].mean()
    )
    assert (run / "models" / "teacher_model.zip").is_file()

    import fortythieves_agents.training.teacher as teacher_module

    def no_cloning(*args: object, **kwargs: object) -> None:
        raise AssertionError("behaviour cloning on resume")

    monkeypatch.setattr(teacher_module, "clone_teacher", no_cloning)
    resumed = train(
        small_config(*overrides[:-5], "train.total_timesteps=256", *overrides[-4:]),
        run_dir=run,
        resume=run / "models" / "final_model.zip",
        argv=["t"],
        console=console,
    )
    assert resumed.status == "completed" and resumed.timesteps == 256
    meta = json.loads((run / "run.json").read_text())
    assert meta["teacher"]["behaviour_cloning"] == clone  # the earlier entry is kept
    cards = np.load(run / "eval" / "foundation_cards.npz")
    # the resume keeps the run's earlier validations (step 0 after cloning, 128) and adds
    # its own (256); it validates at its start step no second time
    assert cards["timesteps"].tolist() == [0, 128, 256]
    # the term had fallen to 0 at 128 steps in both schedules: no warning so far
    assert "imitation term" not in (tmp_path / "out.txt").read_text()

    # continued to 640 steps, the term (0 from step 128 in the schedule the checkpoint
    # records) comes back at 0.5 * (1 - 256 / 320) = 0.1: said before training, with the
    # fraction that keeps it off
    again = train(
        small_config(*overrides[:-5], "train.total_timesteps=640", *overrides[-4:]),
        run_dir=run,
        resume=run / "models" / "final_model.zip",
        argv=["t"],
        console=console,
    )
    assert again.status == "completed"
    console.file.flush()
    out = " ".join((tmp_path / "out.txt").read_text().split())  # the console wraps lines
    assert "in the checkpoint's run at step 128 (coef 0.5): weight 0 at step 256 there, 0.1" in out
    assert "--set teacher.imitation_fraction=0.2 keeps" in out


def test_ctrl_c_during_cloning_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fortythieves_agents.training.teacher as teacher_module
    from rich.console import Console

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(teacher_module, "clone_teacher", interrupted)
    run = tmp_path / "run"
    config = small_config(
        "teacher.games=3", "train.total_timesteps=64", "eval.eval_freq=0", "eval.final_episodes=0"
    )
    out = tmp_path / "out.txt"
    result = train(config, run_dir=run, argv=["t"], console=Console(file=open(out, "w")))  # noqa: SIM115
    assert result.status == "interrupted" and result.model_path is None
    assert not run.exists() or not any(run.rglob("*"))
    assert "nothing was written" in out.read_text()


def test_teacher_games_and_cloning_show_progress(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 37 point 8: the quick start printed nothing for minutes after "teacher greedy:
    playing 200 games"; with the progress bar on, the teacher's games and the behaviour
    cloning (its minibatches, policy then value) count up on stderr, to their totals."""
    from fortythieves_agents.training import teacher as teacher_module

    bars: list[Any] = []
    make_bar = teacher_module._bar

    def kept(*args: Any) -> Any:
        bars.append(make_bar(*args))
        return bars[-1]

    monkeypatch.setattr(teacher_module, "_bar", kept)
    config = small_config("teacher.epochs=2")
    data = collect_teacher_games(config, make_teacher("greedy"), 12, progress=True)
    assert "teacher games" in capsys.readouterr().err
    model = build_model(config, make_training_vec_env(config), None)
    clone_teacher(model, data, config.teacher, config.ppo.max_grad_norm, 0, progress=True)
    assert "behaviour cloning" in capsys.readouterr().err
    train_rows = int((~held_out(data)).sum())
    batches = 2 * 2 * -(-train_rows // config.teacher.batch_size)  # 2 epochs, 2 passes
    assert [(bar.desc, bar.n, bar.total) for bar in bars] == [
        ("teacher games", 12, 12),
        ("behaviour cloning", batches, batches),
    ]
    collect_teacher_games(config, make_teacher("greedy"), 2)  # no bar unless asked
    assert capsys.readouterr().err == ""


def test_train_says_when_numba_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 37 point 8: a first run compiles its kernels for minutes after the teacher's
    first line; ``train`` now says so when numba starts compiling (here a fresh kernel the
    teacher calls), once, and not on a run that compiles nothing."""
    import numba
    from fortythieves_agents.training import teacher as teacher_module
    from fortythieves_agents.training.train import COMPILE_NOTICE
    from rich.console import Console

    @numba.njit
    def fresh(x: int) -> int:
        return x + 1

    made = teacher_module.make_teacher

    def compiling_teacher(*args: object, **kwargs: object) -> object:
        fresh(1)
        return made(*args, **kwargs)

    monkeypatch.setattr(teacher_module, "make_teacher", compiling_teacher)
    config = small_config(
        "teacher.games=3",
        "teacher.epochs=1",
        "train.total_timesteps=64",
        "eval.eval_freq=0",
        "eval.final_episodes=0",
    )
    for name in ("first", "second"):
        out = tmp_path / f"{name}.txt"
        with open(out, "w") as file:
            console = Console(file=file, soft_wrap=True)
            result = train(config, run_dir=tmp_path / name, argv=["t"], console=console)
        assert result.status == "completed"
        lines = out.read_text().splitlines()
        if name == "first":  # said before the teacher's games end (a cold cache: earlier)
            games = next(i for i, line in enumerate(lines) if line.startswith("teacher games:"))
            assert lines.count(COMPILE_NOTICE) == 1 and lines.index(COMPILE_NOTICE) < games
        else:
            assert COMPILE_NOTICE not in lines


def test_the_search_agent_can_teach() -> None:
    """Issue 10.5: ``train.teacher: search`` collects the search agent's games (its budget
    from ``teacher.search_samples``), and cloning runs on them as on greedy's."""
    from fortythieves_agents.players.search import SearchAgent

    config = small_config("train.teacher=search", "teacher.search_samples=2")
    assert config.train.teacher == "search" and config.teacher.search_samples == 2
    teacher = make_teacher("search", config.seed, config.teacher.search_samples)
    assert isinstance(teacher, SearchAgent) and teacher.budget.samples == 2
    data = collect_teacher_games(config, teacher, 3)
    masks = data.mask_rows(np.arange(len(data)))
    assert masks[np.arange(len(data)), data.actions].all()  # every recorded move is legal
    assert sorted(set(data.game.tolist())) == [0, 1, 2]
    # the search agent's own choices: replaying its scores on the recorded positions
    again = make_teacher("search", config.seed, 2)
    again.start_games(make_training_vec_env(config).get_attr("variant")[0], np.array([0]))
    first = data.game == 0
    chosen = again.act_batch(
        data.obs[first][:5], masks[first][:5].astype(np.int8), np.zeros(5, dtype=np.int64)
    )
    assert np.array_equal(chosen, data.actions[first][:5])
    with pytest.raises(ConfigError, match="search_samples"):
        small_config("train.teacher=search", "teacher.search_samples=0")


# ------------------------------------------------------------------ critic warm-up


def _weights(path: Path) -> dict[str, torch.Tensor]:
    from sb3_contrib import MaskablePPO

    return dict(MaskablePPO.load(path, device="cpu").policy.state_dict())


@pytest.mark.parametrize("network", ["player", "card_slots"])
def test_critic_warmup_trains_the_critic_and_holds_the_actor(tmp_path: Path, network: str) -> None:
    """``train.critic_warmup``: during the first steps only the parameters the actor's
    distribution does not depend on change (the cloned actor is exactly the teacher model's);
    from the warm-up's end on the actor learns; without warm-up it learns from the start."""
    from fortythieves_agents.training.teacher import actor_parameters
    from rich.console import Console

    overrides = [
        f"policy.network={network}",
        "teacher.games=10",
        "teacher.epochs=1",
        "teacher.imitation_coef=0.5",  # waits while the actor is frozen
        "eval.eval_freq=0",
        "eval.final_episodes=0",
        "train.checkpoint_freq=128",
    ]
    console = Console(file=open(tmp_path / "out.txt", "w"))  # noqa: SIM115
    runs = {}
    for warmup in (0, 256):
        run = tmp_path / f"warmup{warmup}"
        config = small_config(
            *overrides, "train.total_timesteps=384", f"train.critic_warmup={warmup}"
        )
        assert train(config, run_dir=run, argv=["t"], console=console).status == "completed"
        runs[warmup] = run
    model = build_model(small_config(*overrides), make_training_vec_env(small_config()), None)
    obs, _ = model.policy.obs_to_tensor(model.env.reset())
    masks = torch.as_tensor(np.stack(model.env.env_method("action_masks"))).bool()
    ids = actor_parameters(model.policy, obs.float(), masks)
    names = {n for n, p in model.policy.named_parameters() if id(p) in ids}
    assert names and len(names) < len(dict(model.policy.named_parameters()))

    def moved(run: Path, checkpoint: str) -> tuple[bool, bool]:
        """(actor moved, critic moved) from the clone to ``checkpoint``."""
        start = _weights(run / "models" / "teacher_model.zip")
        now = _weights(run / "models" / checkpoint)
        changed = {n for n in names | set(start) if not torch.equal(start[n], now[n])}
        return bool(changed & names), bool(changed - names)

    # rollouts of 128 steps; a checkpoint at step k is saved before the update of its
    # rollout: with warm-up the updates of steps 128 and 256 train the critic only
    assert moved(runs[256], "checkpoints/ckpt_384_steps.zip") == (False, True)
    assert moved(runs[256], "final_model.zip") == (True, True)
    assert moved(runs[0], "checkpoints/ckpt_256_steps.zip") == (True, True)
    with pytest.raises(ConfigError, match=r"train\.critic_warmup"):
        small_config("train.critic_warmup=-1")
    # a warm-up as long as the run would leave the actor the clone: refused
    with pytest.raises(ConfigError, match=r"critic_warmup \(384\) must be below .* never learn"):
        small_config("train.total_timesteps=384", "train.critic_warmup=384")
