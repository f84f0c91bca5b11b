"""Determinized-rollout search (PIMC) over `counter`'s choices, to gauge how much room a game leaves above it.

It reads the game state, not an observation, so it is not an agent of the protocol: it plays whole games in
its own compiled loop (`play_games`, `run_block`), one seat searching among `counter`s. At each decision of the
searching seat with more than one legal action, except a pending Wild Draw Four challenge, it samples
`worlds` deals the seat cannot tell from the real one (`engine.resample_hidden`) and in each plays every legal
action, then `counter` for every seat to the end of the round. It keeps `counter`'s own choice unless another
action won more of the same worlds by at least `z` standard errors of the paired difference. Measured by
`benchmarks/search_headroom.py`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import engine as E
from uno_env import observation as O
from uno_env.agents.counter import CounterAgent, counter_decide
from uno_env.game import GameBatch


@njit(cache=True)
def counter_choice(s, cfg, level, off, obs, mask, rng, points, counts, params, act):
    """`counter`'s action for whoever decides in the 1-game state `s`, into act[0]; mask[0] holds the legal ones."""
    O.observe_one(s, cfg, 0, s[0].seat, level, off, obs[0], mask[0])
    counter_decide(obs, mask, rng, off, cfg[0].num_players, points, counts, params, act)


@njit(cache=True)
def counter_step(s, cfg, level, off, obs, mask, rng, points, counts, params, act):
    """One decision of the 1-game state `s`, taken by `counter` for whoever decides."""
    counter_choice(s, cfg, level, off, obs, mask, rng, points, counts, params, act)
    E.apply_actions(s, cfg, act)


@njit(cache=True)
def search_decision(s, cfg, worlds, z, seed, level, off, obs, mask, rng, points, counts, params, act):
    """The searching seat's action in the 1-game state `s`, and whether it differs from `counter`'s."""
    seat = s[0].seat
    counter_choice(s, cfg, level, off, obs, mask, rng, points, counts, params, act)
    choice = act[0]
    legal = np.flatnonzero(mask[0]).copy()
    if legal.shape[0] == 1 or s[0].phase == E.CHALLENGE_PHASE:
        return choice, False
    world = s.copy()
    trial = s.copy()
    won = np.zeros(A.NUM_ACTIONS)
    diff = np.zeros(A.NUM_ACTIONS)  # paired: wins of the action less wins of counter's choice, same world
    diff_sq = np.zeros(A.NUM_ACTIONS)
    sampled = 0
    for w in range(worlds):
        world[:] = s
        if E.resample_hidden(world, cfg, 0, np.uint64(seed * 1_000_003 + w)) != E.RESAMPLED:
            continue  # never search the real deal
        sampled += 1
        for a in legal:
            trial[:] = world
            act[0] = a
            E.apply_actions(trial, cfg, act)
            rounds = trial[0].rounds
            while trial[0].done == 0 and trial[0].rounds == rounds:
                counter_step(trial, cfg, level, off, obs, mask, rng, points, counts, params, act)
            won[a] = 1.0 if trial[0].winners[seat] else 0.0
        for a in legal:
            d = won[a] - won[choice]
            diff[a] += d
            diff_sq[a] += d * d
    best, best_z = choice, z
    n = max(sampled, 1)
    for a in legal:
        mean = diff[a] / n
        se = np.sqrt(max(diff_sq[a] / n - mean * mean, 1e-12) / n)
        if mean > 0 and mean / se > best_z:
            best, best_z = a, mean / se
    return best, best != choice


@njit(cache=True)
def play_games(s, cfg, searcher, worlds, z, level, off, size, rng, points, counts, params, won, decisions):
    """Play every game of `s` to its end, seat searcher[g] searching; won[g] = whether it won;
    decisions[g] = (its decisions, those that overrode counter); `size` is the observation length."""
    obs = np.zeros((1, size), np.int8)
    mask = np.zeros((1, A.NUM_ACTIONS), np.int8)
    act = np.zeros(1, np.int64)
    for g in range(s.shape[0]):
        game = s[g : g + 1]
        step = 0
        while game[0].done == 0:
            if game[0].seat == searcher[g]:
                a, overrode = search_decision(
                    game, cfg, worlds, z, g * 7919 + step, level, off, obs, mask, rng, points, counts, params, act
                )
                decisions[g, 0] += 1
                decisions[g, 1] += overrode
                act[0] = a
                E.apply_actions(game, cfg, act)
            else:
                counter_step(game, cfg, level, off, obs, mask, rng, points, counts, params, act)
            step += 1
        won[g] = game[0].winners[searcher[g]]


def run_block(variant: str, players: int, first_seed: int, deals: int, worlds: int, z: float):
    """(wins, games, decisions, overrides) of `deals` deals from `first_seed`, every seat searching once."""
    batch = GameBatch(variant, players, deals * players)
    batch.reset(np.repeat(np.arange(first_seed, first_seed + deals), players).astype(np.uint64))
    searcher = np.tile(np.arange(players), deals).astype(np.int64)
    counter = CounterAgent(seed=first_seed)
    spec = O.ObservationSpec(counter.observation, players)
    counter.bind(spec, batch.rules)
    won = np.zeros(batch.batch_size, np.int64)
    decisions = np.zeros((batch.batch_size, 2), np.int64)
    play_games(batch.state_array, batch.config_array, searcher, worlds, z, spec.index, spec.offsets, spec.size,
               counter.rng,
               counter._points, counter._counts, counter.kernel_params(), won, decisions)  # fmt: skip
    return int(won.sum()), batch.batch_size, int(decisions[:, 0].sum()), int(decisions[:, 1].sum())
