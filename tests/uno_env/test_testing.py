"""The conformance kit (`uno_env.testing`): every agent the project ships passes `check_agent`, every face agrees
under `check_faces`, and agents or faces broken on purpose fail, so the checks are real."""

from __future__ import annotations

import re
import sys
import zlib

import numpy as np
import pytest

import uno_env.testing
from uno_env import GameBatch
from uno_env import observation as O
from uno_env.aec import raw_env
from uno_env.agents import CounterAgent, GreedyAgent, NaiveAgent, RandomAgent, make_agent
from uno_env.testing import check_agent, check_faces, decision_phases

SMALL = dict(games=6, decisions=100)  # enough to reach every phase of the presets checked here


# ------------------------------------------------------------------------------------------ shipped agents


@pytest.mark.parametrize("agent", [RandomAgent, NaiveAgent, GreedyAgent, CounterAgent])
@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("monster_high", 3)])
def test_the_baselines_conform(agent, variant, players):
    report = check_agent(agent, variant, players, **SMALL)  # the class is a factory seed -> agent
    assert set(report["phases"]) >= set(decision_phases(uno_env.make_rules(variant)))
    assert report["redealt"] > report["decisions"] / 2  # most comparisons were in a world that really differed


def test_a_baseline_instance_conforms_with_explicit_uno_calls():
    report = check_agent(make_agent("counter", 5), "swap", 2, uno_call="explicit", **SMALL)
    assert report["phases"]["uno"] > 0 and report["phases"]["swap"] > 0


@pytest.mark.parametrize(("name", "variant", "players"), [
    ("ppo:classic", "classic", 2), ("ppo:classic", "classic", 4), ("ppo:unocorns", "unocorns", 2),
    ("best:classic", "classic", 2),  # its own network: blind as the others
])  # fmt: skip
def test_the_shipped_policies_conform(name, variant, players):
    check_agent(lambda seed: make_agent(name, seed), variant, players, **SMALL)


def test_a_shipped_policy_sampling_its_actions_conforms():
    from uno_env.agents.policy import PolicyAgent

    check_agent(lambda seed: PolicyAgent.shipped("unocorns", 2, sample=True, seed=seed), "unocorns", 2, **SMALL)


def test_an_sb3_agent_conforms(tmp_path):
    from sb3_contrib import MaskablePPO

    from uno_env.agents.sb3_agent import SB3Agent
    from uno_env.wrappers import UnoSB3VecEnv

    venv = UnoSB3VecEnv("classic", num_players=2, num_envs=16, opponents=RandomAgent(0), seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]}).learn(256)  # fmt: skip
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    check_agent(SB3Agent(loaded, observation="knowledge", num_players=2), "classic", 2, **SMALL)


def test_an_rllib_agent_conforms(rllib_checkpoint):
    check_agent(lambda seed: make_agent(f"rllib:{rllib_checkpoint}", seed, trust=True), "classic", 2, **SMALL)


# ------------------------------------------------------------------------------------------ broken agents


class Illegal:
    """Always draws: illegal whenever drawing is not a choice (a colour, a challenge)."""

    observation = "minimal"

    def act(self, observations, action_masks):
        return np.full(len(observations), 59, np.int64)


class ListAnswer:
    """Legal actions, but as a list."""

    observation = "minimal"

    def act(self, observations, action_masks):
        return [int(a) for a in action_masks.argmax(axis=1)]


class GlobalRandom:
    """Uniform over the legal actions from numpy's global generator, which no seed or copy of the agent fixes."""

    observation = "minimal"

    def act(self, observations, action_masks):
        return np.array([np.random.choice(np.flatnonzero(m)) for m in action_masks], np.int64)


class OneDrawPerCall:
    """Seeded, but draws one number per call for all its rows: its actions depend on how rows are batched."""

    observation = "minimal"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observations, action_masks):
        k = int(self.rng.integers(1_000_000))
        return np.array([np.flatnonzero(m)[k % m.sum()] for m in action_masks], np.int64)


class Peeker:
    """Claims `knowledge` observations, but finds the game it is asked about on the call stack and lets its seer
    observations (every hand, the draw pile) choose among the legal actions."""

    observation = "knowledge"

    def act(self, observations, action_masks):
        frame = sys._getframe(1)
        while not any(isinstance(v, GameBatch) for v in frame.f_locals.values()):
            frame = frame.f_back
        world = next(v for v in frame.f_locals.values() if isinstance(v, GameBatch))
        spec = O.ObservationSpec("seer", world.num_players)
        seer = np.empty((world.batch_size, spec.size), np.int8)
        seats = world.seat.astype(np.int64)
        O.encode_batch(world.state_array, world.config_array, seats, spec.index, spec.offsets, seer)
        secret = zlib.crc32(seer.tobytes())  # the same for every row and batch split: only hidden cards change it
        return np.array([np.flatnonzero(m)[secret % m.sum()] for m in action_masks], np.int64)


