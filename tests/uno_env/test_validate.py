"""Trust at the edges: on any input, no hang, no crash, nothing half-applied, and clones that go on exactly.

Every public entry point of `Game`, `GameBatch`, `raw_env` / `env()`, `UnoVectorEnv` and the SB3 adapters checks
what it is given (`uno_env.validate`) before anything changes; a refused call leaves the object byte for byte as it
was (state, seeds, episode bookkeeping) and it goes on as if the call had not happened. Rule sets the engine
cannot play are refused when a game is made from them. Pickled and deep-copied objects continue exactly as the
original, rng included."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import uno_env
from uno_env import Game, GameBatch, IllegalActionError, make_rules, raw_env
from uno_env.actions import NUM_ACTIONS
from uno_env.game import make_config
from uno_env.seats import RandomPlay
from uno_env.validate import NotResetError, WrongTypeError
from uno_env.vector import UnoVectorEnv, changing_byte_ranges
from uno_env.wrappers import UnoSB3VecEnv, UnoSingleAgentEnv

ROOT = Path(__file__).resolve().parents[2]
BAD_SEEDS = [1.5, "7", True, False, -1, 2**64, None, [3], np.float64(2.0)]
NOT_ACTION_IDS = [36.9, 36.0, "36", True, None, np.float32(3), [3], np.array([3])]
NO_DRAW_VALUE = {r: 0 for r in "0123456789"}  # only action cards and wilds: every card draws 0 for the deal


def state_bytes(state: np.ndarray) -> bytes:
    """Every field of every game's state record, as bytes (not the record's padding, which copies leave out)."""
    return b"".join(state[name].tobytes() for name in state.dtype.names)


def frozen(face) -> tuple:
    """Everything a refused call must leave as it was: the state's bytes, descriptions, seeds, bookkeeping."""
    if isinstance(face, Game):
        return frozen(face.batch)
    if isinstance(face, GameBatch):
        return (
            state_bytes(face.state_array),
            face.episode_seeds.tobytes(),
            [face.describe(g) for g in range(face.batch_size)],
        )
    if isinstance(face, UnoVectorEnv):
        return (
            frozen(face.game),
            face.seeds.tobytes(),
            face.obs.tobytes(),
            face.masks.tobytes(),
            face.seats.tobytes(),
            face.rewards.tobytes(),
            state_bytes(face.results),
            face._final_obs.tobytes(),
            face._ready,
        )
    env = face.unwrapped
    names = ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos", "agent_selection")
    return (
        frozen(env.game),
        env._last_seed,
        env._rounds_seen,
        env._rewards_given,
        copy.deepcopy({name: getattr(env, name, None) for name in names}),
    )


def first_legal(face) -> int:
    if isinstance(face, Game):
        return face.legal_action_ids()[0]
    env = face.unwrapped
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


# ------------------------------------------------------------------------------------------- the hang
def test_a_deck_whose_dealer_draw_can_never_break_a_tie_is_refused_at_once():
    Game("classic", 2)  # numba compiles or loads the engine outside the timing
    start = time.perf_counter()
    with pytest.raises(ValueError, match="draw for the deal.*at least two different values"):
        Game("classic", 2, card_counts=NO_DRAW_VALUE)
    assert time.perf_counter() - start < 0.5
    only_wilds = {**{r: 0 for r in "0123456789SR"}, "+2": 0, "W": 30}
    for counts in (only_wilds, {r: 0 for r in "123456789"}):
        for maker in (GameBatch, raw_env, UnoVectorEnv):
            with pytest.raises(ValueError, match="draw for the deal"):
                maker("classic", 2, card_counts=counts)
    # two values are enough: the ties break (a 1 among zeros), and such a game plays
    game = Game("classic", 3, card_counts={**{r: 0 for r in "23456789"}, "R1": 1})
    assert game.describe()["dealer"] in (0, 1, 2)


