"""The batched training env (`uno_env.vector.UnoVectorEnv`) and its adapters (`uno_env.wrappers`).

The vector env is checked step for step against the other faces of the engine by the conformance kit
(`uno_env.testing.check_faces`): game g of a vector env reset with seed S is the game a raw_env deals with
seed S + g, and every face goes on with the same next seed as the vector env's auto-reset. What is the vector
env's own (its opponents' batches, rewards per seat, auto-reset reports, all-or-nothing steps, the adapters)
is tested here. `HashAgent`, a scripted opponent, chooses by the row's observation and mask alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

import uno_env
from uno_env import IllegalActionError
from uno_env import engine as E
from uno_env import observation as O
from uno_env.agents import RandomAgent
from uno_env.testing import check_faces
from uno_env.vector import UnoVectorEnv
from uno_env.wrappers import UnoSB3VecEnv, UnoSingleAgentEnv

NUM_ACTIONS = uno_env.NUM_ACTIONS
UNO = 76  # the last action id ("uno"): legal only with uno_call="explicit"
PLAYS = 59  # ids 0-58 play a card
STEPS = 120  # learner decisions per game in the self-play runs checked against the other faces (6 games)


# ------------------------------------------------------------------------------------------ helpers


def random_legal(rng, masks, eager=False):
    """One uniformly random legal action per row; `eager`: a random card play where one is legal (short games)."""
    scores = rng.random(masks.shape)
    if eager:
        scores[:, :PLAYS] += 1.0
    scores[masks == 0] = -1.0
    return scores.argmax(axis=1)


def hash_actions(observations, masks, salt=0):
    """A legal action per row that depends only on that row's observation and mask (and `salt`); it plays a
    card where it can."""
    weights = np.random.default_rng(observations.shape[1]).integers(1, 1000, observations.shape[1])
    key = observations.astype(np.int64) @ weights + 7919 * salt
    scores = (key[:, None] * 2654435761 + np.arange(NUM_ACTIONS) * 40503) % 1000003
    scores[:, :PLAYS] += 1000003
    scores[masks == 0] = -1
    return scores.argmax(axis=1)


class HashAgent:
    """A scripted agent: `hash_actions` of what it sees; the same choice in any batch."""

    name = "hash"

    def __init__(self, observation="minimal", salt=0):
        self.observation = observation
        self.salt = salt
        self.rows = 0

    def act(self, observations, action_masks):
        self.rows += len(observations)
        return hash_actions(observations, action_masks, self.salt)


class BadAgent:
    """Returns the first illegal action of every row."""

    observation = "minimal"

    def act(self, observations, action_masks):
        return np.argmin(action_masks, axis=1)


class CheckingAgent(HashAgent):
    """A HashAgent that checks, at every call, that its rows are games waiting on its seat (`seat`, or any
    non-learner seat if None), in game order, each observed from that seat at its level with that seat's
    legal actions. `seen` collects the seats it played."""

    def __init__(self, seat, observation, salt=0):
        super().__init__(observation, salt)
        self.seat = seat
        self.venv = None
        self.calls = 0
        self.seen = set()

    def _rows_are_games_of(self, seat, observations, action_masks):
        venv = self.venv
        n = venv.num_players
        level, offsets = O.level_index(self.observation), O.field_offsets(self.observation, n)
        out, mask = np.empty(observations.shape[1], np.int8), np.empty(NUM_ACTIONS, np.int8)
        row = 0
        for g in np.flatnonzero(venv.game.state.seat == seat):  # rows: a subsequence of these games
            if row == len(observations):
                break
            O.observe_one(venv.game.state_array, venv.game.config_array, g, seat, level, offsets, out, mask)
            if np.array_equal(observations[row], out) and np.array_equal(action_masks[row], mask):
                row += 1
        return row == len(observations)

    def act(self, observations, action_masks):
        venv = self.venv
        n = venv.num_players
        assert len(observations) == len(action_masks) > 0
        assert observations.shape[1] == O.observation_size(self.observation, n)
        assert action_masks.shape[1] == NUM_ACTIONS and action_masks.any(axis=1).all()
        seats = [self.seat] if self.seat is not None else [p for p in range(n) if not venv.is_learner[p]]
        matched = [p for p in seats if self._rows_are_games_of(p, observations, action_masks)]
        assert len(matched) == 1, f"rows are not games waiting on {seats}"
        self.seen.add(matched[0])
        self.calls += 1
        return super().act(observations, action_masks)


def snapshot(venv):
    """Every field of every game's state, copied field by field (the record has padding)."""
    state = venv.game.state_array
    return {name: state[name].copy() for name in state.dtype.names}


