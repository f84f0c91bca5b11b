"""The rule-based baselines (`uno_env.agents.naive`, `uno_env.agents.greedy`, `uno_env.agents.counter`).

The conformance kit (`uno_env.testing.check_agent`) in every preset and player count: legal in every phase,
deterministic for a seed, independent of batch size, blind to what its seat cannot see. Beyond the kit: legality
when fed observations above the agent's own level, and blindness even when fed `seer` observations that show
the hidden cards; the Wild Draw Four rule, once in the engine (`wild_draw_four_legal`), that the engine and the
agents follow; random tie-breaks; scripted decisions for each documented strategy; and greedy beating random.
"""

from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env import actions as A
from uno_env import observation as O
from uno_env.agents import CounterAgent, GreedyAgent, NaiveAgent, RandomAgent
from uno_env.engine import wild_draw_four_legal
from uno_env.game import GameBatch
from uno_env.rules import VARIANTS, make_rules
from uno_env.testing import check_agent
from uno_env.vector import UnoVectorEnv

AGENTS = {"naive": NaiveAgent, "greedy": GreedyAgent, "counter": CounterAgent}
NK = uno_env.NUM_KINDS
NA = uno_env.NUM_ACTIONS


# ------------------------------------------------------------------------------------------ helpers


def random_legal(rng, masks):
    scores = rng.random(masks.shape)
    scores[masks == 0] = -1.0
    return scores.argmax(axis=1)


def decide(agent, variant, n, deal, script=(), seed=0, **options):
    """The action name `agent` takes at the decision reached by dealing `deal` and playing `script`."""
    env = uno_env.raw_env(variant=variant, num_players=n, observation=agent.observation, **options)
    env.reset(seed=seed, options={"deal": deal})
    for action in script:
        env.step(env.action_id(action))
    agent.bind(env.spec, env.rules)
    view = env.observe(env.agent_selection)
    action = int(agent.act(view["observation"][None], view["action_mask"][None])[0])
    assert view["action_mask"][action] == 1
    return env.action_names[action]


class Crafted:
    """An observation written field by field (everything else zero), with its legal actions."""

    def __init__(self, level, n, phase, legal, **fields):
        self.spec = O.ObservationSpec(level, n)
        self.obs = np.zeros(self.spec.size, np.int8)
        self.set("phase", np.eye(len(A.PHASE_NAMES))[A.PHASE_NAMES.index(phase)])
        self.set("deciding", np.eye(n)[0])
        self.set("direction", [1])
        for name, value in fields.items():
            self.set(name, value)
        self.mask = np.zeros(NA, np.int8)
        self.mask[list(legal)] = 1

    def set(self, name, value):
        sl, shape = self.spec.layout[name]
        self.obs[sl] = np.asarray(value, np.int64).reshape(-1)

    def act(self, agent, variant="classic"):
        agent.bind(self.spec, make_rules(variant))
        return int(agent.act(self.obs[None], self.mask[None])[0])


RED = make_rules("classic").colors


def counts(codes, colors=RED):
    v = np.zeros(NK, np.int64)
    for code in codes:
        v[uno_env.parse_card(code, colors)] += 1
    return v


def kind(code, colors=RED):
    return uno_env.parse_card(code, colors)


def color_id(slot):
    return A.COLOR_BASE + slot


# ------------------------------------------------------------------------------------------ the kit


@pytest.mark.parametrize("name", list(AGENTS))
def test_conforms_in_every_preset_and_player_count(name):
    """`check_agent` in every preset with 2, 3 and 4 players, explicit UNO calls on so that the `uno` phase
    appears: legal (a), deterministic for a seed (b), independent of batch size (c) and blind (d) at every
    decision, each phase of each preset reached (the kit says if one is not)."""
    phases, decisions = set(), 0
    for variant in VARIANTS:
        for n in (2, 3, 4):
            report = check_agent(AGENTS[name], variant, n, uno_call="explicit", seed=n, games=6, decisions=100)
            assert report["redealt"] > report["decisions"] / 2  # most comparisons were in a world that differed
            phases |= set(report["phases"])
            decisions += report["decisions"]
    assert decisions >= 9_000
    deciding = set(A.PHASE_NAMES) - {"over"}  # every phase that asks for a decision, over the presets
    assert phases == deciding, f"phases not reached: {deciding - phases}"


