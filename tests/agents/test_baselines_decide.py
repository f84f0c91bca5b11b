"""The rule-based baselines' shared parts: the observation readers beside the encoder (`uno_env.observation`) and
the one decide loop (`uno_env.agents.rule_based.decide_rows`) that greedy and counter run with their phase scorers."""

from __future__ import annotations

import numpy as np
from numba import njit

import uno_env
from uno_env import actions as A
from uno_env import cards as C
from uno_env import observation as O
from uno_env.agents.counter import CounterAgent, counter_decide
from uno_env.agents.greedy import GreedyAgent, greedy_decide
from uno_env.agents.rule_based import decide_rows
from uno_env.testing import deal_env

NK = C.NUM_KINDS
NC = C.NUM_COLORS


def seen(env):
    """(observation row, mask) of the deciding seat of an AEC env."""
    view = env.observe(env.agent_selection)
    return view["observation"].astype(np.int8), view["action_mask"].astype(np.int8)


def card(env, code):
    return uno_env.parse_card(code, env.rules.colors)


# ------------------------------------------------------------------------------------------ the readers


def test_the_readers_read_what_the_encoder_wrote():
    env = deal_env("classic", [["R1", "R1", "G5", "W"], ["B1", "B2", "B3"]], top="R5")
    obs, _ = seen(env)
    off, fields = env.spec.offsets, env.spec.unflatten(obs)
    assert O.phase_of(obs, off) == A.PHASE_PLAY
    hand = O.field(obs, off, O.F_HAND, NK)
    np.testing.assert_array_equal(hand, fields["hand"])
    assert hand[card(env, "R1")] == 2 and hand[card(env, "W")] == 1 and hand.sum() == 4
    np.testing.assert_array_equal(O.field(obs, off, O.F_HAND_SIZES, 2), [4, 3])
    assert O.one_hot_index(O.field(obs, off, O.F_TOP, NK)) == card(env, "R5")
    assert O.one_hot_index(O.field(obs, off, O.F_COLOR, NC)) == 0  # red, the first colour slot
    assert O.one_hot_index(O.field(obs, off, O.F_W4_PREV, NC)) == -1  # no Wild Draw Four played: all zero
    assert O.argmax_first(hand) == card(env, "R1")  # the largest count

    env.step(env.action_id("play W"))
    obs, _ = seen(env)
    assert O.phase_of(obs, off) == A.PHASE_COLOR
    assert O.one_hot_index(O.field(obs, off, O.F_TOP, NK)) == card(env, "W")


def test_argmax_first_takes_the_first_of_ties():
    values = np.array([0, 3, 1, 3], np.int8)
    assert O.argmax_first(values) == int(np.argmax(values)) == 1
    assert O.one_hot_index(np.zeros(4, np.int8)) == -1


# ------------------------------------------------------------------------------------------ the decide loop


def decide_kernel(kernel, env, rows, masks, *params):
    agent = (CounterAgent if kernel is counter_decide else GreedyAgent)(0)
    agent.bind(env.spec, env.rules)
    actions = np.empty(len(rows), np.int64)
    kernel(rows, masks, agent.rng, env.spec.offsets, env.spec.num_players, agent._points, agent._counts, *params,
           actions)  # fmt: skip
    return [env.action_names[a] for a in actions]


def test_greedy_and_counter_run_one_loop_and_differ_by_their_scorers():
    """The next player holds one card: greedy's play scorer keeps the Wild Draw Four and sheds B5; counter's strikes.
    In the colour phase of the same batch both color green, the colour they hold most of."""
    hands = [["W+4", "W", "G9", "G8", "B5"], ["Y1"]]  # no red: its Wild Draw Four is legal
    play_env = deal_env("classic", hands, top="R5")
    color_env = deal_env("classic", hands, top="R5")
    color_env.step(color_env.action_id("play W"))
    (play_row, play_mask), (color_row, color_mask) = seen(play_env), seen(color_env)
    rows, masks = np.stack([play_row, color_row]), np.stack([play_mask, color_mask])

    assert decide_kernel(greedy_decide, play_env, rows, masks) == ["play B5", "color green"]
    params = CounterAgent().kernel_params()
    assert decide_kernel(counter_decide, play_env, rows, masks, params) == ["play W+4", "color green"]
    # the agents call the same kernels
    counter = CounterAgent(0)
    counter.bind(play_env.spec, play_env.rules)
    assert [play_env.action_names[a] for a in counter.act(rows, masks)] == ["play W+4", "color green"]


@njit
def prefer_draw(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    s[A.DRAW] = params[0]


@njit
def prefer_red(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    s[A.COLOR_BASE] = params[0]


@njit
def prefer_nothing(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    pass


@njit
def marking_decide(obs, masks, rng, off, n, points, counts, actions):
    decide_rows(obs, masks, rng, off, n, points, counts, (1.0,), np.empty(NK), actions, prefer_draw, prefer_red,
                prefer_nothing, prefer_nothing, prefer_nothing)  # fmt: skip


def test_decide_rows_scores_each_row_by_the_scorer_of_its_phase():
    """A play row goes to the play scorer (draw, though cards play), a colour row to the colour scorer (red, though
    it holds green), with the scores zeroed between rows."""
    hands = [["W", "G9", "G8", "B5"], ["Y1", "Y2"]]
    play_env = deal_env("classic", hands, top="B7")
    color_env = deal_env("classic", hands, top="B7")
    color_env.step(color_env.action_id("play W"))
    (play_row, play_mask), (color_row, color_mask) = seen(play_env), seen(color_env)
    rows, masks = np.stack([play_row, color_row, play_row]), np.stack([play_mask, color_mask, play_mask])
    actions = np.empty(3, np.int64)
    points = np.asarray(play_env.rules.card_points, np.float64)
    counts = np.asarray(play_env.rules.card_counts, np.float64)
    marking_decide(rows, masks, np.random.default_rng(0), play_env.spec.offsets, 2, points, counts, actions)
    assert [play_env.action_names[a] for a in actions] == ["draw", "color red", "draw"]