class Seer(GreedyAgent):
    observation = "seer"


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (
            Illegal(),
            r"\(a\) illegal action at decision \d+ of game \d+ \(seat \d, phase '(color|challenge)'\): "
            r"it chose 'draw' \(59\); legal: ",
        ),
        (ListAnswer(), r"\(a\) act\(\) must return a numpy integer array of shape \(6,\), got list"),
        (GlobalRandom(), r"\(b\) not deterministic for a seed: at decision 0 of game \d+ .* once and .* the next time"),
        (lambda seed: RandomAgent(), r"\(b\) not deterministic for a seed"),  # a factory that drops the seed
        (OneDrawPerCall, r"\(c\) depends on batch size: .* in the whole batch of 6 and .* given one row at a time"),
        (Peeker(), r"\(d\) not blind to hidden information: .* in the real world and .* in the redealt one"),
        (Seer(0), r"it reads 'seer' observations"),
    ],
    ids=["illegal", "list", "global-random", "seed-dropping-factory", "batch-dependent", "peeking", "seer"],
)
def test_a_broken_agent_fails_the_check_that_catches_it(agent, words):
    with pytest.raises(AssertionError, match=words):
        check_agent(agent, "classic", 2, **SMALL)


def test_a_seer_agent_is_checked_without_the_blindness_check_when_allowed():
    report = check_agent(Seer, "classic", 2, allow_seer=True, **SMALL)
    assert report["redealt"] == 0
    with pytest.raises(AssertionError, match=r"\(b\) not deterministic"):
        check_agent(GlobalRandom(), "classic", 2, allow_seer=True, **SMALL)


def test_the_peeker_passes_where_nothing_is_hidden_from_it():
    """The peeker's only fault is peeking: with the blindness check left out (its claim made `seer`) it passes."""

    class HonestSeer(Peeker):
        observation = "seer"

    check_agent(HonestSeer(), "classic", 2, allow_seer=True, **SMALL)


def test_a_phase_never_reached_is_reported():
    with pytest.raises(AssertionError, match="never asked in phase"):
        check_agent(RandomAgent, "unocorns", 2, games=2, decisions=3)


# ------------------------------------------------------------------------------------------ faces


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("variant", ["classic", "unocorns", "monster_high", "emoji", "swap"])
def test_every_face_agrees(variant, players):
    report = check_faces(variant, players, steps=150, seed=players)
    assert report["episodes"] >= 1  # the ends of episodes (rewards, final observations, next deals) were compared
    assert "OpenSpiel" in report["faces"]


@pytest.mark.parametrize(
    ("variant", "players", "learner_seats", "opponents", "options"),
    [
        ("classic", 2, [0], GreedyAgent(1), {}),
        ("unocorns", 4, [0, 2], {1: CounterAgent(2), 3: NaiveAgent(3)}, {"observation": "minimal"}),
        ("swap", 3, 1, RandomAgent(4), {"uno_call": "explicit", "max_steps": 40}),
        ("classic", 2, [1], make_agent("ppo:classic", 5), {"episode": "match", "reward": "points", "target_score": 60}),
    ],
    ids=["greedy", "counter-and-naive", "random-one-for-two-seats", "policy-in-a-match"],
)
def test_every_face_agrees_with_opponents_in_the_other_seats(variant, players, learner_seats, opponents, options):
    report = check_faces(variant, players, steps=60, seed=3, learner_seats=learner_seats, opponents=opponents,
                         **options)  # fmt: skip
    others = set(range(players)) - ({learner_seats} if isinstance(learner_seats, int) else set(learner_seats))
    assert set(report["opponent_decisions"]) == others and min(report["opponent_decisions"].values()) > 0
    assert report["episodes"] >= 1 and "OpenSpiel" in report["faces"]


def test_every_face_agrees_with_ten_players_in_a_match_with_points():
    report = check_faces("unocorns", 10, steps=150, seed=1, episode="match", reward="points", target_score=60,
                         uno_call="explicit", hand_size=3)  # fmt: skip
    assert report["episodes"] >= 1 and report["phases"]["uno"] > 0 and report["phases"]["guess"] > 0