# ------------------------------------------------------------------------------------------ legality


@pytest.mark.parametrize("name", list(AGENTS))
def test_legal_when_fed_observations_above_its_own_level(name):
    """Thousands of decisions per agent (its actions mixed with random ones to reach every phase) in every
    preset and player count, the agent bound to and fed a level above its own (which it must read by field)."""
    phases = set()
    decisions = 0
    rng = np.random.default_rng(0)
    for i, variant in enumerate(VARIANTS):
        for n in (2, 3, 4):
            agent = AGENTS[name](seed=i * 10 + n)
            above = O.LEVELS[O.level_index(agent.observation) + 1 :]
            level = above[(i + n) % len(above)]
            venv = UnoVectorEnv(variant, n, 48, learner_seats="all", observation=level, uno_call="explicit")
            agent.bind(venv.spec, venv.rules)
            obs, masks = venv.reset(seed=100 * i + n)
            for _ in range(40):
                actions = agent.act(obs, masks)
                assert actions.shape == (48,) and actions.dtype == np.int64
                assert masks[np.arange(48), actions].all(), f"{name}: illegal action in {variant}, {n} players"
                phases.update(np.unique(obs[:, venv.spec.layout["phase"][0]].argmax(axis=1)).tolist())
                decisions += 48
                mixed = np.where(rng.random(48) < 0.5, actions, random_legal(rng, masks))
                obs, masks, *_ = venv.step(mixed)
    assert decisions >= 25_000
    assert phases == set(range(9)), f"phases not reached: {set(range(9)) - phases}"


@pytest.mark.parametrize("name", list(AGENTS))
def test_unbound_agent_finds_the_player_count(name):
    """Without bind, the layout comes from the observation length (classic rules assumed)."""
    venv = UnoVectorEnv("classic", 3, 16, learner_seats="all", observation=AGENTS[name].observation)
    agent = AGENTS[name](seed=1)
    obs, masks = venv.reset(seed=5)
    for _ in range(30):
        actions = agent.act(obs, masks)
        assert masks[np.arange(16), actions].all()
        obs, masks, *_ = venv.step(actions)
    if agent.reads_fields:
        assert agent.spec.num_players == 3


def test_counter_refuses_minimal_observations():
    with pytest.raises(ValueError, match="knowledge"):
        CounterAgent(0).bind(O.ObservationSpec("minimal", 2), make_rules("classic"))


# ------------------------------------------------------------------------------------------ determinism


def play_sequence(agent_a, agent_b, variant, n, seed, steps=60):
    """Two agents of the same kind in the same games: their actions at every step."""
    venv = UnoVectorEnv(variant, n, 32, learner_seats="all", observation=agent_a.observation)
    agent_a.bind(venv.spec, venv.rules)
    agent_b.bind(venv.spec, venv.rules)
    obs, masks = venv.reset(seed=seed)
    a_all, b_all = [], []
    for _ in range(steps):
        a = agent_a.act(obs, masks)
        b = agent_b.act(obs.copy(), masks.copy())
        a_all.append(a)
        b_all.append(b)
        obs, masks, *_ = venv.step(a)
    return np.concatenate(a_all), np.concatenate(b_all)


def test_naive_seeds_differ():
    a, b = play_sequence(NaiveAgent(seed=1), NaiveAgent(seed=2), "classic", 2, seed=3, steps=5)
    assert not np.array_equal(a, b)


# ------------------------------------------------------------------------------------------ information