def assert_state_is(venv, snap):
    state = venv.game.state_array
    for name, value in snap.items():
        np.testing.assert_array_equal(state[name], value, err_msg=f"state field {name!r} changed")


def expected_win_rewards(winner, n):
    """The per-seat result of a finished 'win' episode: +1 the winner, -1/(N-1) the rest; 0 if truncated."""
    if winner < 0:
        return np.zeros(n)
    out = np.full(n, -1.0 / (n - 1))
    out[winner] = 1.0
    return out


# ------------------------------------------------------------------------------------------ 1. the other faces

# The vector env against Game, GameBatch, the AEC env at every level and OpenSpiel (`uno_env.testing.check_faces`):
# the engine state behind each and the episode's seed, every seat's observation and mask, each step's rewards,
# termination and truncation, each episode's report (winner, scores, length, points, final observation), and
# the next episode's seed; with opponents, every face plays copies of the same agents in the same order.

SELF_PLAY_CASES = [
    ("classic", 2, "minimal", {}),
    ("classic", 4, "knowledge", {}),
    ("classic", 3, "knowledge", {"max_steps": 45}),
    ("classic", 3, "knowledge", {"episode": "match", "reward": "points", "target_score": 100}),
    ("unocorns", 2, "minimal", {}),
    ("unocorns", 4, "knowledge", {}),
    ("swap", 2, "knowledge", {"uno_call": "explicit"}),
    ("swap", 4, "minimal", {"uno_call": "explicit"}),
    ("monster_high", 4, "knowledge", {}),
    ("emoji", 2, "knowledge", {}),
]


@pytest.mark.parametrize("variant, n, observation, options", SELF_PLAY_CASES)
def test_self_play_matches_the_other_faces(variant, n, observation, options):
    report = check_faces(variant, n, steps=STEPS, games=6, seed=1000 + 17 * n, observation=observation, **options)
    assert report["episodes"] >= 3
    if options.get("max_steps"):
        assert report["truncated"] >= 3


OPPONENT_CASES = [
    ("classic", 3, [1], HashAgent("minimal"), "knowledge", {}),
    ("classic", 2, 1, HashAgent("knowledge", salt=3), "minimal", {"max_steps": 50}),
    ("unocorns", 4, [0, 2], {1: HashAgent("seer"), 3: HashAgent("minimal", salt=1)}, "knowledge", {}),
    ("swap", 4, [3], HashAgent("knowledge", salt=2), "minimal", {"uno_call": "explicit"}),
    (
        "classic",
        2,
        [0],
        HashAgent("minimal"),
        "knowledge",
        {"episode": "match", "reward": "points", "target_score": 60},
    ),
]


@pytest.mark.parametrize("variant, n, learner_seats, opponents, observation, options", OPPONENT_CASES)
def test_learner_seats_with_opponents_match_the_other_faces(variant, n, learner_seats, opponents, observation, options):
    report = check_faces(variant, n, steps=STEPS // 2, games=6, seed=77, observation=observation,
                         learner_seats=learner_seats, opponents=opponents, **options)  # fmt: skip
    assert report["episodes"] >= 3
    seats = {learner_seats} if isinstance(learner_seats, int) else set(learner_seats)
    assert set(report["opponent_decisions"]) == set(range(n)) - seats
    assert min(report["opponent_decisions"].values()) > 0  # every opponent seat was played


@pytest.mark.parametrize(("learner_seats", "opponents"), [("all", None), ([1], HashAgent("knowledge"))])
def test_reset_and_step_return_arrays_of_the_documented_shapes(learner_seats, opponents):
    venv = UnoVectorEnv("classic", 3, 5, learner_seats=learner_seats, opponents=opponents, observation="minimal")
    obs, masks = venv.reset(seed=0)
    assert obs.shape == (5, venv.observation_size) and obs.dtype == np.int8
    assert masks.shape == (5, NUM_ACTIONS) and masks.dtype == np.int8
    obs, masks, rewards, terminated, truncated, info = venv.step(random_legal(np.random.default_rng(0), masks))
    assert obs.shape == (5, venv.observation_size) and obs.dtype == np.int8
    assert masks.shape == (5, NUM_ACTIONS) and masks.dtype == np.int8
    assert rewards.shape == (5, 3) and terminated.shape == truncated.shape == (5,)
    assert terminated.dtype == truncated.dtype == np.bool_


