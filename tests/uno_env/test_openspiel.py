"""The OpenSpiel face (`uno_env.openspiel`, game `python_uno`) and the agent that seats OpenSpiel's IS-MCTS
(`uno_env.agents.openspiel_agent`): OpenSpiel's own conformance test on every preset, a trajectory equal to
`uno_env.Game`'s, hidden cards kept out of a seat's information state, parameters reaching the engine, exact
copies, and OpenSpiel's algorithms (ISMCTSBot, tabular Q-learning) running on it."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pyspiel
import pytest

from uno_env import PRESETS, Game, GameBatch, make_rules
from uno_env import actions as A
from uno_env import engine as E
from uno_env import observation as O
from uno_env import openspiel as U
from uno_env.agents import make_agent
from uno_env.agents.openspiel_agent import OpenSpielISMCTSAgent
from uno_env.game import RESAMPLE_MESSAGES
from uno_env.testing import deal


def load(**params):
    return pyspiel.load_game(U.GAME_NAME, params)


def play_random(state, rng, steps):
    """Up to `steps` uniformly random legal actions (fewer if the episode ends)."""
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(int(rng.choice(state.legal_actions())))


def action(state, name: str) -> int:
    return A.action_id(name, state.game_batch().rules.colors)


# ------------------------------------------------------------------------------------------ conformance


@pytest.mark.parametrize("players", [2, 4, 10])
@pytest.mark.parametrize("variant", PRESETS)
def test_openspiel_random_simulation_on_every_preset(variant, players):
    # pyspiel's checks at every step: clones, legal actions and their strings, observations and information
    # states of every seat, returns summing to zero within the utility bounds. A step limit keeps random play
    # (about 1,000 decisions a round) short: most of these games end truncated, some by a win.
    game = load(variant=variant, players=players, max_steps=60, rng_seed=players)
    # pyspiel's own serialization asks the game for GetRNGState, which a Python game cannot provide; the
    # state's serialization is tested below.
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_pyspiel_cannot_serialize_a_sampled_stochastic_python_game_so_the_module_does():
    game = load(players=3)
    state = game.new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.serialize_game_and_state(game, state)
    play_random(state, np.random.default_rng(0), 25)
    other_game, other = U.deserialize_game_and_state(U.serialize_game_and_state(game, state))
    assert str(other_game) == str(game)
    assert other.game_batch().state_array.tobytes() == state.game_batch().state_array.tobytes()
    assert other.history() == state.history()
    # the game's seed sequence goes on where it was
    assert str(other_game.new_initial_state()) == str(game.new_initial_state())


def test_clones_serialized_and_pickled_states_go_on_exactly_as_the_original():
    game = load(variant="unocorns", players=3, rng_seed=5)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(6):
        play_random(state, rng, 7)
        copies = [
            state.clone(),
            game.deserialize_state(state.serialize()),
            pickle.loads(pickle.dumps(state)),
        ]
        actions = [int(a) for a in rng.integers(0, 1 << 30, 20)]
        for other in copies:
            assert other.game_batch().state_array.tobytes() == state.game_batch().state_array.tobytes()
            assert [other.information_state_string(p) for p in range(3)] == [
                state.information_state_string(p) for p in range(3)
            ]
        for other in [state, *copies]:
            for a in actions:  # the same choices by index go the same way: the generator was copied too
                if other.is_terminal():
                    break
                legal = other.legal_actions()
                other.apply_action(legal[a % len(legal)])
        assert len({c.game_batch().state_array.tobytes() for c in [state, *copies]}) == 1
    restored = pickle.loads(pickle.dumps(game))
    assert str(restored.new_initial_state()) == str(game.new_initial_state())


# ------------------------------------------------------------------------------------------- faithful


def test_a_game_through_pyspiel_is_the_engine_game_with_the_same_seed_and_actions():
    game = load(variant="monster_high", players=4, rng_seed=7)
    state = game.new_initial_state()
    reference = Game("monster_high", 4, seed=7)
    rng = np.random.default_rng(3)
    steps = 0
    while not reference.done:
        legal = state.legal_actions()
        assert legal == reference.legal_action_ids()
        assert state.current_player() == reference.seat
        if steps % 20 == 0:
            assert state.describe() == reference.describe()
        choice = int(rng.choice(legal))
        assert state.action_to_string(choice) == reference.action_names[choice]
        state.apply_action(choice)
        reference.step(choice)
        steps += 1
    assert state.is_terminal() and state.describe() == reference.describe()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL and state.legal_actions() == []
    returns = state.returns()
    assert reference.winners and not reference.truncated
    winner = reference.winners[0]
    assert returns[winner] == 1.0 and sum(returns) == pytest.approx(0.0)
    assert all(r == pytest.approx(-1 / 3) for p, r in enumerate(returns) if p != winner)
    # the next initial state goes on with the engine's next episode seed; a given seed deals that seed's game
    second = int(E.next_episode_seed(np.uint64(7)))
    assert game.new_initial_state().describe() == Game("monster_high", 4, seed=second).describe()
    assert game.new_initial_state(seed=11).describe() == Game("monster_high", 4, seed=11).describe()


def test_the_same_parameters_give_the_same_deals_and_a_clone_takes_none():
    first, second = load(players=3, rng_seed=42), load(players=3, rng_seed=42)
    a = [first.new_initial_state() for _ in range(3)]
    a[0].clone()  # a clone is made from a new initial state that it overwrites: no deal is used up
    b = [second.new_initial_state() for _ in range(3)]
    assert [str(s) for s in a] == [str(s) for s in b]
    assert len({str(s) for s in a}) == 3
    assert str(load(players=3, rng_seed=43).new_initial_state()) != str(a[0])


def test_a_truncated_episode_gives_nothing():
    state = load(players=2, max_steps=5).new_initial_state()
    play_random(state, np.random.default_rng(0), 10)
    assert state.is_terminal() and state.describe()["truncated"] and state.returns() == [0.0, 0.0]
    assert len(state.history()) == 5


# ------------------------------------------------------------------------------------------ information


def test_a_redeal_keeps_the_deciding_seats_information_state_and_observation():
    sampler = np.random.default_rng(8).random  # any callable giving floats in [0, 1), as OpenSpiel's samplers
    rng = np.random.default_rng(7)
    for variant, players in (("classic", 2), ("unocorns", 3), ("swap", 4)):
        game = load(variant=variant, players=players, rng_seed=3)
        seer = pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
        seer_view = game.make_py_observer(seer, {})
        state = game.new_initial_state()
        changed = 0
        for _ in range(12):
            play_random(state, rng, int(rng.integers(1, 8)))
            if state.is_terminal():
                break
            seat = state.current_player()
            try:
                world = state.resample_from_infostate(seat, sampler)
            except U.ResampleRefused as refusal:  # only for the engine's own reasons
                assert any(reason in str(refusal) for reason in RESAMPLE_MESSAGES.values())
                continue
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.observation_tensor(seat) == state.observation_tensor(seat)
            assert world.observation_string(seat) == state.observation_string(seat)
            assert world.legal_actions() == state.legal_actions()
            hands, redealt = state.describe()["hands"], world.describe()["hands"]
            assert redealt[seat] == hands[seat]
            if redealt != hands:
                changed += 1
                # the seer level shows every hand: it sees the redeal
                seer_view.set_from(state, seat)
                before = seer_view.tensor.copy()
                seer_view.set_from(world, seat)
                assert not np.array_equal(before, seer_view.tensor)
                shown = seer_view.dict["hands"].astype(int)
                for rel in range(players):
                    counts = world.game_batch().state_array[0]["hand"][(seat + rel) % players]
                    assert list(shown[rel]) == list(counts)
        assert changed >= 5


def test_another_seat_cannot_be_resampled_for():
    state = load(players=3).new_initial_state()
    other = (state.current_player() + 1) % 3
    with pytest.raises(U.ResampleRefused, match="deciding seat"):
        state.resample_from_infostate(other, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_a_kept_drawn_card_looks_to_the_others_like_an_unplayable_draw():
    # Seat 0 draws R5 (playable on R9) and keeps it, or draws B7 (not playable): seat 1 cannot tell which.
    game = load(players=2)
    seen = {}
    for drawn in ("R5", "B7"):
        engine_game = deal("classic", [["B1", "G2"], ["G3", "Y4"]], "R9", [drawn, "Y9"], dealer=1)
        state = game.new_state_from_engine(engine_game.batch.state_array)
        assert state.current_player() == 0
        state.apply_action(action(state, "draw"))
        if drawn == "R5":
            assert state.describe()["phase"] == "drawn"
            state.apply_action(action(state, "pass"))
        assert state.current_player() == 1
        seen[drawn] = [state.information_state_string(p) for p in range(2)]
    assert seen["R5"][1] == seen["B7"][1]  # seat 1: the same information state
    assert seen["R5"][0] != seen["B7"][0]  # seat 0 knows what it drew


def test_observations_of_every_level_and_of_a_seat_not_deciding():
    game = load(variant="unocorns", players=3, rng_seed=9)
    state = game.new_initial_state()
    play_random(state, np.random.default_rng(2), 15)
    batch = state.game_batch()
    for level in O.LEVELS:
        observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False), {"level": level})
        spec = O.ObservationSpec(level, 3)
        assert observer.tensor.shape == (spec.size,) and list(observer.dict) == list(spec.layout)
        for seat in range(3):  # deciding or not
            observer.set_from(state, seat)
            expected = np.zeros(spec.size, np.int8)
            O.observe_one(batch.state_array, batch.config_array, 0, seat, spec.index, spec.offsets, expected,
                          np.zeros(A.NUM_ACTIONS, np.int8))  # fmt: skip
            assert np.array_equal(observer.tensor, expected)
            assert list(observer.dict["hand"]) == list(batch.state_array[0]["hand"][seat])
            assert f"hand: {' '.join(state.describe()['hands'][seat]) or '-'}" in observer.string_from(state, seat)
    assert game.observation_tensor_shape() == [O.ObservationSpec("knowledge", 3).size]
    info = state.information_state_string(1)
    assert info.startswith("seat 1\n") and "recall " in info
    with pytest.raises(ValueError, match="level"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False), {"level": "all"})


# ------------------------------------------------------------------------------------------- parameters


def test_parameters_reach_the_engine_and_presets_keep_their_defaults():
    assert load(variant="unocorns", players=4, stack_draw_two=True).rules == make_rules("unocorns", stack_draw_two=True)
    assert load(variant="swap").rules == make_rules("swap")  # stack_draw_two True, uno_penalty 4: swap's own
    assert load(variant="swap", uno_penalty=2).rules.uno_penalty == 2
    options = load(card_counts="WN:4;5:0", uno_call="explicit", uno_catch_rate=0.5, hand_size=5).rules
    assert options == make_rules("classic", card_counts={"WN": 4, "5": 0}, uno_call="explicit",
                                 uno_catch_rate=0.5, hand_size=5)  # fmt: skip
    game = load(variant="emoji", players=3, scoring="penalty", episode="match", max_steps=300)
    assert pyspiel.load_game(str(game)).rules == game.rules  # the game string round-trips
    assert game.max_game_length() == 300 and game.num_players() == 3 and game.num_distinct_actions() == 77
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    rules = make_rules("monster_high", card_points={"WU": 40}, emoji_face_fail_rate=0.25, uno_penalty=3)
    assert U.make_game(rules, 5, "match", 777).rules == rules
    with pytest.raises(ValueError, match="cannot express stack_draw_two=False"):
        U.parameters_of(make_rules("swap", stack_draw_two=False), 2)


@pytest.mark.parametrize("stack", [True, False])
def test_stack_draw_two_changes_the_legal_actions(stack):
    game = load(stack_draw_two=stack)
    engine_game = deal(game.rules, [["R+2", "G1", "G2"], ["B+2", "Y5", "Y6"]], "R3", dealer=1)
    state = game.new_state_from_engine(engine_game.batch.state_array)
    state.apply_action(action(state, "play R+2"))
    if stack:
        assert state.current_player() == 1
        assert sorted(state.legal_actions()) == [action(state, "play B+2"), action(state, "draw")]
    else:  # seat 1 draws two and loses its turn
        assert state.current_player() == 0 and len(state.describe()["hands"][1]) == 5


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"players": 11}, ValueError, "from 2 to 10"),
        ({"variant": "uno_flip"}, ValueError, "the variants are classic"),
        ({"hand_size": 0}, ValueError, "hand_size must be an int from 1 to 50"),
        ({"uno_call": "sometimes"}, ValueError, "uno_call must be 'auto' or 'explicit'"),
        ({"card_counts": "WN=4"}, ValueError, "CODE:COUNT"),
        ({"card_counts": "QQ:4"}, ValueError, "malformed card code"),
        ({"episode": "season"}, ValueError, "episode must be one of 'round', 'match'"),
        ({"stack_draw_two": "yes"}, pyspiel.SpielError, "Expected type: kBool"),
        ({"uno_catch_rate": 1}, pyspiel.SpielError, "Expected type: kDouble"),
        ({"colour": "red"}, pyspiel.SpielError, "Unknown parameter 'colour'. Available parameters are"),
    ],
)
def test_bad_parameters_say_what_is_allowed(params, error, match):
    with pytest.raises(error, match=match):
        load(**params)


# ------------------------------------------------------------------------------------ OpenSpiel's algorithms


def test_openspiels_ismcts_bot_plays_whole_games():
    # OpenSpiel's ISMCTSBot for both seats, its worlds from resample_from_infostate (seeded); games until one is
    # won (a step limit bounds the random rollouts: some games stall and end truncated).
    from open_spiel.python.algorithms import ismcts, mcts

    game = load(variant="monster_high", players=2, hand_size=3, max_steps=100, rng_seed=4)
    outcomes = []
    for g in range(6):
        rng = np.random.RandomState(g)
        bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 4, random_state=rng) for _ in range(2)]
        for bot in bots:
            bot.set_resampler(lambda world, player, rng=rng: world.resample_from_infostate(player, rng.uniform))
        state = game.new_initial_state()
        while not state.is_terminal():
            choice = bots[state.current_player()].step(state)
            state.apply_action_with_legality_check(int(choice))
        returns, result = state.returns(), state.describe()
        assert sum(returns) == pytest.approx(0.0)
        outcomes.append(result["truncated"])
        if not result["truncated"]:
            assert sorted(returns) == [-1.0, 1.0] and returns[result["winners"][0]] == 1.0
            break
    assert outcomes[-1] is False


def test_openspiels_tabular_q_learning_learns_from_the_game():
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import tabular_qlearner

    game = load(variant="monster_high", players=2, rng_seed=1)
    env = rl_environment.Environment(game, enable_legality_check=True)
    assert env.use_observation  # no information-state tensor: it learns from observations
    np.random.seed(0)
    learners = [tabular_qlearner.QLearner(p, env.action_spec()["num_actions"]) for p in range(2)]
    finished = 0
    for _ in range(3):
        step = env.reset()
        while not step.last():
            seat = step.observations["current_player"]
            out = learners[seat].step(step)
            assert out.action in step.observations["legal_actions"][seat]
            step = env.step([out.action])
        finished += any(step.rewards)
        for learner in learners:
            learner.step(step)
    assert finished >= 1
    values = [q for learner in learners for table in learner._q_values.values() for q in table.values()]
    assert len(values) > 50 and any(q > 0 for q in values) and any(q < 0 for q in values)


# --------------------------------------------------------------------------------------------- the agent


def test_the_agent_plays_legal_moves_through_act_in_games_and_is_reproducible():
    def run(seed: int) -> list[int]:
        batch = GameBatch("classic", 2, 2, max_steps=80)
        batch.reset([3, 4])
        agent = OpenSpielISMCTSAgent(seed=seed, iterations=3)
        spec = O.ObservationSpec(agent.observation, 2)
        agent.bind(spec, batch.rules)
        chosen = []
        for _ in range(4):
            games = np.flatnonzero(batch.done == 0)
            if not games.size:
                break
            obs = np.zeros((games.size, spec.size), np.int8)
            masks = np.zeros((games.size, A.NUM_ACTIONS), np.int8)
            for i, g in enumerate(games):
                O.observe_one(batch.state_array, batch.config_array, g, batch.seat[g], spec.index, spec.offsets,
                              obs[i], masks[i])  # fmt: skip
            before = batch.state_array.tobytes()
            actions = agent.act_in_games(batch.state_array, batch.config_array, games, obs, masks)
            assert batch.state_array.tobytes() == before  # the engine state is left as it was
            assert actions.dtype == np.int64 and all(masks[i, a] for i, a in enumerate(actions))
            step = np.full(2, -1, np.int64)
            step[games] = actions
            batch.step(step)
            chosen += actions.tolist()
        return chosen

    first = run(5)
    assert first == run(5) and len(first) >= 6

    # a game's choice does not depend on the batch around it
    batch = GameBatch("classic", 2, 2, max_steps=80)
    batch.reset([3, 4])
    agent = OpenSpielISMCTSAgent(seed=5, iterations=3)
    spec = O.ObservationSpec(agent.observation, 2)
    agent.bind(spec, batch.rules)
    obs = np.zeros((2, spec.size), np.int8)
    masks = np.zeros((2, A.NUM_ACTIONS), np.int8)
    for g in range(2):
        O.observe_one(
            batch.state_array, batch.config_array, g, batch.seat[g], spec.index, spec.offsets, obs[g], masks[g]
        )
    both = agent.act_in_games(batch.state_array, batch.config_array, np.array([0, 1]), obs, masks)
    alone = agent.act_in_games(batch.state_array, batch.config_array, np.array([1]), obs[1:], masks[1:])
    assert both[1] == alone[0] == first[1]
    assert isinstance(make_agent("openspiel-ismcts:3", seed=2), OpenSpielISMCTSAgent)
    with pytest.raises(TypeError, match="act_in_games"):
        OpenSpielISMCTSAgent().act(np.zeros((1, 4), np.int8), np.ones((1, A.NUM_ACTIONS), np.int8))


def challenge_decision(agent):
    """A Wild Draw Four awaiting seat 1's challenge, and what `act_in_games` needs there."""
    engine_game = deal("classic", [["W+4", "Y1", "B4"], ["Y2", "Y3"]], "G5", ["R1", "R2", "R3", "R4", "R5"])
    engine_game.step("play W+4")
    engine_game.step("color blue")
    batch = engine_game.batch
    spec = O.ObservationSpec(agent.observation, 2)
    agent.bind(spec, batch.rules)
    obs = np.zeros((1, spec.size), np.int8)
    masks = np.zeros((1, A.NUM_ACTIONS), np.int8)
    O.observe_one(batch.state_array, batch.config_array, 0, batch.seat[0], spec.index, spec.offsets, obs[0], masks[0])
    return batch, (batch.state_array, batch.config_array, np.array([0]), obs, masks)


