"""A game depends only on its seed and its actions: not on batch size, batch position or threads."""

import numpy as np

from uno_env import Game, GameBatch

BIG = 1024


def _state_bytes(batch, g):
    return batch.state[g : g + 1].tobytes()


def test_batch_of_one_equals_position_in_batch_of_1024():
    big = GameBatch("unocorns", 4, BIG, uno_call="explicit", emoji_face_fail_rate=0.3, card_counts={"WE": 2})
    big.reset(seeds=np.arange(BIG) * 7919 + 11)
    big.play_random(400, agent_seed=np.arange(BIG) + 99)
    for g in [0, 1, 2, 511, 512, 777, BIG - 2, BIG - 1]:
        one = GameBatch("unocorns", 4, 1, uno_call="explicit", emoji_face_fail_rate=0.3, card_counts={"WE": 2})
        one.reset(seeds=[g * 7919 + 11])
        one.play_random(400, agent_seed=[g + 99])
        assert _state_bytes(one, 0) == _state_bytes(big, g)
        assert one.describe(0) == big.describe(g)


def test_python_step_api_matches_one_game_at_a_time():
    seeds = [3, 14, 15, 92, 65, 35]
    batch = GameBatch("monster_high", 3, len(seeds), card_counts={"WS": 2, "WN": 2})
    batch.reset(seeds=seeds)
    games = [Game("monster_high", 3, seed=s, card_counts={"WS": 2, "WN": 2}) for s in seeds]
    choosers = [np.random.default_rng(s) for s in seeds]
    for _ in range(300):
        masks = batch.legal_masks()
        actions = np.full(len(seeds), -1)
        for g, game in enumerate(games):
            if game.done:
                continue
            legal = game.legal_action_ids()
            assert legal == list(np.flatnonzero(masks[g]))
            actions[g] = legal[choosers[g].integers(len(legal))]
            game.step(int(actions[g]))
        batch.step(actions)
        for g, game in enumerate(games):
            assert game.describe() == batch.describe(g)


def test_same_seed_same_game_and_different_seeds_differ():
    first, again, other = (GameBatch("swap", 5, 4) for _ in range(3))
    first.reset(seeds=21)
    again.reset(seeds=21)
    other.reset(seeds=22)
    for b in (first, again, other):
        b.play_random(250, agent_seed=5)
    assert first.state.tobytes() == again.state.tobytes()
    assert first.describe(0) != other.describe(0)


def test_threads_do_not_change_games():
    import numba

    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        batch = GameBatch("emoji", 6, 64, emoji_face_fail_rate=0.5)
        batch.reset(seeds=40)
        batch.play_random(500, agent_seed=1)
        runs.append(batch.state.tobytes())
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert runs[0] == runs[1]