# ------------------------------------------------------------------------------------------ 2. rewards


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("learner_seats", [[1], "all"])
def test_win_rewards_sum_to_each_episode_result(n, learner_seats):
    b = 64
    opponents = RandomAgent(11) if learner_seats != "all" else None
    venv = UnoVectorEnv("classic", n, b, learner_seats=learner_seats, opponents=opponents, max_steps=150)
    rng = np.random.default_rng(n)
    obs, masks = venv.reset(seed=5)
    totals = np.zeros((b, n))
    episodes = won_by_opponents = truncations = 0
    for _ in range(900 if n == 2 else 1100):
        obs, masks, rewards, terminated, truncated, info = venv.step(random_legal(rng, masks, eager=True))
        if learner_seats != "all":
            assert (venv.seats == 1).all()
        np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-12)
        ended = terminated | truncated
        assert not (terminated & truncated).any()
        assert (rewards[~ended] == 0.0).all()  # 'win' pays only at the episode's end
        totals += rewards
        for g in np.flatnonzero(ended):
            winner = int(info["episode"]["winner"][g])
            if truncated[g]:
                assert winner == -1
                truncations += 1
            else:
                assert 0 <= winner < n
            np.testing.assert_array_equal(totals[g], expected_win_rewards(winner, n), err_msg=f"game {g}")
            won_by_opponents += learner_seats != "all" and winner not in (1, -1)
            episodes += 1
        totals[ended] = 0.0
    assert episodes >= 300
    assert truncations >= 1
    if learner_seats != "all":
        assert won_by_opponents >= 15  # mostly ended by an opponent's move: the learner seat is still credited


@pytest.mark.parametrize("n, learner_seats", [(2, [0]), (3, [2]), (3, "all")])
def test_points_rewards_in_match_episodes(n, learner_seats):
    b, target = 48, 150
    opponents = RandomAgent(3) if learner_seats != "all" else None
    venv = UnoVectorEnv(
        "classic", n, b, learner_seats=learner_seats, opponents=opponents, episode="match", reward="points",
        target_score=target,
    )  # fmt: skip
    rng = np.random.default_rng(1)
    obs, masks = venv.reset(seed=9)
    state = venv.game.state
    totals = np.zeros((b, n))
    matches = rounds_paid = 0
    for _ in range(500):
        rounds_before, scores_before = state.rounds.copy(), state.scores[:, :n].copy()
        obs, masks, rewards, terminated, truncated, info = venv.step(random_legal(rng, masks, eager=True))
        np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-12)
        ended = terminated | truncated
        # a round that ended in this step pays its winner points / target, the others minus that / (N-1)
        round_end = ~ended & (state.rounds > rounds_before)
        assert (state.rounds[~ended] - rounds_before[~ended] <= 1).all()
        winner = np.where(ended, info["episode"]["winner"], state.round_winner)
        points = np.where(ended, info["episode"]["points"], state.round_points)
        paid = terminated | round_end  # the match ends with the round that takes its winner to the target
        value = np.where(paid, points / target, 0.0)
        expected = np.repeat(-value[:, None] / (n - 1), n, axis=1)
        expected[paid, winner[paid]] = value[paid]
        np.testing.assert_allclose(rewards, expected, rtol=0, atol=1e-12)
        totals += rewards
        for g in np.flatnonzero(terminated):
            # over the whole match: each seat's score against the others' mean, by the target
            final = scores_before[g].astype(np.float64)
            final[winner[g]] += points[g]
            assert final[winner[g]] >= target
            mean_others = (final.sum() - final) / (n - 1)
            np.testing.assert_allclose(totals[g], (final - mean_others) / target, rtol=0, atol=1e-9)
        matches += int(terminated.sum())
        rounds_paid += int(round_end.sum())
        totals[ended] = 0.0
    assert matches >= 10 and rounds_paid >= 20


@pytest.mark.parametrize("n", [2, 4])
def test_win_rewards_in_match_episodes_come_at_the_match_end(n):
    b = 32
    venv = UnoVectorEnv("classic", n, b, learner_seats=[0], opponents=RandomAgent(2), episode="match",
                        target_score=100)  # fmt: skip
    rng = np.random.default_rng(0)
    obs, masks = venv.reset(seed=1)
    rounds_before = venv.game.state.rounds.copy()
    totals = np.zeros((b, n))
    matches = rounds_between = 0
    for _ in range(600):
        obs, masks, rewards, terminated, truncated, info = venv.step(random_legal(rng, masks, eager=True))
        ended = terminated | truncated
        assert (rewards[~ended] == 0.0).all()
        rounds_between += int((venv.game.state.rounds[~ended] > rounds_before[~ended]).sum())
        totals += rewards
        for g in np.flatnonzero(ended):
            np.testing.assert_array_equal(totals[g], expected_win_rewards(int(info["episode"]["winner"][g]), n))
            matches += 1
        totals[ended] = 0.0
        rounds_before = venv.game.state.rounds.copy()
    assert matches >= 10 and rounds_between >= 10


