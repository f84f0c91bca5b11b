"""The search agents (`uno_env.agents.ismcts`): honest (blind to what their seat cannot see), reproducible,
legal, seatable wherever agents sit (uno-arena, uno-play, UnoVectorEnv), and the seer bound sees through hands.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from conftest import scripted_input
from rich.console import Console

from uno_env import GameBatch
from uno_env import observation as O
from uno_env.agents.ismcts import ISMCTSAgent
from uno_env.agents.registry import is_agent_name, make_agent, search_budget
from uno_env.arena.tournament import main as arena_main
from uno_env.arena.tournament import play_games
from uno_env.testing import act, check_agent
from uno_env.testing import deal as new_game
from uno_env.vector import UnoVectorEnv, agent_actions


def bound(agent, game_or_batch, players):
    batch = getattr(game_or_batch, "batch", game_or_batch)
    agent.bind(O.ObservationSpec(agent.observation, players), batch.rules)
    return agent


def decide(agent, batch: GameBatch, g: int = 0) -> int:
    spec = O.ObservationSpec(agent.observation, batch.num_players)
    obs = np.zeros((1, spec.size), np.int8)
    mask = np.zeros((1, 77), np.int8)
    O.observe_one(
        batch.state_array, batch.config_array, g, int(batch.seat[g]), spec.index, spec.offsets, obs[0], mask[0]
    )
    return int(agent_actions(agent, batch.state_array, batch.config_array, np.array([g]), obs, mask)[0])


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("unocorns", 3), ("monster_high", 2),
                                                  ("emoji", 3), ("swap", 2)])  # fmt: skip
def test_ismcts_passes_the_conformance_kit_blind_deterministic_batch_independent(variant, players):
    # (d) asks it in worlds redealt where its seat cannot see: a search that peeked at the real deal would differ
    summary = check_agent(lambda seed: ISMCTSAgent(seed, iterations=12), variant, players, games=4, decisions=40)
    assert summary["redealt"] > 20


def test_the_conformance_kit_catches_a_search_that_peeks():
    class Peeking(ISMCTSAgent):
        def act_in_games(self, state, config, games, observations, action_masks):
            out = super().act_in_games(state, config, games, observations, action_masks)
            # prefer a card the next seat holds: information it cannot have
            for i, g in enumerate(games):
                nxt = (int(state[g]["seat"]) + 1) % int(config[0]["num_players"])
                for a in np.flatnonzero(action_masks[i]):
                    if a < state[g]["hand"].shape[1] and state[g]["hand"][nxt, a] > 0:
                        out[i] = a
            return out

    with pytest.raises(AssertionError, match=r"\(d\) not blind"):
        check_agent(lambda seed: Peeking(seed, iterations=4), "classic", 2, games=6, decisions=60)


def test_the_seer_sees_every_hand_and_is_refused_where_honesty_is_checked():
    seer = make_agent("seer:8", seed=0)
    assert seer.observation == "seer" and seer.seer
    with pytest.raises(AssertionError, match="allow_seer"):
        check_agent(seer, "classic", 2, games=2, decisions=4)


def test_the_seer_keeps_the_colour_its_last_opponent_card_matches_away():
    # Seat 1 holds one card, Y7. Seat 0 plays a wild card and picks its colour: the seer, seeing Y7, never picks
    # yellow (seat 1 would go out at once); the others are equally good to it.
    for seed in range(3):
        g = new_game("classic", [["W", "R1", "B2", "G3"], ["Y7"]], "R5", ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6"])
        act(g, "play W")
        assert g.phase == "color"
        seer = bound(make_agent("seer:200", seed=seed), g, 2)
        assert g.batch.action_names[decide(seer, g.batch)] != "color yellow"


def test_ismcts_plays_the_skip_that_wins_the_race():
    # Seat 0: Skip and a 5; seat 1 holds one card. With two players a Skip is another turn: Skip then 5 wins at
    # once, the 5 first lets seat 1 go out with any red or 5. The search finds Skip whatever its seed.
    for seed in range(3):
        g = new_game("classic", [["RS", "R5"], ["R9"]], "R2", ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6"])
        agent = bound(ISMCTSAgent(seed, iterations=100), g, 2)
        assert g.batch.action_names[decide(agent, g.batch)] == "play RS"


def test_the_same_seed_gives_the_same_games_and_budgets_in_milliseconds_work():
    def games(seed):
        agents = {"search": make_agent("ismcts:10", seed=seed), "counter": make_agent("counter", seed=1)}
        return play_games(agents, ["search", "counter"], "classic", games=4, seed=5)

    assert games(3) == games(3)
    timed = make_agent("ismcts:5ms", seed=0)
    assert timed.milliseconds == 5 and timed.iterations is None
    records = play_games({"t": timed, "c": make_agent("counter")}, ["t", "c"], "classic", games=2, seed=1)
    assert len(records) == 2 and timed.searches > 0
    assert 3 <= 1000 * timed.search_seconds / timed.searches < 50  # the budget, and a little to finish a chunk


def test_names_settings_and_clear_errors():
    agent = make_agent("ismcts:50:random:search", seed=1)
    assert (agent.iterations, agent.rollout, agent.others, agent.name) == (50, "random", "search", "ismcts:50")
    assert is_agent_name("ismcts") and is_agent_name("seer:20ms") and is_agent_name("openspiel-ismcts:10")
    for bad in ("ismcts:0", "ismcts:fast", "ismcts:-3", "seer:10:sideways"):
        with pytest.raises(ValueError, match="budget"):
            make_agent(bad)
    with pytest.raises(ValueError, match="not both"):
        ISMCTSAgent(iterations=10, milliseconds=5)
    with pytest.raises(ValueError, match="rollout must be one of counter, random"):
        ISMCTSAgent(rollout="greedy")
    for setting in ({"widening": -1}, {"z": "2"}, {"exploration": True}):
        with pytest.raises(ValueError, match=f"{next(iter(setting))} must be a number >= 0"):
            ISMCTSAgent(**setting)
    with pytest.raises(ValueError, match="max_nodes must be a positive int"):
        ISMCTSAgent(max_nodes=0)
    with pytest.raises(TypeError, match="cannot act from observations alone"):
        ISMCTSAgent().act(np.zeros((1, 4), np.int8), np.ones((1, 77), np.int8))


def test_seated_in_uno_arena_and_as_an_opponent_of_the_vector_env(capsys, tmp_path):
    assert arena_main(["--agents", "ismcts:8", "counter", "--games", "4", "--out", str(tmp_path)]) == 0
    assert "ismcts:8" in capsys.readouterr().out
    opponent = make_agent("ismcts:6", seed=0)
    env = UnoVectorEnv("classic", 2, num_envs=3, learner_seats=[0], opponents=opponent)
    obs, masks = env.reset(seed=2)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, rewards, terminated, truncated, info = env.step(actions)
        ended += int(terminated.sum())
    assert ended > 0 and opponent.searches > 50


def test_in_uno_play_as_the_opponent():
    from uno_env.play.terminal import main as play_main

    console = Console(file=io.StringIO(), width=200, highlight=False)
    # the person always takes the first legal action; the search answers at its turns, to the end of the round
    assert (
        play_main(["--opponents", "ismcts:8", "--seed", "3"], input_fn=scripted_input(then="1"), console=console) == 0
    )
    assert "wins the round" in console.file.getvalue() or "win the round" in console.file.getvalue()


def test_a_league_opponent_of_the_native_trainer(tmp_path):
    from uno_env.train import native_ppo

    argv = ["--num-envs", "16", "--rollout-steps", "8", "--minibatch-size", "64", "--epochs", "1", "--hidden", "16",
            "--eval-games", "4", "--eval-every", "4", "--league", "ismcts:4:1", "counter:1", "--no-progress",
            "--total-steps", "256", "--out", str(tmp_path)]  # fmt: skip
    config = native_ppo.parse_args(argv)
    assert config.league_shares == {"ismcts:4": 1.0, "counter": 1.0}
    native_ppo.train(config)
    assert (tmp_path / "policy.pt").exists()


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("unocorns", 4)])
def test_the_belief_weighted_search_passes_the_conformance_kit(variant, players):
    # the belief reads only the seat's own observation, and the worlds still come from the engine's redeal
    agent = make_agent("ismcts-belief:12", seed=1)
    assert agent.name == "ismcts-belief:12" and agent.observation == "belief"
    summary = check_agent(lambda seed: ISMCTSAgent(seed, iterations=12, belief=True), variant, players, games=4,
                          decisions=40)  # fmt: skip
    assert summary["redealt"] > 20


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("swap", 3)])
def test_the_search_over_void_respecting_worlds_passes_the_conformance_kit(variant, players):
    # what a seat showed it lacked is public (its draws), and the worlds still come from the engine's redeal
    agent = make_agent("ismcts:12:voids", seed=1)
    assert (agent.name, agent.observation, agent.worlds) == ("ismcts:12:voids", "knowledge", "voids")
    summary = check_agent(lambda seed: ISMCTSAgent(seed, iterations=12, worlds="voids"), variant, players, games=4,
                          decisions=40)  # fmt: skip
    assert summary["redealt"] > 20


def test_the_search_that_sees_the_next_hand_keeps_it_and_is_refused_where_honesty_is_checked():
    # Seat 1 (next after seat 0) holds one card, Y7: seeing that hand, the search never names yellow, the colour
    # `counter` (its rollout policy) names with two yellow cards in hand, and the honest search keeps.
    seer = make_agent("seer:8:next", seed=0)
    assert (seer.name, seer.observation, seer.seer, seer.worlds) == ("seer:8:next", "seer", False, "next-seen")
    with pytest.raises(AssertionError, match="allow_seer"):
        check_agent(seer, "classic", 3, games=2, decisions=4)
    for seed in range(3):
        g = new_game("classic", [["W", "Y1", "Y2", "B3"], ["Y7"], ["G1", "G2", "R9"]], "R5",
                     ["R1", "B1", "G5", "B7", "R8", "G8"], seed=seed)  # fmt: skip
        act(g, "play W")
        names = g.batch.action_names
        assert names[decide(bound(make_agent("counter", seed=seed), g, 3), g.batch)] == "color yellow"
        assert names[decide(bound(make_agent("seer:400:next", seed=seed), g, 3), g.batch)] != "color yellow"
        assert names[decide(bound(make_agent("ismcts:400", seed=seed), g, 3), g.batch)] == "color yellow"  # blind
    with pytest.raises(ValueError, match="not with seer"):
        ISMCTSAgent(0, seer=True, worlds="voids")
    with pytest.raises(ValueError, match="worlds must be one of uniform, voids, next-seen"):
        ISMCTSAgent(0, worlds="peek")
    two = make_agent("seer:8:next2", seed=0)
    assert (two.name, two.seen_hands, two.observation) == ("seer:8:next2", 2, "seer")
    with pytest.raises(ValueError, match="seen_hands must be a positive int"):
        ISMCTSAgent(0, worlds="next-seen", seen_hands=0)


def test_world_weights_follow_the_belief_and_are_one_without_it():
    from uno_env.agents.ismcts import world_log_weight

    batch = new_game("classic", [["R5", "G3"], ["B7", "B8", "Y2"]], "R1", ["Y4", "G6", "B1"], dealer=1).batch
    root = batch.state_array[:1].copy()
    ratio = np.zeros((2, 59))
    assert world_log_weight(root, root, batch.config_array, ratio) == 0.0
    ratio[1, batch.rules.codes.index("B7")] = 2.0  # the belief says seat 1 holds blue 7s more than counting does
    ratio[1, batch.rules.codes.index("Y2")] = -1.0
    assert world_log_weight(root, root, batch.config_array, ratio) == 1.0  # one B7 (+2) and one Y2 (-1)
    agent = bound(ISMCTSAgent(3, iterations=8, belief=True), batch, 2)
    seen = batch.observe(0, 0, "belief")[0]
    weights = agent._log_ratio(seen)
    assert weights.shape == (2, 59) and (weights[0] == 0).all() and np.abs(weights[1]).max() > 0
    assert (bound(ISMCTSAgent(3, iterations=8), batch, 2)._log_ratio(batch.observe(0, 0)[0]) == 0).all()


def test_a_belief_needs_the_paired_root_and_no_seer():
    with pytest.raises(ValueError, match="paired"):
        ISMCTSAgent(1, belief=True, root="ucb")
    with pytest.raises(ValueError, match="seer"):
        ISMCTSAgent(1, belief=True, seer=True)
    with pytest.raises(ValueError, match="belief_power"):
        ISMCTSAgent(1, belief=True, belief_power=-1)
    tempered = make_agent("ismcts-belief:50:power0.25", seed=2)
    assert (tempered.belief_power, tempered.name) == (0.25, "ismcts-belief:50:power0.25")
    with pytest.raises(ValueError, match="got 'power0.25'"):
        make_agent("ismcts:50:power0.25")  # only the belief search has a power


def test_a_tempered_belief_scales_the_log_odds():
    batch = new_game("classic", [["R5", "G3"], ["B7", "B8", "Y2"]], "R1", ["Y4", "G6", "B1"], dealer=1).batch
    seen = batch.observe(0, 0, "belief")[0]
    full = bound(ISMCTSAgent(3, iterations=8, belief=True), batch, 2)._log_ratio(seen)
    half = bound(ISMCTSAgent(3, iterations=8, belief=True, belief_power=0.5), batch, 2)._log_ratio(seen)
    assert np.allclose(half, full / 2) and np.abs(full).max() > 0


@pytest.mark.parametrize("name", ["ismcts:100001", "seer:600001ms", "ismcts-belief:1" + "0" * 40, "openspiel-ismcts:0",
                                  "ismcts:0ms", "openspiel-ismcts:100001"])
def test_every_search_budget_is_capped_in_the_registry(name):
    with pytest.raises(ValueError, match=r"a search's budget is 1 to 100,000 iterations or 1 to 600,000ms a decision|"
                                         r"openspiel-ismcts: the budget is a number of iterations"):
        make_agent(name)


@pytest.mark.parametrize("digits", ["\u0662\u0660", "\uff12\uff10", "\u00b2", "\U0001d7ce"])
def test_a_budget_is_read_in_ascii_digits_only(digits):
    for name in (f"ismcts:{digits}", f"ismcts:{digits}ms", f"openspiel-ismcts:{digits}"):
        with pytest.raises(ValueError, match="ASCII digits|a number of iterations"):
            make_agent(name)
    assert search_budget("ismcts", "20:counter:7ms") == {"iterations": 20, "milliseconds": 7}
    with pytest.raises(ValueError, match="1 to 10 iterations or 1 to 5ms"):
        search_budget("ismcts", "6ms", most_iterations=10, most_milliseconds=5)
    with pytest.raises(ValueError, match="iterations must be an int from 1 to 100,000"):
        ISMCTSAgent(0, iterations=100_001)


def test_a_prior_sets_the_paired_roots_default_move_and_stays_blind():
    import torch

    from uno_env.agents.policy import PolicyAgent, PolicyNetwork

    torch.manual_seed(0)
    network = PolicyNetwork("knowledge", 3, hidden=(16,))
    torch.nn.init.normal_(network.policy_head.weight, std=1.0)  # a decided (untrained) policy, unlike counter
    venv = UnoVectorEnv("classic", 3, num_envs=16, learner_seats=[0], opponents=make_agent("counter", seed=1))
    search = bound(ISMCTSAgent(0, iterations=24, z=1e9, prior=PolicyAgent(network, name="net")), venv.game, 3)
    bind_prior = PolicyAgent(network, name="net")
    bind_prior.bind(O.ObservationSpec("knowledge", 3), venv.rules)
    obs, masks = venv.reset(seed=9)
    differs = 0
    for _ in range(6):
        chosen = agent_actions(search, venv.game.state_array, venv.game.config_array, np.arange(16), obs, masks)
        wanted = bind_prior.act(obs, masks)  # z = 1e9: the root never leaves its default
        assert np.array_equal(chosen, wanted)
        counter = make_agent("counter", seed=0)
        counter.bind(O.ObservationSpec("knowledge", 3), venv.rules)
        differs += int((counter.act(obs, masks) != wanted).sum())
        obs, masks, *_ = venv.step(chosen)
    assert differs > 0  # the default really is the prior's, not the rollout policy's
    assert search.name == "ismcts:24:prior=net"
    check_agent(lambda seed: ISMCTSAgent(seed, iterations=8, prior=PolicyAgent(network, name="net")), "classic", 3,
                games=2, decisions=20)  # fmt: skip
    with pytest.raises(ValueError, match="only the seer may use it"):
        ISMCTSAgent(0, prior=PolicyAgent(PolicyNetwork("seer", 3, hidden=(8,))))