def hidden_twin_deals(variant, n, rng):
    """Two deals that differ only in what seat 0 cannot see: seat 1's hand (and so the order of the unplaced
    pile) and seat 0's own forehead card (unocorns; of the same colour, so that seat 0's guesses fare the same
    until the card is revealed). The top 40 cards of the draw pile are the same."""
    rules = make_rules(variant)
    deck = [k for k in range(NK) for _ in range(rules.card_counts[k])]
    rng.shuffle(deck)
    codes = rules.codes
    top = next(k for k in deck if k != uno_env.parse_card("W+4", rules.colors))
    deck.remove(top)
    hands = [deck[7 * p : 7 * p + 7] for p in range(n)]
    rest = deck[7 * n :]
    placed, other = rest[:40], rest[40:]
    deal_a = {
        "dealer": n - 1,
        "hands": [[codes[k] for k in h] for h in hands],
        "top": codes[top],
        "deck": [codes[k] for k in placed],
    }
    deal_b = dict(deal_a, hands=[deal_a["hands"][0], [codes[k] for k in other[:7]], *deal_a["hands"][2:]])
    if variant == "unocorns":  # seat 0's own forehead: two cards of one colour (a guess fares the same)
        first = next(i for i in range(8, len(other)) if other[i] < 52)
        second = next(i for i in range(first + 1, len(other)) if other[i] // 13 == other[first] // 13)
        others = [[] for _ in range(n - 1)]
        deal_a = dict(deal_a, foreheads=[[codes[other[first]]], *others])
        deal_b = dict(deal_b, foreheads=[[codes[other[second]]], *others])
    return deal_a, deal_b


def scripted_other(mask):
    """The other seats only draw (keep what they draw), accept, and take the first legal colour / action."""
    for a in (A.DRAW, A.PASS, A.ACCEPT, A.UNO):
        if mask[a]:
            return a
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("name", list(AGENTS))
def test_actions_do_not_change_with_hidden_information_even_fed_seer_observations(name):
    """Seat 0 is played by the agent in two games that differ only in what seat 0 cannot see; the other
    seats play the same scripted actions in both. While seat 0's `knowledge` view is the same in both, the
    agent, fed `seer` observations (which show the difference), acts the same: it reads only the fields of
    its own level. (Fed its own level, `check_agent`'s blindness check (d) covers it.)"""
    compared = 0
    games = [("classic", 2), ("unocorns", 2), ("monster_high", 3), ("emoji", 2), ("classic", 4), ("unocorns", 3),
             ("swap", 3), ("classic", 3), ("monster_high", 2), ("emoji", 4)]  # fmt: skip
    for k, (variant, n) in enumerate(games):
        deal_a, deal_b = hidden_twin_deals(variant, n, np.random.default_rng(k))
        envs = []
        for deal in (deal_a, deal_b):
            env = uno_env.raw_env(variant=variant, num_players=n, observation="seer")
            env.reset(seed=k, options={"deal": deal})
            envs.append(env)
        seer = [AGENTS[name](seed=k), AGENTS[name](seed=k)]
        for agent in seer:
            agent.bind(envs[0].spec, envs[0].rules)
        level = O.level_index("knowledge")
        offsets = O.field_offsets("knowledge", n)
        game_compared = 0
        for _ in range(400):
            if envs[0].game.done[0] or envs[1].game.done[0]:
                break
            seat = int(envs[0].game.seat[0])
            views = []  # seat 0's knowledge view, and the deciding seat's legal actions
            for env in envs:
                out = np.empty(O.observation_size("knowledge", n), np.int8)
                mask = np.empty(NA, np.int8)
                O.observe_one(env.game.state_array, env.game.config_array, 0, 0, level, offsets, out, mask)
                views.append((out, env.game.legal_masks()[0].astype(np.int8)))
            if not np.array_equal(views[0][0], views[1][0]) or seat != int(envs[1].game.seat[0]):
                break  # the games now differ in what seat 0 sees
            if seat == 0:
                seer_views = [env.observe("player_0") for env in envs]
                if game_compared == 0:
                    assert not np.array_equal(seer_views[0]["observation"], seer_views[1]["observation"])
                seer_actions = [
                    seer[i].act(seer_views[i]["observation"][None], seer_views[i]["action_mask"][None])[0]
                    for i in (0, 1)
                ]
                assert seer_actions[0] == seer_actions[1], f"{name} reads seer fields ({variant}, {n} players)"
                action = int(seer_actions[0])
                game_compared += 1
            else:
                action = scripted_other(views[0][1])
                if not views[1][1][action]:
                    break
            for env in envs:
                env.step(action)
        compared += game_compared
    assert compared >= 60


# ------------------------------------------------------------------------------------------ greedy


TWO = {"dealer": 1}  # two players: seat 0 plays first


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (["R2", "R7", "B5", "G1", "Y3", "W", "W+4"], "play R7"),  # most points: R7 over B5, R2
        (["R2", "RS", "B5", "R9"], "play RS"),  # Skip (20) over 9
        (["W", "G1", "R2", "B9"], "play R2"),  # the wild waits
        (["W", "G1", "B3"], "play W"),  # nothing else plays
        (["W", "W+4", "G1", "B3"], "play W+4"),  # legal: no red
        (["G5", "B5", "B1", "Y9"], "play B5"),  # equal points: the colour it holds most of
    ],
)
def test_greedy_plays_most_points_and_keeps_wilds(hand, expected):
    deal = dict(TWO, hands=[hand, ["Y1", "Y2", "G2", "G3", "B2", "B4", "Y7"]], top="R5")
    assert decide(GreedyAgent(0), "classic", 2, deal) == expected