# ------------------------------------------------------------------------------------------ 3. seats


def test_learner_seat_decides_and_each_opponent_plays_its_own_seat():
    n, b = 4, 32
    agents = {0: CheckingAgent(0, "minimal"), 2: CheckingAgent(2, "knowledge", 1), 3: CheckingAgent(3, "seer", 2)}
    venv = UnoVectorEnv("unocorns", n, b, learner_seats=[1], opponents=agents)
    for agent in agents.values():
        agent.venv = venv
    assert list(venv.learner_seats) == [1]
    rng = np.random.default_rng(0)
    obs, masks = venv.reset(seed=3)
    ended = 0
    for _ in range(150):
        assert (venv.seats == 1).all() and (venv.game.state.seat == 1).all()
        obs, masks, rewards, terminated, truncated, info = venv.step(random_legal(rng, masks, eager=True))
        np.testing.assert_array_equal(rewards[:, 1] != 0, terminated)
        ended += int((terminated | truncated).sum())
    assert ended >= 5
    assert all(agent.calls >= 100 for agent in agents.values())


def test_one_opponent_plays_every_other_seat():
    n, b = 4, 16
    agent = CheckingAgent(None, "minimal")
    venv = UnoVectorEnv("classic", n, b, learner_seats=2, opponents=agent)
    agent.venv = venv
    assert sorted(venv.opponents) == [0, 1, 3]
    rng = np.random.default_rng(1)
    obs, masks = venv.reset(seed=0)
    for _ in range(100):
        assert (venv.seats == 2).all()
        obs, masks, *_ = venv.step(random_legal(rng, masks, eager=True))
    assert agent.seen == {0, 1, 3}


def test_observe_gives_the_deciding_seats_rows_at_another_level():
    """`observe("seer")` on a knowledge env is what a seer env shows on the same games (a privileged critic's view)."""
    knowing = UnoVectorEnv("unocorns", 3, 64, learner_seats=[0], opponents=RandomAgent(5), observation="knowledge")
    seeing = UnoVectorEnv("unocorns", 3, 64, learner_seats=[0], opponents=RandomAgent(5), observation="seer")
    rng = np.random.default_rng(2)
    _, masks = knowing.reset(seed=11)
    seen, _ = seeing.reset(seed=11)
    for _ in range(60):
        rows = knowing.observe("seer")
        np.testing.assert_array_equal(rows, seen)
        assert (O.unflatten(rows, "seer", 3)["hands"].sum(axis=(1, 2)) > 0).all()  # every hand shown
        actions = random_legal(rng, masks, eager=True)
        _, masks, *_ = knowing.step(actions)
        seen, *_ = seeing.step(actions)
    with pytest.raises(ValueError, match="minimal, knowledge, belief, seer"):
        knowing.observe("oracle")


@pytest.mark.parametrize("seats", [[2], [-1], [], "first", [0.5], 5, [0, 7], None, 1.5])
def test_bad_learner_seats_are_refused(seats):
    with pytest.raises(ValueError, match="learner_seats"):
        UnoVectorEnv("classic", 2, 4, learner_seats=seats, opponents=RandomAgent(0))


def test_missing_or_bad_opponents_are_refused():
    with pytest.raises(ValueError, match=r"seats \[1, 2\] are not learner seats: give `opponents`"):
        UnoVectorEnv("classic", 3, 4, learner_seats=[0])
    with pytest.raises(ValueError, match=r"no opponent given for seat\(s\) \[2\]"):
        UnoVectorEnv("classic", 3, 4, learner_seats=[0], opponents={1: RandomAgent(0)})
    with pytest.raises(ValueError, match="the opponent for seat 1 is not an agent"):
        UnoVectorEnv("classic", 2, 4, learner_seats=[0], opponents=object())

    class WrongLevel(RandomAgent):
        observation = "everything"

    with pytest.raises(ValueError, match="the opponent for seat 2 is not an agent"):
        UnoVectorEnv("classic", 3, 4, learner_seats=[0], opponents={1: RandomAgent(0), 2: WrongLevel(0)})
    # self-play needs no opponents
    assert UnoVectorEnv("classic", 3, 4, learner_seats="all").opponents == {}