def test_a_face_whose_observation_is_off_in_one_entry_is_caught(monkeypatch):
    honest = raw_env.observe

    def leaky(self, agent):
        observed = honest(self, agent)
        if self.game.state.steps[0] >= 5:
            observed["observation"][-1] ^= 1  # the last entry of the vector, at every level
        return observed

    monkeypatch.setattr(raw_env, "observe", leaky)
    with pytest.raises(
        AssertionError, match=r"step 5, game 0: minimal observation of player_0 differs: in its field\(s\) scores"
    ):
        check_faces("classic", 2, steps=20)


def test_a_face_that_deals_another_game_is_caught(monkeypatch):
    honest = raw_env.reset

    def off_by_one(self, seed=None, options=None):
        honest(self, None if seed is None else seed + 1, options)

    monkeypatch.setattr(raw_env, "reset", off_by_one)
    with pytest.raises(AssertionError, match=r"step 0, game 0: describe\(\) differs: hands: Game \[\["):
        check_faces("classic", 2, steps=1)


def test_an_openspiel_face_whose_observation_is_off_in_one_entry_is_caught(monkeypatch):
    from uno_env.openspiel import UnoState

    honest = UnoState.observation

    def leaky(self, player, level="knowledge"):
        observation = honest(self, player, level)
        if player == 1 and level == "seer":
            observation[-1] ^= 1
        return observation

    monkeypatch.setattr(UnoState, "observation", leaky)
    with pytest.raises(AssertionError, match=r"step 0, game 0: seer observation of player_1 differs: .* OpenSpiel"):
        check_faces("classic", 2, steps=5)


def test_openspiel_returns_that_are_not_the_win_are_caught(monkeypatch):
    from uno_env.openspiel import UnoState

    honest = UnoState.returns
    monkeypatch.setattr(UnoState, "returns", lambda self: [-r for r in honest(self)])
    words = r"returns differs: OpenSpiel.returns\(\): \[1.0, -1.0\]; raw_env.rewards: \[-1.0, 1.0\]"
    with pytest.raises(AssertionError, match=words):
        check_faces("classic", 2, steps=150, seed=2)


def test_the_openspiel_face_is_left_out_only_where_it_cannot_be_built():
    assert "OpenSpiel" not in check_faces("classic", 2, steps=3, openspiel=False)["faces"]
    # python_uno cannot express `swap` without stacking (a bool parameter's default stands for the preset's own)
    assert "OpenSpiel" not in check_faces("swap", 2, steps=3, stack_draw_two=False)["faces"]
    with pytest.raises(ValueError, match="cannot express stack_draw_two"):
        check_faces("swap", 2, steps=3, stack_draw_two=False, openspiel=True)
    with pytest.raises(ValueError, match="every seat is a learner seat"):
        check_faces("classic", 2, steps=3, opponents=RandomAgent(0))


class Unsteady(RandomAgent):
    """A random opponent that draws from numpy's global generator: no copy of it repeats another's choices."""

    def act(self, observations, action_masks):
        return np.array([np.random.choice(np.flatnonzero(m)) for m in action_masks], np.int64)


def test_an_opponent_whose_copies_disagree_is_caught():
    with pytest.raises(AssertionError, match=r"the action of the opponent at seat 1 \(each face asks its own copy"):
        check_faces("classic", 2, steps=20, learner_seats=[0], opponents=Unsteady(0))


def test_a_vector_env_that_seats_other_opponents_is_caught(monkeypatch):
    from uno_env.seats import RandomPlay
    from uno_env.vector import UnoVectorEnv

    honest = UnoVectorEnv.set_opponents
    monkeypatch.setattr(UnoVectorEnv, "set_opponents", lambda self, opponents: honest(self, RandomPlay(9)))
    with pytest.raises(AssertionError, match=r"step 0, game \d: describe\(\) differs: .*UnoVectorEnv"):
        check_faces("classic", 3, steps=20, learner_seats=[0], opponents=GreedyAgent(1))


def test_a_vector_env_that_misreports_an_episode_is_caught(monkeypatch):
    from uno_env.vector import UnoVectorEnv

    honest = UnoVectorEnv._info

    def one_longer(self):
        info = honest(self)
        info["episode"] = dict(info["episode"], length=info["episode"]["length"] + 1)
        return info

    monkeypatch.setattr(UnoVectorEnv, "_info", one_longer)
    with pytest.raises(AssertionError, match=r"game \d: length differs: Game: \d+; UnoVectorEnv: \d+"):
        check_faces("classic", 2, steps=150, learner_seats=[1], opponents=RandomAgent(0))


def test_the_module_docstring_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", uno_env.testing.__doc__, flags=re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], uno_env.testing.__file__, "exec"), {})