def test_make_config_checks_the_rule_set_again_however_it_was_changed():
    rules = make_rules("classic")
    object.__setattr__(rules, "card_counts", tuple(0 if k % 13 < 10 and k < 52 else 2 for k in range(59)))
    with pytest.raises(ValueError, match="draw for the deal"):
        make_config(rules, 2)
    object.__setattr__(rules, "card_counts", (5,) * 59)  # 295 cards: more than the engine's piles hold
    with pytest.raises(ValueError, match="at most 256"):
        Game(rules, 2)
    object.__setattr__(rules, "card_counts", make_rules("classic").card_counts)
    object.__setattr__(rules, "hand_size", 0)
    with pytest.raises(ValueError, match="hand_size must be an int from 1 to 50"):
        GameBatch(rules, 2)
    with pytest.raises(TypeError, match="RuleSet"):
        make_config("classic", 2)


def test_replace_validates_the_rule_set_and_decks_must_deal():
    rules = make_rules("classic")
    with pytest.raises(ValueError, match="at most 256 are allowed"):
        dataclasses.replace(rules, card_counts=(100,) * 59)
    with pytest.raises(ValueError, match="hand_size"):
        dataclasses.replace(rules, hand_size=51)
    big_hands = dataclasses.replace(rules, hand_size=50)
    with pytest.raises(ValueError, match="cannot deal 50 cards to 3 players"):
        Game(big_hands, 3)
    Game(big_hands, 2)