def test_the_agent_searches_a_wild_draw_four_challenge_over_redealt_hands():
    agent = OpenSpielISMCTSAgent(seed=1, iterations=3)
    batch, args = challenge_decision(agent)
    assert A.PHASE_NAMES[batch.phase[0]] == "challenge"
    state = U.make_game(batch.rules, 2).new_state_from_engine(batch.state_array)
    world = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert world.information_state_string(1) == state.information_state_string(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        choice = agent.act_in_games(*args)[0]
    assert choice in (A.CHALLENGE, A.ACCEPT) and agent.fallbacks == 0


def test_where_the_engine_cannot_redeal_the_agent_picks_at_random_and_says_so(monkeypatch):
    def refuse(self, player, sampler):
        raise U.ResampleRefused("python_uno cannot resample for player 1: no shuffle fitted")

    monkeypatch.setattr(U.UnoState, "resample_from_infostate", refuse)
    agent = OpenSpielISMCTSAgent(seed=1, iterations=3)
    _, args = challenge_decision(agent)
    with pytest.warns(RuntimeWarning, match="no shuffle fitted.*fallbacks"):
        first = agent.act_in_games(*args)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # it warns once
        second = agent.act_in_games(*args)[0]
    assert {first, second} <= {A.CHALLENGE, A.ACCEPT} and agent.fallbacks == 2