def test_an_opponents_illegal_action_names_the_opponent():
    venv = UnoVectorEnv("classic", 2, 4, learner_seats=[0], opponents=BadAgent())
    rng = np.random.default_rng(0)
    with pytest.raises(IllegalActionError, match=r"opponent at seat 1 \(BadAgent\): illegal action"):
        obs, masks = venv.reset(seed=0)
        for _ in range(5):
            obs, masks, *_ = venv.step(random_legal(rng, masks, eager=True))


def test_wrong_action_shape_is_refused():
    venv = UnoVectorEnv("classic", 2, 4)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions must have shape \(4,\)"):
        venv.step(np.zeros(3, np.int64))


def _to_explicit_uno_decision(venv, rng, masks, needed=1):
    """Steps self-play games until at least one has 'uno' legal; returns the masks."""
    for _ in range(20_000):
        if masks[:, UNO].sum() >= needed:
            return masks
        _, masks, *_ = venv.step(random_legal(rng, masks, eager=True))
    raise AssertionError("no game reached an explicit UNO call")


@pytest.mark.parametrize("bad", ["in_range", -1, NUM_ACTIONS, NUM_ACTIONS + 5, 10**6])
def test_an_illegal_learner_action_raises_and_changes_nothing(bad):
    b = 8
    venv = UnoVectorEnv("swap", 2, b, uno_call="explicit", observation="knowledge")
    twin = UnoVectorEnv("swap", 2, b, uno_call="explicit", observation="knowledge")
    # the same history for both; stop where some game may call UNO (its highest legal id is then 76, so an
    # out-of-range id clipped into the layout would look legal there)
    rng, history_rng = np.random.default_rng(4), np.random.default_rng(4)
    masks = _to_explicit_uno_decision(venv, rng, venv.reset(seed=21)[1])
    twin_masks = _to_explicit_uno_decision(twin, history_rng, twin.reset(seed=21)[1])
    np.testing.assert_array_equal(masks, twin_masks)
    g = int(np.flatnonzero(masks[:, UNO])[0])
    actions = random_legal(rng, masks)
    actions[g] = int(np.flatnonzero(masks[g] == 0)[0]) if bad == "in_range" else bad
    before = snapshot(venv)
    arrays = [venv.obs.copy(), venv.masks.copy(), venv.seats.copy(), venv.seeds.copy()]
    with pytest.raises(IllegalActionError, match=rf"^learner: illegal action .* in game {g} "):
        venv.step(actions)
    assert_state_is(venv, before)
    for now, then in zip([venv.obs, venv.masks, venv.seats, venv.seeds], arrays, strict=True):
        np.testing.assert_array_equal(now, then)
    # and the env goes on exactly as if the call had not happened
    actions[g] = UNO
    got = venv.step(actions)
    want = twin.step(actions)
    for x, y in zip(got[:5], want[:5], strict=True):
        np.testing.assert_array_equal(x, y)
    assert [venv.describe(i) for i in range(b)] == [twin.describe(i) for i in range(b)]


def test_callers_writing_into_returned_masks_cannot_make_an_action_legal():
    venv = UnoVectorEnv("classic", 2, 4)
    _, masks = venv.reset(seed=0)
    illegal = int(np.flatnonzero(masks[0] == 0)[0])
    masks[:] = 1
    actions = np.zeros(4, np.int64)
    actions[:] = illegal
    before = snapshot(venv)
    with pytest.raises(IllegalActionError):
        venv.step(actions)
    assert_state_is(venv, before)


# ------------------------------------------------------------------------------------------ 4. episodes