def test_the_hang_and_the_crash_are_refused_in_a_fresh_process():
    """Run where a hang or a segfault would show: the process must end at once, with the refusals printed."""
    script = textwrap.dedent(
        """
        from uno_env import Game, GameBatch
        try:
            Game("classic", 2, card_counts={r: 0 for r in "0123456789"})
        except ValueError as error:
            print("refused deck:", error)
        b = GameBatch("classic", 2, 1)
        b.reset(0)
        for g in (10**6, -1, 1, 2**70):
            try:
                b.step_game(g, 59)
            except ValueError as error:
                print("refused game:", error)
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("refused game: game must be from 0 to 0") == 4
    assert "refused deck:" in run.stdout


# -------------------------------------------------------------------------------- GameBatch and Game
@pytest.fixture
def batch() -> GameBatch:
    b = GameBatch("unocorns", 3, 4)
    b.reset(11)
    for _ in range(5):
        b.step([int(np.flatnonzero(m)[-1]) for m in b.legal_masks()])
    return b


@pytest.mark.parametrize("g", [10**6, 4, -1, -5, 2**70, 1.0, "0", True, None])
def test_a_game_index_outside_the_batch_is_refused(batch, g):
    before = frozen(batch)
    for call in (lambda: batch.step_game(g, 59), lambda: batch.describe(g), lambda: batch.check(g),
                 lambda: batch.reset_game(g, 3), lambda: batch.resample_hidden(g, 3)):  # fmt: skip
        with pytest.raises(ValueError, match="game must be"):
            call()
        assert frozen(batch) == before


def test_batch_actions_are_checked_before_any_game_changes(batch):
    before = frozen(batch)
    legal = [int(np.flatnonzero(m)[0]) for m in batch.legal_masks()]
    bad_batches = [
        ([2**70, *legal[1:]], IllegalActionError, "'id 1180591620717411303424' in game 0"),
        ([*legal[:3], -2], IllegalActionError, "'id -2' in game 3"),
        ([*legal[:3], 77], IllegalActionError, "'id 77' in game 3"),
        (np.array(legal, float), TypeError, "dtype float64"),
        ([*legal[:3], 3.5], TypeError, "3.5"),
        (["a", "b", "c", "d"], TypeError, "'a'"),
        ([*legal[:3], True], TypeError, "True"),
        (np.array(legal[:3]), ValueError, r"shape \(4,\)"),
        (7, TypeError, "integer array"),
    ]
    for actions, error, words in bad_batches:
        with pytest.raises(error, match=words):
            batch.step(actions)
        assert frozen(batch) == before
    batch.step(np.array([-1, legal[1], -1, legal[3]], np.int16))  # any integer dtype; -1 leaves a game alone
    assert frozen(batch)[2][0] == before[2][0] and frozen(batch)[2][1] != before[2][1]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_bad_seeds_are_refused_everywhere_and_change_nothing(batch, seed):
    before = frozen(batch)
    calls = [lambda: batch.reset(seed), lambda: batch.reset_game(1, seed),
             lambda: batch.reset_where(np.ones(4, bool), seed), lambda: batch.resample_hidden(0, seed)]  # fmt: skip
    if seed is not None:  # None is "a seed of your choice" for the envs, not a seed for a batch
        calls.append(lambda: batch.play_random(3, seed))
    for call in calls:
        with pytest.raises((ValueError, TypeError), match="seed"):
            call()
        assert frozen(batch) == before
    with pytest.raises((ValueError, TypeError), match="seed"):
        Game("classic", 2, seed=seed)


def test_batches_of_seeds_are_checked(batch):
    before = frozen(batch)
    bad = [([1, 2, 3], "got 3 seeds"), ([1, 2, -3, 4], "got -3"), (np.array([1, 2, -3, 4]), "got -3"),
           (np.ones(4), "dtype float64"), ([1, 2, "3", 4], "'3'"), (np.ones((2, 2), int), "shape")]  # fmt: skip
    for seeds, words in bad:
        with pytest.raises((ValueError, TypeError), match=words):
            batch.reset(seeds)
        assert frozen(batch) == before
    with pytest.raises(TypeError, match="bool array"):
        batch.reset_where([1, 0, 1, 0], 3)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        batch.reset_where(np.ones(5, bool), 3)
    assert frozen(batch) == before
    batch.reset(2**64 - 1)  # the largest seed: game g gets seed + g modulo 2**64
    assert list(batch.episode_seeds) == [2**64 - 1, 0, 1, 2]


def test_stepping_a_batch_never_reset_is_refused_and_changes_nothing():
    b = GameBatch("classic", 2, 3)
    before = frozen(b)
    for call in (lambda: b.step([59, 59, 59]), lambda: b.step([-1, 59, -1]), lambda: b.step_game(2, 59),
                 lambda: b.play_random(5), lambda: b.resample_hidden(0, 1)):  # fmt: skip
        with pytest.raises(NotResetError, match="was never reset: call reset"):
            call()
        assert frozen(b) == before
    b.step([-1, -1, -1])  # nothing asked of any game
    b.reset_game(1, 5)  # only game 1 is dealt: it may be played, the others still may not
    b.step([-1, int(np.flatnonzero(b.legal_masks()[1])[0]), -1])
    b.check(1)
    with pytest.raises(NotResetError, match="game 0 was never reset"):
        b.step_game(0, 59)


@pytest.mark.parametrize("action", NOT_ACTION_IDS)
def test_game_refuses_what_is_not_an_action(action):
    game = Game("classic", 2, seed=3)
    before = frozen(game)
    with pytest.raises(ValueError):  # a string is an action name for a Game, and "36" is none
        game.step(action)
    with pytest.raises(TypeError):
        game.batch.step_game(0, action)
    assert frozen(game) == before


def test_out_of_range_ids_and_overflowing_ints_are_illegal_actions():
    game = Game("classic", 2, seed=3)
    before = frozen(game)
    for action in (77, -1, 2**70, np.uint64(2**64 - 1), np.int64(-(2**63))):
        with pytest.raises(IllegalActionError, match="from 0 to 76"):
            game.step(action)
        assert frozen(game) == before


def test_integral_numpy_values_are_accepted_everywhere():
    game = Game("classic", np.int64(2), seed=np.uint64(5), max_steps=np.int32(500))
    twin = Game("classic", 2, seed=5, max_steps=500)
    for kind in (np.int8, np.int64, np.uint8, lambda a: np.array(a)):
        action = kind(game.legal_action_ids()[0])
        game.step(action)
        twin.step(int(action))
    assert game.describe() == twin.describe()
    assert game.hand(np.int64(1)) == twin.hand(1)
    b = GameBatch("classic", 2, np.int64(2))
    b.reset(np.int32(4))
    b.step(np.array([int(np.flatnonzero(m)[0]) for m in b.legal_masks()], np.uint8))
    b.describe(np.int16(1))
    b.reset_game(np.int64(0), np.uint64(9), deal={"dealer": np.int64(1), "hands": [["R1"], ["B2"]], "top": "R5"})
    venv = UnoVectorEnv("classic", np.int64(2), np.int32(2), max_steps=np.int64(100))
    _, masks = venv.reset(seed=np.uint64(3))
    venv.step(masks.argmax(axis=1).astype(np.int32))
    env = raw_env(num_players=np.int64(2))
    env.reset(seed=np.int64(3))
    env.step(np.int64(first_legal(env)))


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: GameBatch("classic", 2, 0), "batch_size must be a positive int, got 0"),
        (lambda: GameBatch("classic", 2, 2.0), "batch_size must be a positive int, got 2.0"),
        (lambda: GameBatch("classic", 2, True), "batch_size must be a positive int"),
        (lambda: Game("classic", 2, max_steps=2**40), "max_steps must be a positive int \\(at most 2_147_483_647\\)"),
        (lambda: Game("classic", 2, max_steps=1.5), "max_steps must be a positive int"),
        (lambda: UnoVectorEnv("classic", 2, -4), "num_envs must be a positive int, got -4"),
        (lambda: Game("classic", 2.0), "num_players must be an int from 2 to 10"),
        (lambda: GameBatch("classic", 2, 1).play_random(0), "steps must be a positive int"),
    ],
)
def test_counts_and_budgets_are_positive_ints(make, words):
    with pytest.raises((ValueError, TypeError), match=words):
        make()


# ------------------------------------------------------------------------------------------------ deals
def test_a_deal_with_a_seat_holding_no_card_is_refused_and_changes_nothing():
    game = Game("unocorns", 2, seed=4)
    before = frozen(game)
    for hands in ([[], ["P1"]], [["P1"], []], [[], []]):
        with pytest.raises(ValueError, match="gives seat . no card: every seat must hold at least one card"):
            game.reset(seed=7, deal={"dealer": 0, "hands": hands, "top": "P5"})
        assert frozen(game) == before
    # an empty hand with forehead cards is a seat in the game (the Narwhal rule)
    game.reset(seed=7, deal={"dealer": 0, "hands": [[], ["P1"]], "foreheads": [["B7"], []], "top": "P5"})
    assert game.describe()["foreheads"] == [["B7"], []]


@pytest.mark.parametrize(
    "deal, words",
    [
        ({"dealer": 0, "hands": [["R1"], ["B2"]], "deck": "R5"}, "deal\\['deck'\\] must be a list"),
        ({"dealer": 2, "hands": [["R1"], ["B2"]]}, "seat from 0 to 1"),
        ({"dealer": 0.0, "hands": [["R1"], ["B2"]]}, "seat from 0 to 1"),
        ({"dealer": 0, "hands": [["R1"], ["B2"]], "scores": [2**40, 0]}, "ints from 0 to 1_000_000_000"),
        ({"dealer": 0, "hands": [["R1"], ["B2"]], "scores": [1.0, 0]}, "ints from 0"),
        ({"dealer": 0, "hands": [["R0"] * 2, ["B2"]]}, "2 copies of R0"),
    ],
)
def test_bad_deals_are_refused_and_do_not_move_the_seed_sequence(deal, words):
    env, twin = raw_env(), raw_env()
    env.reset(seed=21)
    twin.reset(seed=21)
    before = frozen(env)
    with pytest.raises(ValueError, match=words):
        env.reset(options={"deal": deal})
    with pytest.raises(ValueError, match=words):
        env.reset(seed=5, options={"deal": deal})
    assert frozen(env) == before
    env.reset()
    twin.reset()
    assert frozen(env) == frozen(twin)


# ---------------------------------------------------------------------------------------- the AEC env
@pytest.mark.parametrize("action", NOT_ACTION_IDS[:-3] + [np.float64(36.0), 77, -1, 2**70])
def test_raw_env_refuses_what_is_not_a_legal_action_id(action):
    env = raw_env(variant="classic", num_players=2)
    env.reset(seed=3)
    before = frozen(env)
    with pytest.raises((TypeError, IllegalActionError)):
        env.step(action)
    assert frozen(env) == before
    if isinstance(action, float):
        with pytest.raises(TypeError, match="action must be an action id, an int from 0 to 76, got .*36"):
            env.step(action)


def test_raw_env_plays_36_and_refuses_36_point_9():
    """`step(36.9)` once played action 36: it is refused; the int is played."""
    env = uno_env.raw_env(variant="classic", num_players=2)
    env.reset(seed=0)
    legal = first_legal(env)
    with pytest.raises(TypeError):
        env.step(legal + 0.9)
    env.step(legal)


@pytest.mark.parametrize("seed", [s for s in BAD_SEEDS if s is not None])
def test_a_refused_reset_seed_leaves_the_env_usable_with_its_seed_sequence(seed):
    env, twin = raw_env(variant="swap", num_players=3), raw_env(variant="swap", num_players=3)
    env.reset(seed=8)
    twin.reset(seed=8)
    env.step(first_legal(env))
    twin.step(first_legal(twin))
    before = frozen(env)
    with pytest.raises((ValueError, TypeError), match="seed must be an int from 0 to 2\\*\\*64 - 1"):
        env.reset(seed=seed)
    assert frozen(env) == before
    env.step(first_legal(env))
    twin.step(first_legal(twin))
    for _ in range(3):  # the later resets go on with the old sequence
        env.reset()
        twin.reset()
        assert frozen(env) == frozen(twin)
    env.reset(seed=2**64 - 1)


def test_raw_env_refuses_bad_options_a_step_before_reset_and_unknown_agents():
    env = raw_env()
    with pytest.raises(NotResetError, match="before reset"):
        env.step(0)
    env.reset(seed=1)
    before = frozen(env)
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(seed=2, options=[("deal", None)])
    with pytest.raises(ValueError, match="unknown agent 'player_7'"):
        env.observe("player_7")
    assert frozen(env) == before


# ------------------------------------------------------------------------------------- the vector env
class Flaky:
    """Plays the lowest legal id (stateless), or misbehaves once when `fail_in` more calls have been made."""

    observation = "minimal"

    def __init__(self, how: str = "illegal"):
        self.how = how
        self.fail_in: int | None = None

    def act(self, observations, masks):
        if self.fail_in is not None:
            self.fail_in -= 1
            if self.fail_in == 0:
                self.fail_in = None
                if self.how == "raise":
                    raise RuntimeError("the agent broke")
                if self.how == "float":
                    return np.argmax(masks, axis=1).astype(np.float64)
                if self.how == "shape":
                    return np.argmax(masks, axis=1)[:-1]
                if self.how == "range":
                    return np.full(len(masks), NUM_ACTIONS)
                return np.argmin(masks, axis=1)  # an illegal action in every row
        return np.argmax(masks, axis=1)


class Counting(Flaky):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def act(self, observations, masks):
        self.calls += 1
        return super().act(observations, masks)


ERRORS = {"illegal": IllegalActionError, "raise": RuntimeError, "float": TypeError, "shape": ValueError,
          "range": IllegalActionError}  # fmt: skip


@pytest.mark.parametrize(("how", "variant", "players", "options"), [
    *[(how, "monster_high", 10, {"hand_size": 3}) for how in sorted(ERRORS)],
    *[(how, variant, players, options) for how in ("illegal", "raise")
      for variant, players, options in [("unocorns", 4, {}), ("swap", 3, {"uno_call": "explicit"})]],
])  # fmt: skip
def test_an_opponents_bad_action_mid_step_leaves_the_whole_batch_as_it_was(how, variant, players, options):
    """The learners' actions are applied, then opponents play round after round; a bad action in a later round
    (illegal, out of range, a float, the wrong shape, or an exception) leaves every game, seed, reward, result and
    observation as before the step, and the env goes on exactly like a twin that never saw the failure. Every kind
    of bad action at ten players; a refused action and an exception in the other presets (the kinds are refused
    alike in every preset: the presets vary what the step had changed)."""
    b = 6
    flaky, counting = Flaky(how), Counting()
    venv = UnoVectorEnv(variant, players, b, learner_seats=[0], opponents=flaky, max_steps=300, **options)
    twin = UnoVectorEnv(variant, players, b, learner_seats=[0], opponents=counting, max_steps=300, **options)
    rng = np.random.default_rng(players)
    _, masks = venv.reset(seed=70)
    twin.reset(seed=70)
    failures = 0
    for _ in range(40):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        counting.calls = 0
        want = [np.copy(x) for x in twin.step(actions)[:5]]
        if counting.calls >= 2:  # fail in the step's last opponent round, after the others were applied
            before = frozen(venv)
            flaky.fail_in = counting.calls
            with pytest.raises(ERRORS[how]):
                venv.step(actions)
            assert frozen(venv) == before
            failures += 1
        got = venv.step(actions)
        for x, y in zip(got[:5], want, strict=True):
            np.testing.assert_array_equal(x, y)
        assert frozen(venv) == frozen(twin)
        masks = got[1]
    assert failures >= 5


def test_an_opponent_failing_in_reset_leaves_the_env_as_it_was():
    flaky = Flaky()
    venv = UnoVectorEnv("classic", 3, 8, learner_seats=[0], opponents=flaky)
    before = frozen(venv)
    flaky.fail_in = 1
    with pytest.raises(IllegalActionError, match="opponent at seat"):
        venv.reset(seed=5)
    assert frozen(venv) == before  # still never reset: all zeros
    with pytest.raises(NotResetError, match="before reset"):
        venv.step(np.zeros(8, np.int64))
    venv.reset(seed=5)
    failed = False
    for seed in range(6, 30):  # a reset where an opponent decides first: it fails there
        before = frozen(venv)
        flaky.fail_in = 1
        try:
            venv.reset(seed=seed)
        except IllegalActionError:
            assert frozen(venv) == before
            failed = True
    assert failed


def test_vector_env_refuses_bad_learner_actions_and_seeds_before_anything_changes():
    venv = UnoVectorEnv("classic", 2, 4)
    _, masks = venv.reset(seed=3)
    before = frozen(venv)
    for actions, error in ((masks.argmax(axis=1) + 0.5, TypeError), (masks.argmax(axis=1)[:3], ValueError),
                           (list(masks.argmax(axis=1)[:3]) + ["x"], TypeError), (None, TypeError)):  # fmt: skip
        with pytest.raises(error):
            venv.step(actions)
        assert frozen(venv) == before
    for seed in [s for s in BAD_SEEDS if s is not None]:
        with pytest.raises((ValueError, TypeError), match="seed"):
            venv.reset(seed=seed)
        assert frozen(venv) == before


def test_the_byte_ranges_a_step_saves_cover_what_a_step_changes():
    """A step with opponents saves only part of each record (`changing_byte_ranges`): played through many steps,
    no byte outside those ranges ever changes."""
    configurations = [("unocorns", 4, {}), ("swap", 2, {"uno_call": "explicit"}),
                      ("emoji", 3, {"emoji_face_fail_rate": 0.5}), ("monster_high", 10, {})]  # fmt: skip
    for variant, players, options in configurations:
        venv = UnoVectorEnv(variant, players, 16, learner_seats=[0], opponents=RandomPlay(1), max_steps=200, **options)
        outside = np.ones(venv.game.state_array.dtype.itemsize, bool)
        for start, stop in changing_byte_ranges(players, venv.rules.deck_size):
            outside[start:stop] = False
        _, masks = venv.reset(seed=1)
        records = venv.game.state_array.view(np.uint8).reshape(16, -1)
        first = records[:, outside].copy()
        rng = np.random.default_rng(0)
        for _ in range(150):
            _, masks, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            np.testing.assert_array_equal(records[:, outside], first)


# ------------------------------------------------------------------------------------- the SB3 adapters
def test_sb3_vec_env_checks_seeds_and_actions_before_anything_changes():
    vec = UnoSB3VecEnv("classic", 2, 4, seed=3)
    vec.reset()
    masks = vec.action_masks()
    before = (frozen(vec.venv), vec._actions.copy())
    for actions, error in ((masks.argmax(axis=1) + 0.5, TypeError), (np.zeros(3, int), ValueError),
                           (np.full(4, 77), IllegalActionError)):  # fmt: skip
        with pytest.raises(error):
            vec.step_async(actions)
        assert (frozen(vec.venv), vec._actions.tolist()) == (before[0], before[1].tolist())
    vec.seed(-1)  # SB3's seed(): the next reset uses it
    with pytest.raises(ValueError, match="seed must be an int"):
        vec.reset()
    assert frozen(vec.venv) == before[0]
    with pytest.raises(TypeError, match="seed"):
        UnoSB3VecEnv("classic", 2, 4, seed=1.5)
    vec.step_async(masks.argmax(axis=1)[:, None])  # (num_envs, 1) as some callers give it
    vec.step_wait()


@pytest.mark.parametrize("mode", ["lose", "raise"])
def test_single_agent_env_refuses_what_is_not_an_action_id_and_bad_seeds(mode):
    env = UnoSingleAgentEnv("classic", 2, illegal_action=mode)
    with pytest.raises(NotResetError, match="before reset"):
        env.step(0)
    obs, info = env.reset(seed=4)
    before = frozen(env.venv)
    for action in (36.9, "3", None, True):
        with pytest.raises(TypeError):
            env.step(action)
        assert frozen(env.venv) == before
    for seed in (-1, 1.5, "2", 2**64):
        with pytest.raises((ValueError, TypeError), match="seed"):
            env.reset(seed=seed)
        assert frozen(env.venv) == before
    action = np.int64(int(np.flatnonzero(info["action_mask"])[0]))
    env.step(action)
    if mode == "lose":
        assert env.step(NUM_ACTIONS)[1] == -1.0


def test_single_agent_env_reset_refused_by_an_opponent_keeps_its_generator():
    flaky = Flaky()
    env, twin = UnoSingleAgentEnv("classic", 3, opponents=flaky), UnoSingleAgentEnv("classic", 3, opponents=Flaky())
    env.reset(seed=9)
    twin.reset(seed=9)
    failed = 0
    for _ in range(30):  # resets where an opponent decides first fail: the generator goes on as if they had not run
        flaky.fail_in = 1
        before = frozen(env.venv)
        try:
            env.reset()
        except IllegalActionError:
            assert frozen(env.venv) == before
            failed += 1
            continue
        twin.reset()
        assert frozen(env.venv) == frozen(twin.venv)
    assert failed


# ------------------------------------------------------------------------------------------------ clones
CLONERS = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "deepcopy": copy.deepcopy,
    "copy": lambda x: x.copy(),
}


@pytest.mark.parametrize("how", sorted(CLONERS))
def test_a_cloned_game_goes_on_exactly_as_the_original(how):
    game = Game("unocorns", 3, seed=12, uno_call="explicit")
    rngs = [np.random.default_rng(1), np.random.default_rng(1)]
    for _ in range(20):
        game.step(int(rngs[0].choice(game.legal_action_ids())))
        rngs[1].choice(game.legal_action_ids())  # keep the second generator in step
    clone = CLONERS[how](game)
    assert np.shares_memory(clone.batch.state, clone.batch.state_array)
    assert not np.shares_memory(clone.batch.state_array, game.batch.state_array)
    assert frozen(clone) == frozen(game)
    for step in range(200):
        for face, rng in zip((game, clone), rngs, strict=True):
            if face.done:
                face.reset(seed=step)
            else:
                face.step(int(rng.choice(face.legal_action_ids())))
        assert frozen(clone) == frozen(game)


@pytest.mark.parametrize("how", sorted(CLONERS))
def test_a_cloned_batch_goes_on_exactly_as_the_original(how):
    batch = GameBatch("swap", 4, 5, uno_call="explicit")
    batch.reset(31)
    batch.play_random(25, 2)
    clone = CLONERS[how](batch)
    assert np.shares_memory(clone.state, clone.state_array) and np.shares_memory(clone.state, clone._done)
    assert frozen(clone) == frozen(batch)
    rngs = [np.random.default_rng(5), np.random.default_rng(5)]
    for _ in range(200):
        for face, rng in zip((batch, clone), rngs, strict=True):
            masks = face.legal_masks()
            done = face.done.astype(bool)
            if done.any():
                face.reset_where(done, rng.integers(0, 2**63, face.batch_size, dtype=np.uint64))
            else:
                face.step([rng.choice(np.flatnonzero(m)) for m in masks])
        assert frozen(clone) == frozen(batch)
    clone.play_random(50, 3)
    batch.play_random(50, 3)
    assert frozen(clone) == frozen(batch)


def _aec_turn(env) -> tuple:
    """One decision through the AEC API (a random legal action from the action space's own generator); a finished
    episode starts the next one from the env's seed sequence. Returns what the caller saw."""
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        env.reset()
        return ("reset", reward)
    action = env.action_space(env.agent_selection).sample(observation["action_mask"])
    env.step(action)
    return (env.agent_selection, int(action), reward, observation["observation"].tobytes())


@pytest.mark.parametrize("wrapped", [False, True])
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_cloned_aec_env_goes_on_exactly_as_the_original(wrapped, how):
    make = uno_env.env if wrapped else uno_env.raw_env
    env = make(variant="unocorns", num_players=3, reward="points", hand_size=2)
    env.reset(seed=40)
    for index, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(index)  # the spaces' generators: a clone must go on with their states
    for _ in range(25):
        _aec_turn(env)
    clone = CLONERS[how](env)
    assert type(clone) is type(env)
    assert np.shares_memory(clone.unwrapped._state, clone.unwrapped.game.state)
    assert frozen(clone) == frozen(env)
    resets = 0
    for _ in range(200):
        seen = _aec_turn(env)
        assert _aec_turn(clone) == seen
        assert frozen(clone) == frozen(env)
        resets += seen[0] == "reset"
    assert resets >= 1  # the seed sequence was followed too


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_cloned_vector_env_goes_on_exactly_as_the_original(how):
    venv = UnoVectorEnv("unocorns", 3, 4, learner_seats=[1], opponents=RandomPlay(7), max_steps=150)
    rng = np.random.default_rng(2)
    _, masks = venv.reset(seed=5)
    for _ in range(10):
        _, masks, *_ = venv.step([rng.choice(np.flatnonzero(m)) for m in masks])
    clone = CLONERS[how](venv)
    assert np.shares_memory(clone._s, clone.game.state) and np.shares_memory(clone._ended, clone.results)
    assert frozen(clone) == frozen(venv)
    for _ in range(200):  # the opponents' generators were copied too
        actions = [rng.choice(np.flatnonzero(m)) for m in masks]
        got, want = clone.step(actions), venv.step(actions)
        for x, y in zip(got[:5], want[:5], strict=True):
            np.testing.assert_array_equal(x, y)
        assert frozen(clone) == frozen(venv)
        masks = want[1]


def test_a_clone_of_an_env_never_reset_is_a_new_env():
    env = raw_env(variant="emoji", num_players=4)
    clone = pickle.loads(pickle.dumps(env))
    with pytest.raises(NotResetError, match="before reset"):
        clone.step(0)
    clone.reset(seed=3)
    env.reset(seed=3)
    assert frozen(clone) == frozen(env)


def test_wrong_type_errors_are_value_errors_too():
    """Callers that catch ValueError for a refused argument (the commands do) catch the type refusals as well."""
    assert issubclass(WrongTypeError, TypeError) and issubclass(WrongTypeError, ValueError)
    assert issubclass(IllegalActionError, ValueError)
    with pytest.raises(ValueError):
        Game("classic", 2).step(1.5)
