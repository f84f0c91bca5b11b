"""Random-play sweeps: every preset x 2..10 players x the options, the validator after every step.

The games run inside compiled code (`GameBatch.play_random(validate=True)`): after every step each card
of the deck must be in exactly one place, counts non-negative, the deciding seat valid with at least one
legal action, and scores never going down.
"""

import pytest

from uno_env import PRESETS, GameBatch

ALL_SPECIALS = {"WN": 2, "WU": 2, "WE": 2, "WC": 2, "WS": 2}

# Each variant flips options away from their defaults, so every option is exercised in a sweep.
OPTION_VARIANTS = {
    "defaults": {},
    "flipped": {
        "two_player_reverse_is_skip": False,
        "challenge_wild_draw_four": False,
        "narwhal_includes_player": False,
        "emoji_face_fail_rate": 0.5,
        "uno_call": "explicit",
        "uno_catch_rate": 0.5,
        "uno_penalty": 3,
    },
    "stacking_all_specials": {"stack_draw_two": True, "card_counts": ALL_SPECIALS, "uno_call": "explicit"},
    "crowded_deck": {"hand_size": 9, "card_counts": {"WN": 4, "WS": 2}, "emoji_face_fail_rate": 1.0},
    "points": {"card_points": {"5": 0, "W": 100}, "scoring": "penalty"},
}

GAMES = 48
STEPS = 4000


def _sweep(preset, num_players, episode="round", **options):
    batch = GameBatch(preset, num_players, GAMES, episode=episode, max_steps=10_000, **options)
    batch.reset(seeds=1000 * num_players)
    return batch.play_random(STEPS, agent_seed=7, validate=True)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("num_players", range(2, 11))
def test_random_play_keeps_invariants(preset, num_players):
    finished = _sweep(preset, num_players)
    assert finished >= GAMES  # every game played at least one whole round on average


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("num_players", [2, 3, 4, 7, 10])
@pytest.mark.parametrize("variant", [v for v in OPTION_VARIANTS if v != "defaults"])
def test_random_play_with_options_keeps_invariants(preset, num_players, variant):
    options = dict(OPTION_VARIANTS[variant])
    if variant == "crowded_deck" and num_players == 10:
        options["hand_size"] = 10
    finished = _sweep(preset, num_players, **options)
    assert finished > 0


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("scoring", ["winner_takes", "penalty"])
def test_random_matches_keep_invariants(preset, scoring):
    batch = GameBatch(preset, 4, GAMES, episode="match", scoring=scoring, target_score=150, max_steps=20_000)
    batch.reset(seeds=5)
    batch.play_random(1500, agent_seed=3, validate=True)
    # matches go on past a round: some game has finished a round and is still playing the match
    assert ((batch.state.rounds >= 1) & (batch.done == 0)).any()
    assert batch.play_random(6000, agent_seed=4, validate=True) > 0