@pytest.mark.parametrize("learner_seats, opponents", [("all", None), ([1], HashAgent("knowledge", salt=5))])
def test_auto_reset_reports_the_episode_and_starts_the_next_seed(learner_seats, opponents):
    b, n = 16, 3
    venv = UnoVectorEnv("unocorns", n, b, learner_seats=learner_seats, opponents=opponents, observation="minimal")
    level, offsets = O.level_index("minimal"), O.field_offsets("minimal", n)
    replay = uno_env.GameBatch("unocorns", n, 1)  # replays a game's last step outside the vector env
    single = UnoVectorEnv("unocorns", n, 1, learner_seats=learner_seats, opponents=opponents, observation="minimal")
    rng = np.random.default_rng(8)
    obs, masks = venv.reset(seed=400)
    np.testing.assert_array_equal(venv.seeds, 400 + np.arange(b, dtype=np.uint64))
    ended_total = 0
    for _ in range(300):
        seeds_before = venv.seeds.copy()
        seats_before = venv.seats.copy()
        states_before = venv.game.state_array.copy()
        actions = random_legal(rng, masks, eager=True)
        obs, masks, rewards, terminated, truncated, info = venv.step(actions)
        ended = terminated | truncated
        assert info["_final_obs"].dtype == np.bool_ and info["_episode"].dtype == np.bool_
        np.testing.assert_array_equal(info["_final_obs"], ended)
        np.testing.assert_array_equal(info["_episode"], ended)
        np.testing.assert_array_equal(venv.seeds[~ended], seeds_before[~ended])
        for g in np.flatnonzero(ended):
            # replay the step: the learner's action, then the opponents' moves, in a batch of one
            replay.state_array[0] = states_before[g]
            status = replay.step_game(0, int(actions[g]))
            while not status[E.STATUS_DONE]:
                seat = int(status[E.STATUS_SEAT])
                assert not venv.is_learner[seat]
                agent = venv.opponents[seat]
                size, agent_level = O.observation_size(agent.observation, n), O.level_index(agent.observation)
                view, mask = np.empty(size, np.int8), np.empty(NUM_ACTIONS, np.int8)
                agent_offsets = O.field_offsets(agent.observation, n)
                O.observe_one(replay.state_array, replay.config_array, 0, seat, agent_level, agent_offsets, view, mask)
                status = replay.step_game(0, int(agent.act(view[None], mask[None])[0]))
            assert bool(truncated[g]) == bool(replay.truncated[0])
            final, mask = np.empty(venv.observation_size, np.int8), np.empty(NUM_ACTIONS, np.int8)
            O.observe_one(replay.state_array, replay.config_array, 0, seats_before[g], level, offsets, final, mask)
            np.testing.assert_array_equal(info["final_obs"][g], final)  # seen by the seat that acted last
            assert info["episode"]["length"][g] == replay.state.steps[0]
            winners = np.flatnonzero(replay.winners[0])
            assert info["episode"]["winner"][g] == (-1 if truncated[g] else winners[0]) and len(winners) <= 1
            assert info["episode"]["points"][g] == replay.state.round_points[0]
            np.testing.assert_array_equal(rewards[g], expected_win_rewards(int(info["episode"]["winner"][g]), n))
            # the slot holds the next episode, from the next seed: the game a single env deals from it
            assert venv.seeds[g] == E.next_episode_seed(seeds_before[g])
            single_obs, single_masks = single.reset(seed=int(venv.seeds[g]))
            np.testing.assert_array_equal(obs[g], single_obs[0])
            np.testing.assert_array_equal(masks[g], single_masks[0])
            assert venv.describe(g) == single.describe(0)
            ended_total += 1
    assert ended_total >= 15