def test_greedy_chooses_its_biggest_colour():
    deal = dict(TWO, hands=[["W", "G1", "G2", "B3"], ["Y1", "Y2", "Y3"]], top="R5")
    assert decide(GreedyAgent(0), "classic", 2, deal, ["play W"]) == "color green"


def test_greedy_plays_a_drawn_card_and_stacks():
    deal = dict(TWO, hands=[["G1", "B3"], ["Y1", "Y2", "B+2"]], top="R5", deck=["R8", "G9"])
    assert decide(GreedyAgent(0), "classic", 2, deal, ["draw"]) == "play R8"
    deal = dict(TWO, hands=[["R+2", "G1", "B3"], ["Y1", "Y2", "B+2"]], top="R5")
    assert decide(GreedyAgent(0), "swap", 2, deal, ["play R+2"]) == "play B+2"  # `swap`: stacking on


def test_greedy_never_plays_wild_draw_four_illegally():
    """A drawn Wild Draw Four with a card of the active colour in hand is kept (crafted observation)."""
    hand = counts(["R1", "W+4", "G2"])
    obs = Crafted("knowledge", 2, "drawn", [kind("W+4"), A.PASS], hand=hand, top_card=counts(["R5"]),
                  color=np.eye(4)[0], drawn_card=counts(["W+4"]), hand_sizes=[3, 7])  # fmt: skip
    assert obs.act(GreedyAgent(0)) == A.PASS
    assert obs.act(CounterAgent(0)) == A.PASS


# ------------------------------------------------------------------------------------------ Wild Draw Four rule

W4 = uno_env.parse_card("W+4", RED)
MANY_W4 = {"card_counts": {"W+4": 16}}  # Wild Draw Fours often in hand


def test_wild_draw_four_legal_is_the_rule():
    """Legal only without a card of the active colour; wild cards have none; before a colour is chosen: legal."""
    hand = counts(["W+4", "B1", "G+2", "W"])
    assert wild_draw_four_legal(hand, 0) and wild_draw_four_legal(hand, 3)  # no red, no yellow
    assert not wild_draw_four_legal(hand, 1) and not wild_draw_four_legal(hand, 2)  # a blue 1, a green Draw Two
    assert wild_draw_four_legal(counts(["W+4", "W", "WN"], make_rules("unocorns").colors), 2)
    assert wild_draw_four_legal(hand, -1)


def random_legal_preferring(rng, masks, kind, share=0.5):
    """Random legal actions; where `kind` is legal, it is taken with probability `share`."""
    actions = random_legal(rng, masks)
    return np.where((masks[:, kind] > 0) & (rng.random(len(masks)) < share), kind, actions)


