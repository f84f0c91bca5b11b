"""The agent protocol and the one batched seat loop (`uno_env.seats`), and `GameBatch.observe` / `illegal_message`.

The loop plays the agents' turns of a `GameBatch` until a seat with no agent decides or the game ends; each agent
is asked once per round for all its games, at its own observation level, and its actions are checked before any
is applied. The arena's recorded games are compared against hashes taken before the loop was written once, so
the same seeds keep giving the same games move for move.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from uno_env import GameBatch, IllegalActionError
from uno_env import observation as O
from uno_env.actions import NUM_ACTIONS
from uno_env.agents import Agent, RandomAgent
from uno_env.agents.registry import make_agent
from uno_env.arena.tournament import play_games
from uno_env.seats import RandomPlay, SeatLoop, agent_actions, is_agent
from uno_env.validate import WrongTypeError


class FirstLegal:
    """The lowest legal action id; counts its calls and rows, and checks its rows are at its level."""

    def __init__(self, observation="minimal", num_players=None):
        self.observation = observation
        self.num_players = num_players
        self.calls: list[int] = []  # rows per call

    def act(self, observations, action_masks):
        if self.num_players is not None:
            assert observations.shape[1] == O.observation_size(self.observation, self.num_players)
        self.calls.append(len(observations))
        return action_masks.argmax(axis=1)


class Cheater:
    """An action that is never legal while a card is to be played or drawn: 'uno'."""

    observation = "minimal"

    def act(self, observations, action_masks):
        return np.full(len(action_masks), NUM_ACTIONS - 1)


def _batch(variant="classic", players=2, games=6, seed=0):
    batch = GameBatch(variant, players, games, max_steps=300)
    batch.reset(seed)
    return batch


def _deciding(batch):
    return batch.seat.astype(np.int64)


# ------------------------------------------------------------------------------------------ the protocol


def test_the_protocol_lives_in_seats_and_the_agents_reexport_it():
    from uno_env.agents import base

    assert base.Agent is Agent and issubclass(RandomAgent, RandomPlay)
    assert isinstance(RandomAgent(0), Agent) and is_agent(RandomAgent(0))
    assert not is_agent(object()) and not is_agent(type("Bad", (), {"observation": "x", "act": print})())


def test_agent_actions_asks_a_search_agent_with_the_games():
    class Searcher:
        observation = "knowledge"

        def act(self, observations, action_masks):
            raise AssertionError("a search agent is asked through act_in_games")

        def act_in_games(self, state, config, games, observations, action_masks):
            self.games = games.copy()
            assert state is batch.state_array and config is batch.config_array
            return action_masks.argmax(axis=1)

    batch = _batch("unocorns", 3, 12)
    searcher = Searcher()
    loop = SeatLoop(batch, [searcher, FirstLegal()])
    assignment = np.array([0, 1, 0])
    waiting = np.flatnonzero(assignment[_deciding(batch)] == 0)
    assert 0 < waiting.size < 12
    loop.play_round(assignment)
    np.testing.assert_array_equal(searcher.games, waiting)
    obs = np.zeros((1, 4), np.int8)
    mask = np.eye(NUM_ACTIONS, dtype=np.int8)[[3]]
    assert agent_actions(FirstLegal(), None, None, np.zeros(1, np.int64), obs, mask)[0] == 3


# ------------------------------------------------------------------------------------------ the loop


def test_the_loop_stops_where_a_learner_decides():
    batch = _batch("unocorns", 4, 16, seed=3)
    agents = [FirstLegal("minimal", 4), FirstLegal("knowledge", 4)]
    played = SeatLoop(batch, agents).play(np.array([0, -1, 1, 0]))
    assert played > 0
    assert ((_deciding(batch) == 1) | (batch.done == 1)).all()
    assert SeatLoop(batch, agents).play(np.array([0, -1, 1, 0])) == 0  # nothing left to play


def test_the_loop_plays_every_game_to_its_end_without_learners_and_leaves_it_there():
    batch = _batch("classic", 2, 8, seed=5)
    loop = SeatLoop(batch, [FirstLegal(), RandomAgent(1)])
    loop.play(np.array([[0, 1], [1, 0]] * 4))  # a table per game: seats swapped in odd games
    assert batch.done.all()
    for g in range(8):
        batch.check(g)
    assert loop.play_round(np.array([0, 1])) == 0


def test_each_agent_is_asked_once_a_round_for_all_its_games_at_its_level():
    batch = _batch("unocorns", 4, 32, seed=11)
    agents = [FirstLegal("minimal", 4), FirstLegal("knowledge", 4), FirstLegal("seer", 4)]
    loop = SeatLoop(batch, agents)
    assignment = np.array([0, 1, 2, 1])
    for _ in range(40):
        deciding = _deciding(batch)
        live = batch.done == 0
        expected = [int((live & (assignment[deciding] == i)).sum()) for i in range(3)]
        before = [len(agent.calls) for agent in agents]
        played = loop.play_round(assignment)
        for i, agent in enumerate(agents):
            asked = agent.calls[before[i] :]
            assert asked == ([expected[i]] if expected[i] else []), f"agent {i}"
        assert played == sum(expected)
        if played == 0:
            break


def test_an_agent_seated_twice_in_the_list_is_asked_once_per_entry():
    batch = _batch("classic", 3, 12, seed=2)
    agent = FirstLegal()
    assignment = np.array([0, 1, 1])
    entries = np.unique(assignment[_deciding(batch)])
    SeatLoop(batch, [agent, agent]).play_round(assignment)
    assert len(agent.calls) == len(entries) and sum(agent.calls) == 12


def test_an_illegal_action_is_refused_in_one_line_naming_the_agent_and_nothing_is_applied():
    batch = _batch("classic", 2, 6, seed=1)
    before = batch.state_array.copy()
    loop = SeatLoop(batch, [Cheater(), FirstLegal()], ["agent 'cheat'", "agent 'first'"])
    with pytest.raises(IllegalActionError) as refused:
        loop.play(np.array([0, 1]))
    message = str(refused.value)
    assert message.startswith("agent 'cheat': illegal action 'uno' in game ") and "legal: " in message
    assert "\n" not in message
    assert (batch.state_array == before).all()


def test_a_malformed_answer_is_refused_naming_the_agent():
    class Floats(FirstLegal):
        def act(self, observations, action_masks):
            return super().act(observations, action_masks).astype(np.float64)

    batch = _batch()
    before = batch.state_array.copy()
    with pytest.raises(WrongTypeError, match="^floats: actions must be"):
        SeatLoop(batch, [Floats()], ["floats"]).play(np.array([0, 0]))
    assert (batch.state_array == before).all()
    with pytest.raises(ValueError, match="is not an agent"):
        SeatLoop(batch, [object()])


def test_the_callback_sees_every_action_in_order_and_replaying_them_gives_the_same_games():
    batch = _batch("unocorns", 3, 7, seed=21)
    start = batch.copy()
    seen: list[tuple[int, int]] = []

    def on_actions(index, games, actions):
        assert (_deciding(batch)[games] >= 0).all()  # told before they are applied
        seen.extend(zip(games.tolist(), actions.tolist(), strict=True))

    played = SeatLoop(batch, [RandomAgent(4), FirstLegal()]).play(np.array([0, 1, 0]), on_actions=on_actions)
    assert played == len(seen) and batch.done.all()
    for g, action in seen:
        start.step_game(g, action)
    assert (start.state_array == batch.state_array).all()


def test_apply_and_active_let_the_caller_apply_and_stop_games():
    batch = _batch("classic", 2, 4, seed=8)
    active = np.array([True, False, True, False])
    applied: list[np.ndarray] = []
    loop = SeatLoop(batch, [FirstLegal()])

    def apply(games, actions):
        applied.append(games.copy())
        for g, action in zip(games.tolist(), actions.tolist(), strict=True):
            batch.step_game(g, action)
        active[games] = False  # one decision each, then the caller stops them

    assert loop.play(np.array([0, 0]), active, apply=apply) == 2
    np.testing.assert_array_equal(np.concatenate(applied), [0, 2])


def test_decide_checks_one_decision_without_applying_it():
    batch = _batch("classic", 2, 3, seed=4)
    before = batch.state_array.copy()
    actions = SeatLoop(batch, [FirstLegal()]).decide(0, np.array([0, 2]))
    assert actions.dtype == np.int64 and (batch.state_array == before).all()
    masks = batch.legal_masks()
    assert masks[0, actions[0]] and masks[2, actions[1]]


def test_the_loop_pickles_without_its_scratch_space():
    import pickle

    batch = _batch()
    loop = SeatLoop(batch, [RandomAgent(3)])
    copy = pickle.loads(pickle.dumps(loop))
    loop.play(np.array([0, 0]))
    copy.play(np.array([0, 0]))
    assert (copy.batch.state_array == batch.state_array).all()


# ------------------------------------------------------------------------------------------ the same games


#: sha256 of the action ids of the arena's games, taken before the seat loop was written once (issue 27)
RECORDED = {
    ("unocorns", ("counter", "greedy", "naive", "random"), 24): (
        "5b1560ad23c9d6759f3f06b381c377476060047e8c713ebf6994e5426160e4f0"
    ),
    ("classic", ("ismcts:20", "counter"), 12): "57e4580447fb44a2a0f1bb611f06da0e577eaa61658e38d667581eb823b4681a",
}


@pytest.mark.parametrize("variant, lineup, games", list(RECORDED))
def test_the_arena_plays_the_recorded_games_move_for_move(variant, lineup, games):
    names = ["counter", "greedy", "naive", "random", "ismcts:20"]
    agents = {name: make_agent(name, seed=10 + i) for i, name in enumerate(names)}
    trace: dict[int, list[int]] = {job: [] for job in range(games)}
    play_games(agents, list(lineup), variant, games=games, seed=3, batch_size=5, trace=trace)
    digest = hashlib.sha256(json.dumps([trace[job] for job in range(games)]).encode()).hexdigest()
    assert digest == RECORDED[(variant, lineup, games)]


# ------------------------------------------------------------------------------------------ GameBatch


def test_observe_gives_one_seats_observation_and_mask_at_a_level():
    batch = _batch("unocorns", 3, 2, seed=6)
    for g in range(2):
        for seat in range(3):
            for level in ("minimal", "knowledge", "seer"):
                spec = O.ObservationSpec(level, 3)
                expected, expected_mask = np.zeros(spec.size, np.int8), np.zeros(NUM_ACTIONS, np.int8)
                O.observe_one(batch.state_array, batch.config_array, g, seat, spec.index, spec.offsets, expected,
                              expected_mask)  # fmt: skip
                observation, mask = batch.observe(g, seat, level)
                assert observation.dtype == mask.dtype == np.int8
                np.testing.assert_array_equal(observation, expected)
                np.testing.assert_array_equal(mask, expected_mask)
                assert mask.any() == (seat == batch.seat[g])
    first, _ = batch.observe(0, 0)
    first[:] = 99  # a new array each time
    assert batch.observe(0, 0)[0].max() < 99
    with pytest.raises(ValueError, match="observation level must be one of"):
        batch.observe(0, 0, "oracle")
    with pytest.raises(ValueError, match="seat must be from 0 to 2"):
        batch.observe(0, 3)


def test_illegal_message_is_public_and_the_old_name_stays():
    batch = _batch()
    illegal = int(np.flatnonzero(batch.legal_masks()[0] == 0)[0])
    message = batch.illegal_message(0, illegal)
    assert message.startswith(f"illegal action {batch.action_names[illegal]!r} in game 0 in phase ")
    assert batch._illegal_message(0, illegal) == message