def test_same_seed_same_trajectories():
    def run():
        venv = UnoVectorEnv("swap", 4, 24, learner_seats=[0, 3], opponents=RandomAgent(7), uno_call="explicit")
        rng = np.random.default_rng(3)
        obs, masks = venv.reset(seed=99)
        out = [(obs.copy(), masks.copy(), venv.seats.copy())]
        for _ in range(250):
            obs, masks, rewards, terminated, truncated, info = venv.step(random_legal(rng, masks, eager=True))
            out.append(
                (obs.copy(), masks.copy(), venv.seats.copy(), rewards.copy(), terminated.copy(), truncated.copy(),
                 info["final_obs"][terminated | truncated].copy(), info["episode"]["winner"][terminated].copy(),
                 info["episode"]["length"][terminated].copy())
            )  # fmt: skip
        return out

    first, second = run(), run()
    assert sum(int(step[4].sum()) for step in first[1:]) >= 5
    for a, b in zip(first, second, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("b, learner_seats", [(64, "all"), (520, [0])])
def test_game_g_does_not_depend_on_the_batch(b, learner_seats):
    """Game g of reset(seed=S) is the game a batch of one deals from S + g (520: the parallel kernels)."""
    n, seed = 3, 123
    opponents = HashAgent("knowledge", salt=4) if learner_seats != "all" else None
    big = UnoVectorEnv("emoji", n, b, learner_seats=learner_seats, opponents=opponents)
    games = [0, 1, b // 2, b - 1]
    singles = [UnoVectorEnv("emoji", n, 1, learner_seats=learner_seats, opponents=opponents) for _ in games]
    obs, masks = big.reset(seed=seed)
    small = [single.reset(seed=seed + g) for single, g in zip(singles, games, strict=True)]
    ends = 0
    for _ in range(100):
        for (s_obs, s_masks), single, g in zip(small, singles, games, strict=True):
            np.testing.assert_array_equal(obs[g], s_obs[0])
            np.testing.assert_array_equal(masks[g], s_masks[0])
            assert big.seeds[g] == single.seeds[0]
            assert big.describe(g) == single.describe(0)
        actions = hash_actions(obs, masks)
        obs, masks, rewards, terminated, truncated, info = big.step(actions)
        ends += int(terminated[games].sum())
        small = []
        for single, g in zip(singles, games, strict=True):
            s_obs, s_masks, s_rewards, s_term, s_trunc, s_info = single.step(actions[g : g + 1])
            np.testing.assert_array_equal(rewards[g], s_rewards[0])
            assert terminated[g] == s_term[0] and truncated[g] == s_trunc[0]
            if s_term[0]:
                np.testing.assert_array_equal(info["final_obs"][g], s_info["final_obs"][0])
                assert info["episode"]["length"][g] == s_info["episode"]["length"][0]
                assert info["episode"]["winner"][g] == s_info["episode"]["winner"][0]
            small.append((s_obs, s_masks))
    assert ends >= 1
    assert big.reset(seed=seed)[0][0].tolist() == singles[0].reset(seed=seed)[0][0].tolist()


# ------------------------------------------------------------------------------------------ 5. SB3
#
# sb3_contrib and stable_baselines3 are imported in the tests: importing torch before uno_env would start
# OpenMP before uno_env sets OMP_WAIT_POLICY for numba's threads (busy-waiting threads, very slow steps).


@pytest.mark.parametrize("options", [{"max_steps": 60}, {"episode": "match", "reward": "points", "target_score": 100}])
def test_sb3_vec_env_steps_like_the_vector_env(options):
    from stable_baselines3.common.vec_env import VecEnv

    b, n, seat = 32, 3, 1
    vec_env = UnoSB3VecEnv("classic", n, b, learner_seat=seat, opponents=RandomAgent(0), seed=6, **options)
    reference = UnoVectorEnv("classic", n, b, learner_seats=[seat], opponents=RandomAgent(0), **options)
    assert isinstance(vec_env, VecEnv) and vec_env.num_envs == b
    assert vec_env.action_space.n == NUM_ACTIONS
    assert vec_env.observation_space.shape == (reference.observation_size,)
    obs = vec_env.reset()
    ref_obs, ref_masks = reference.reset(seed=6)
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(2)
    returns, lengths = np.zeros(b), np.zeros(b, np.int64)
    episodes = truncations = 0
    for _ in range(300):
        masks = vec_env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (b, NUM_ACTIONS)
        np.testing.assert_array_equal(masks, ref_masks.astype(bool))
        np.testing.assert_array_equal(np.stack(vec_env.env_method("action_masks")), masks)
        picked = vec_env.env_method("action_masks", indices=[3, 5])
        assert len(picked) == 2
        np.testing.assert_array_equal(picked[0], masks[3])
        np.testing.assert_array_equal(picked[1], masks[5])
        actions = random_legal(rng, masks, eager=True)
        obs, reward, dones, infos = vec_env.step(actions)
        ref_obs, ref_masks, ref_rewards, terminated, truncated, info = reference.step(actions)
        np.testing.assert_array_equal(obs, ref_obs)
        assert reward.dtype == np.float32
        np.testing.assert_array_equal(reward, ref_rewards[:, seat].astype(np.float32))
        np.testing.assert_array_equal(dones, terminated | truncated)
        returns += ref_rewards[:, seat]
        lengths += 1
        for g in range(b):
            if not dones[g]:
                assert "terminal_observation" not in infos[g] and "episode" not in infos[g]
                continue
            np.testing.assert_array_equal(infos[g]["terminal_observation"], info["final_obs"][g])
            assert infos[g]["TimeLimit.truncated"] == bool(truncated[g])
            assert infos[g]["episode"]["l"] == lengths[g]  # the learner's decisions
            assert infos[g]["episode"]["r"] == pytest.approx(returns[g], abs=1e-6)
            if options.get("reward", "win") == "win":
                winner = int(info["episode"]["winner"][g])
                assert infos[g]["episode"]["r"] == pytest.approx(expected_win_rewards(winner, n)[seat])
            episodes += 1
            truncations += bool(truncated[g])
        returns[dones] = 0.0
        lengths[dones] = 0
    assert episodes >= 20
    if "max_steps" in options:
        assert truncations >= 3


def test_sb3_vec_env_seed_gives_game_g_seed_plus_g():
    vec_env = UnoSB3VecEnv("unocorns", 2, 8, opponents=HashAgent())
    vec_env.seed(31)
    obs = vec_env.reset()
    ref_obs, _ = UnoVectorEnv("unocorns", 2, 8, learner_seats=[0], opponents=HashAgent()).reset(seed=31)
    np.testing.assert_array_equal(obs, ref_obs)


def test_sb3_vec_env_builds_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3's VecEnv warns when render_mode is missing
        vec_env = UnoSB3VecEnv("classic", 2, 4, opponents=RandomAgent(0))
    assert vec_env.render_mode is None and vec_env.get_attr("render_mode") == [None] * 4


def test_maskable_ppo_learns_on_the_sb3_vec_env():
    from sb3_contrib import MaskablePPO

    vec_env = UnoSB3VecEnv("classic", 2, 64, opponents=RandomAgent(0), seed=0)
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=16, batch_size=256, n_epochs=2, seed=0, device="cpu")
    model.learn(2048)
    assert model.num_timesteps >= 2048
    assert len(model.ep_info_buffer) > 0
    assert all(info["r"] in (1.0, -1.0) for info in model.ep_info_buffer)


def test_single_agent_env_passes_the_env_checkers():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = UnoSingleAgentEnv("unocorns", 3, learner_seat=2)
    gym_check_env(env)
    sb3_check_env(UnoSingleAgentEnv("classic", 2), warn=True)


def test_single_agent_env_episode():
    env = UnoSingleAgentEnv("classic", 4, learner_seat=1)
    rng = np.random.default_rng(0)
    episodes = 0
    obs, info = env.reset(seed=3)
    total = 0.0
    for _ in range(2000):
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(int(random_legal(rng, mask[None], eager=True)[0]))
        assert env.observation_space.contains(obs)
        total += reward
        if terminated or truncated:
            assert not info["action_mask"].any()
            assert total in (1.0, -1.0 / 3) and terminated
            episodes += 1
            obs, info = env.reset()
            total = 0.0
        else:
            assert reward == 0.0
    assert episodes >= 5


def test_maskable_ppo_learns_on_the_single_agent_env():
    from sb3_contrib import MaskablePPO

    env = UnoSingleAgentEnv("classic", 2)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(1024)
    assert model.num_timesteps >= 1024


def _illegal_actions(mask):
    return [int(np.flatnonzero(mask == 0)[0]), -1, NUM_ACTIONS, NUM_ACTIONS + 3]


def test_single_agent_env_illegal_action_loses_and_changes_nothing():
    env = UnoSingleAgentEnv("classic", 2, illegal_action="lose")
    obs, info = env.reset(seed=4)
    for action in _illegal_actions(info["action_mask"]):
        before = snapshot(env.venv)
        next_obs, reward, terminated, truncated, step_info = env.step(action)
        assert reward == -1.0 and terminated is True and truncated is False
        assert step_info["illegal_action"] is True
        assert not step_info["action_mask"].any()
        np.testing.assert_array_equal(next_obs, obs)
        assert_state_is(env.venv, before)


def test_single_agent_env_illegal_action_raises():
    env = UnoSingleAgentEnv("swap", 2, illegal_action="raise", uno_call="explicit")
    obs, info = env.reset(seed=4)
    for action in _illegal_actions(info["action_mask"]):
        before = snapshot(env.venv)
        with pytest.raises(IllegalActionError, match="learner: illegal action"):
            env.step(action)
        assert_state_is(env.venv, before)
    with pytest.raises(ValueError, match="illegal_action must be one of 'lose', 'raise'"):
        UnoSingleAgentEnv("classic", 2, illegal_action="ignore")


def test_single_agent_env_raises_for_an_id_past_the_layout_where_uno_is_legal():
    env = UnoSingleAgentEnv("swap", 2, illegal_action="raise", uno_call="explicit")
    rng = np.random.default_rng(0)
    env.reset(seed=4)
    for _ in range(20_000):
        if env.action_masks()[UNO]:
            break
        _, _, terminated, truncated, _ = env.step(int(random_legal(rng, env.action_masks()[None], eager=True)[0]))
        if terminated or truncated:
            env.reset()
    assert env.action_masks()[UNO]
    before = snapshot(env.venv)
    with pytest.raises(IllegalActionError):
        env.step(NUM_ACTIONS)
    assert_state_is(env.venv, before)