@pytest.mark.parametrize("challenge", [False, True])
def test_engine_judges_wild_draw_four_by_the_rule(challenge):
    """Random games: without challenges the legal mask offers a held Wild Draw Four exactly where
    `wild_draw_four_legal(hand, active colour)` allows it; with challenges it is always offered and the verdict
    the engine records as it is played (`w4_guilty`) is the rule's answer."""
    batch = GameBatch("classic", 3, 256, challenge_wild_draw_four=challenge, **MANY_W4)
    batch.reset(seeds=11)
    rng = np.random.default_rng(0)
    st = batch.state
    offered = refused = played = guilty = 0
    for _ in range(150):
        masks = batch.legal_masks()
        games = np.arange(batch.batch_size)
        seats = st.seat.astype(np.int64)
        holds = (st.phase == A.PHASE_PLAY) & (st.pending_draw == 0) & (st.hand[games, seats, W4] > 0) & ~st.done
        for g in np.flatnonzero(holds):
            legal = wild_draw_four_legal(st.hand[g, seats[g]], int(st.color[g]))
            assert masks[g, W4] == (1 if legal or challenge else 0)
            offered += legal
            refused += not legal
        actions = random_legal_preferring(rng, masks, W4)
        plays = np.flatnonzero((actions == W4) & (st.phase == A.PHASE_PLAY))
        verdicts = {int(g): not wild_draw_four_legal(st.hand[g, seats[g]], int(st.color[g])) for g in plays}
        batch.step(np.where(st.done, 0, actions))
        for g, expected in verdicts.items():
            assert bool(st.w4_guilty[g]) == expected
            played += 1
            guilty += expected
        batch.reset_where(st.done.astype(bool), rng.integers(0, 2**31, batch.batch_size).astype(np.uint64))
    assert offered > 50 and refused > 50 and played > 50
    assert not challenge or 10 < guilty < played  # bluffs and honest plays both judged


@pytest.mark.parametrize("name", ["greedy", "counter"])
def test_agents_play_wild_draw_four_only_as_the_engine_rule_allows(name):
    """With challenges on, the mask offers every held Wild Draw Four; greedy and counter play one only where the
    engine's `wild_draw_four_legal` allows it for the hand and active colour their observation shows, and they
    do play it there (when nothing else plays, or to strike)."""
    agent = AGENTS[name](seed=3)
    venv = UnoVectorEnv("classic", 3, 256, learner_seats="all", observation=agent.observation, **MANY_W4)
    agent.bind(venv.spec, venv.rules)
    fields_of = venv.spec.unflatten
    obs, masks = venv.reset(seed=4)
    rng = np.random.default_rng(1)
    illegal_offered = played = 0
    for _ in range(150):
        actions = agent.act(obs, masks)
        f = fields_of(obs)
        active = np.where(f["color"].any(axis=1), f["color"].argmax(axis=1), -1)
        legal = np.array([wild_draw_four_legal(f["hand"][i], int(active[i])) for i in range(len(obs))])
        offered = masks[:, W4] > 0
        assert legal[actions == W4].all(), f"{name} played an illegal Wild Draw Four"
        illegal_offered += int((offered & ~legal).sum())
        played += int((actions == W4).sum())
        obs, masks, *_ = venv.step(np.where(rng.random(len(obs)) < 0.5, actions, random_legal(rng, masks)))
    assert illegal_offered > 50 and played > 20


# ------------------------------------------------------------------------------------------ tie-breaks


@pytest.mark.parametrize("name", ["greedy", "counter"])
def test_ties_are_broken_at_random_among_the_best_only(name):
    """Colour after a wild, two colours held equally (counter: nothing known of the next player, and the same
    number of unseen cards of each): both are chosen over seeds, never a colour held less."""
    hand = counts(["R1", "R2", "B3", "B4", "G5"])
    view = Crafted("knowledge", 2, "color", [color_id(c) for c in range(4)], hand=hand, top_card=counts(["W"]),
                   hand_sizes=[5, 6], discard_pile=counts(["G6", "Y1", "Y2", "W"]))  # fmt: skip
    chosen = {view.act(AGENTS[name](seed)) for seed in range(40)}
    assert chosen == {color_id(0), color_id(1)}


def test_greedy_urrrhhh_gives_away_its_biggest_colour():
    deal = dict(TWO, hands=[["WU", "B1", "B2", "G3", "Y9"], ["Y1", "Y2", "Y3"]], top="P5")
    assert decide(GreedyAgent(0), "monster_high", 2, deal) == "play WU"  # sheds most: first
    assert decide(GreedyAgent(0), "monster_high", 2, deal, ["play WU"]) == "color blue"


def test_greedy_swaps_with_the_smallest_hand():
    deal = {
        "dealer": 2,
        "hands": [["WS", "R1", "G2", "B3", "Y4", "G7"], ["R2", "R3", "R4", "B5", "B6"], ["G1", "Y1"]],
        "top": "R9",
    }
    assert decide(GreedyAgent(0), "swap", 3, deal) == "play WS"
    assert decide(GreedyAgent(0), "swap", 3, deal, ["play WS"]) == "swap +2"
    small = dict(deal, hands=[["WS", "G2"], ["R2", "R3", "R4", "B5", "B6"], ["G1", "Y1", "Y2"]])
    assert decide(GreedyAgent(0), "swap", 3, small) == "play WS"  # the only card that plays
    assert decide(GreedyAgent(0), "swap", 3, small, ["play WS"]) == "pass"  # its own hand is smallest


def test_greedy_emoji_with_its_highest_number_card():
    deal = dict(TWO, hands=[["WE", "R3", "G7", "B7", "B1"], ["Y1", "Y2", "Y3"]], top="R9")
    assert decide(GreedyAgent(0), "emoji", 2, deal) == "play WE"
    assert decide(GreedyAgent(0), "emoji", 2, deal, ["play WE"]) == "play B7"  # 7 of the colour it holds most


def test_greedy_calls_uno_and_accepts_wild_draw_four():
    deal = dict(TWO, hands=[["R1", "R2"], ["Y1", "Y2", "Y3"]], top="R5")
    assert decide(GreedyAgent(0), "classic", 2, deal, ["play R2"], uno_call="explicit") == "uno"
    deal = {"dealer": 0, "hands": [["R1", "R2", "B3"], ["W+4", "R7", "G1", "G2"]], "top": "R5"}
    assert decide(GreedyAgent(0), "classic", 2, deal, ["play W+4", "color green"]) == "accept"


def test_greedy_guesses_the_colour_it_has_seen_least():
    """Seat 0 holds blue, green and yellow cards and sees a yellow forehead: pink is the most unseen colour."""
    hands = [["B1", "B2", "B3", "G1", "G2", "Y1", "Y2"], ["B4", "G4", "Y4"]]
    deal = dict(TWO, hands=hands, top="G5", foreheads=[["B9"], ["Y3"]])
    assert decide(GreedyAgent(0), "unocorns", 2, deal) == "color pink"


# ------------------------------------------------------------------------------------------ counter


def challenge_view(prev_hand, known=(), discard=()):
    """Seat 0 answers a Wild Draw Four played by seat 1 (two players) on red; seat 0 holds 5 non-red cards."""
    return Crafted(
        "knowledge", 2, "challenge", [A.CHALLENGE, A.ACCEPT],
        hand=counts(["B1", "B2", "G3", "Y4", "Y5"]), top_card=counts(["W+4"]), color=np.eye(4)[2],
        hand_sizes=[5, prev_hand], w4_previous_color=np.eye(4)[0],
        known_cards=np.stack([np.zeros(NK), counts(known)]), discard_pile=counts(["W+4", *discard]),
    )  # fmt: skip


def test_counter_challenges_when_the_previous_colour_is_likely_held():
    assert challenge_view(14).act(CounterAgent(0)) == A.CHALLENGE  # 14 random cards: red almost surely
    assert challenge_view(2).act(CounterAgent(0)) == A.ACCEPT  # 2 cards: likely no red
    assert challenge_view(2, known=["R3"]).act(CounterAgent(0)) == A.CHALLENGE  # known to hold red
    reds_gone = [f"R{r}" for r in range(10)] + [f"R{r}" for r in range(1, 10)] + ["RS", "RS", "RR", "RR"]
    assert challenge_view(10, discard=reds_gone).act(CounterAgent(0)) == A.ACCEPT  # 2 reds unseen of ~80
    assert challenge_view(14).act(GreedyAgent(0)) == A.ACCEPT


def test_counter_challenges_an_illegal_wild_draw_four_in_a_game():
    prev = ["W+4", "R7", "R8", "G1", "G2", "B1", "B2", "Y1", "Y2", "G3", "B4", "Y6", "G6"]
    deal = {"dealer": 0, "hands": [["R1", "B3", "G5"], prev], "top": "R5"}
    assert decide(CounterAgent(0), "classic", 2, deal, ["play W+4", "color green"]) == "challenge"


def guess_view(wrong=()):
    """Seat 0 guesses its forehead card; it holds blues, the discard pile is mostly pink and green, seat 1's
    forehead is yellow."""
    discard = ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "G1", "G2", "G3", "G4", "G5", "G6"]
    colors = make_rules("unocorns").colors
    legal = [color_id(c) for c in range(4) if c not in wrong]
    wrong_guesses = np.zeros((4, 4))
    wrong_guesses[0, list(wrong)] = 1
    return Crafted(
        "knowledge", 2, "guess", legal,
        hand=counts(["B1", "B2", "B3"], colors), top_card=counts(["G6"], colors), color=np.eye(4)[2],
        hand_sizes=[3, 5], forehead_counts=[1, 1],
        foreheads=np.stack([np.zeros(NK), counts(["Y5"], colors)]),
        discard_pile=counts(discard, colors), wrong_guesses=wrong_guesses,
    )  # fmt: skip


def test_counter_guesses_the_least_seen_colour():
    assert guess_view().act(CounterAgent(0), "unocorns") == color_id(3)  # yellow: 24 unseen, blue 22, ...
    assert guess_view(wrong=[3]).act(CounterAgent(0), "unocorns") == color_id(1)  # not a colour guessed wrong
    # greedy counts only the top card: pink (25 unseen) looks best to it
    minimal = guess_view()
    minimal_obs = minimal.obs[: O.observation_size("minimal", 2)]
    greedy = GreedyAgent(0)
    greedy.bind(O.ObservationSpec("minimal", 2), make_rules("unocorns"))
    assert greedy.act(minimal_obs[None], minimal.mask[None])[0] == color_id(0)


def test_counter_strikes_when_the_next_player_is_close():
    """Two players: the opponent has one card. Greedy keeps its Wild Draw Four and plays B5; counter plays it."""
    deal = dict(TWO, hands=[["W+4", "G9", "B5"], ["Y1"]], top="R5")
    assert decide(GreedyAgent(0), "classic", 2, deal) == "play B5"
    assert decide(CounterAgent(0), "classic", 2, deal) == "play W+4"
    far = dict(deal, hands=[["W+4", "G9", "B5"], ["Y1", "Y2", "Y3", "Y4"]])
    assert decide(CounterAgent(0), "classic", 2, far) == "play B5"


def test_counter_holds_attacks_with_three_players():
    deal = {"dealer": 2, "hands": [["RS", "R+2", "R3", "G1"], ["B1", "B2", "B3", "B4"], ["Y1", "Y2"]], "top": "R5"}
    assert decide(GreedyAgent(0), "classic", 3, deal) in ("play RS", "play R+2")  # 20 points first
    assert decide(CounterAgent(0), "classic", 3, deal) == "play R3"  # the next player has 4 cards: held
    close = dict(deal, hands=[deal["hands"][0], ["B1", "B2"], ["Y1", "Y2", "Y3"]])
    assert decide(CounterAgent(0), "classic", 3, close) == "play R+2"  # next player has 2: Draw Two first


def test_counter_keeps_the_colour_the_next_player_just_drew_on():
    """Seat 1 could not play on R5 and drew; with R2 and B5 counter keeps red (and a rank seat 1 may lack),
    greedy plays the higher B5."""
    deal = {"dealer": 0, "hands": [["R2", "B5", "G8", "Y7"], ["G1", "B2", "Y3"]], "top": "R5", "deck": ["G6"]}
    assert decide(GreedyAgent(0), "classic", 2, deal, ["draw"]) == "play B5"
    assert decide(CounterAgent(0), "classic", 2, deal, ["draw"]) == "play R2"


def test_counter_keeps_urrrhhh_for_when_it_matters():
    deal = dict(TWO, hands=[["WU", "P1", "B1", "B2"], ["Y1", "Y2", "Y3", "G4"]], top="P5")
    assert decide(GreedyAgent(0), "monster_high", 2, deal) == "play WU"
    assert decide(CounterAgent(0), "monster_high", 2, deal) == "play P1"
    close = dict(deal, hands=[deal["hands"][0], ["Y1", "Y2"]])
    assert decide(CounterAgent(0), "monster_high", 2, close) == "play WU"
    out = dict(deal, hands=[["WU", "B1", "B2"], ["Y1", "Y2", "Y3", "G4"]])
    assert decide(CounterAgent(0), "monster_high", 2, out) == "play WU"  # giving blue away empties the hand


def test_counter_saves_its_wild_cards_while_it_holds_many():
    hand = ["W", "G1", "G2", "B3", "B4", "Y6"]
    deal = dict(TWO, hands=[hand, ["Y1", "Y2", "Y3", "G4", "G5"]], top="R5", deck=["W", "R9"])
    assert decide(GreedyAgent(0), "classic", 2, deal) == "play W"
    assert decide(CounterAgent(0), "classic", 2, deal) == "draw"  # 6 cards: the wild waits
    assert decide(CounterAgent(0), "classic", 2, deal, ["draw"]) == "pass"  # a drawn wild is kept too
    assert decide(CounterAgent(0, save_wilds=0), "classic", 2, deal) == "play W"
    close = dict(deal, hands=[hand, ["Y1", "Y2"]])
    assert decide(CounterAgent(0), "classic", 2, close) == "play W"  # the next player is close
    few = dict(deal, hands=[["W", "G1", "B3"], ["Y1", "Y2", "Y3", "G4", "G5"]])
    assert decide(CounterAgent(0), "classic", 2, few) == "play W"


def test_naive_plays_a_card_when_it_can():
    deal = dict(TWO, hands=[["R2", "B5", "G1", "W"], ["Y1", "Y2", "Y3"]], top="R5")
    chosen = {decide(NaiveAgent(s), "classic", 2, deal) for s in range(30)}
    assert chosen == {"play R2", "play B5", "play W"}
    deal = dict(TWO, hands=[["G1", "B3"], ["Y1", "Y2", "B+2"]], top="R5", deck=["R8", "G9"])
    assert decide(NaiveAgent(0), "classic", 2, deal) == "draw"
    assert decide(NaiveAgent(0), "classic", 2, deal, ["draw"]) == "play R8"


# ------------------------------------------------------------------------------------------ strength


def win_rate(agent_a, agent_b, variant, games, seed=0):
    """Seat-balanced (half the games with A at seat 0, half at seat 1), one game per env slot."""
    wins = 0
    for seat in (0, 1):
        venv = UnoVectorEnv(variant, 2, games // 2, learner_seats=[seat], opponents={1 - seat: agent_b},
                            observation=agent_a.observation)  # fmt: skip
        agent_a.bind(venv.spec, venv.rules)
        obs, masks = venv.reset(seed=seed + seat * games)
        winner = np.full(games // 2, -2)
        while (winner == -2).any():
            obs, masks, _, _, _, info = venv.step(agent_a.act(obs, masks))
            first = info["_episode"] & (winner == -2)
            winner[first] = info["episode"]["winner"][first]
        wins += int((winner == seat).sum())
    return wins / games


@pytest.mark.parametrize("variant", ["classic", "monster_high"])
def test_counter_games_end_in_good_time(variant):
    """Saving wild cards must not stall a game (a hand of wild cards once kept drawing for thousands of steps)."""
    agent = CounterAgent(1)
    venv = UnoVectorEnv(variant, 2, 200, learner_seats=[0], opponents={1: RandomAgent(2)}, observation="knowledge")
    agent.bind(venv.spec, venv.rules)
    obs, masks = venv.reset(seed=0)
    length = np.full(200, -1)
    for _ in range(400):
        obs, masks, _, _, _, info = venv.step(agent.act(obs, masks))
        first = info["_episode"] & (length < 0)
        length[first] = info["episode"]["length"][first]
        if (length >= 0).all():
            break
    assert (length >= 0).all() and length.max() < 600


def test_greedy_beats_random():
    assert win_rate(GreedyAgent(1), RandomAgent(2), "classic", 600) > 0.55  # measured ~0.98
