"""Pictures of the table (`uno_env.picture`) and the view they draw (`uno_env.render.table_view`): the picture is
an RGB array in the preset's colours; a seat's picture never shows a card it cannot see (the scenarios differ
only in such cards, and its pictures are byte-identical while a spectator's differ); animations write and read
back. (Every test's name says "render", so ``pytest -k render`` selects them with the text render's tests.)"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import uno_env
from uno_env.faces import COLOR_FACES
from uno_env.game import Game
from uno_env.picture import HEIGHT, WIDTH, frames_of_actions, frames_of_random_game, picture, save_animation
from uno_env.render import render_text, table_view
from uno_env.testing import act, deal, deal_env

# Three seats; player_0 decides first: it guesses the colour of its forehead card (as in test_aec.py).
HANDS = [["P1", "B2"], ["G7", "G8"], ["Y1"]]
FOREHEADS = [["G3"], ["Y4"], ["B9"]]


def pixel_colours(image: np.ndarray) -> set[tuple[int, int, int]]:
    packed = np.unique(image.reshape(-1, 3).astype(np.uint32) @ np.array([1 << 16, 1 << 8, 1], np.uint32))
    return {(int(c) >> 16, (int(c) >> 8) & 255, int(c) & 255) for c in packed}


def unocorns(hands=HANDS, top="P5", foreheads=FOREHEADS, **kwargs) -> Game:
    return deal("unocorns", hands, top, foreheads=foreheads, **kwargs)


# ------------------------------------------------------------------------------------------ the picture


@pytest.mark.parametrize(
    "variant, hands, top, absent",
    [
        ("classic", [["R1", "B2", "W", "W+4"], ["G7", "Y8"]], "R5", "pink"),
        ("unocorns", [["P1", "B2", "WN"], ["G7", "Y8"]], "P5", "red"),
        ("monster_high", [["P1", "WU"], ["G7", "Y8", "B3"]], "G5", "red"),
        ("emoji", [["R1", "WE", "WC"], ["G7", "Y8"]], "B5", "pink"),
        ("swap", [["R1", "WS"], ["G7", "Y8", "B2"]], "YS", "pink"),
    ],
)
def test_render_picture_is_an_rgb_array_in_the_presets_colours(variant, hands, top, absent):
    game = deal(variant, hands, top)
    for viewer in (0, 1, None):
        image = picture(game, viewer)
        assert image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8
        colours = pixel_colours(image)
        assert len(colours) > 20  # not blank: a table, cards, text
        for name in game.rules.colors:
            assert COLOR_FACES[name].rgb in colours, f"{name} is missing from {variant}'s picture"
        assert COLOR_FACES[absent].rgb not in colours
    assert picture(game.batch, 0).tobytes() == picture(game, 0).tobytes()  # a GameBatch or a Game


def test_render_picture_of_a_batch_game_is_that_games():
    from uno_env.game import GameBatch

    batch = GameBatch("classic", 3, batch_size=3)
    batch.reset()
    one = Game("classic", 3, seed=int(batch.episode_seeds[2]))
    assert table_view(batch, 1, g=2) == table_view(one, 1)
    assert picture(batch, 1, g=2).tobytes() == picture(one, 1).tobytes()


# ------------------------------------------------------------------------------------------ what a seat sees


def test_render_view_hides_what_the_viewer_may_not_see():
    game = unocorns()
    view = table_view(game, 0)
    me, p1, p2 = view["seats"]
    assert me["you"] and me["hand"] == ["P1", "B2"] and me["foreheads"] == [None]
    assert p1["hand"] is None and p1["count"] == 2 and p1["foreheads"] == ["Y4"]
    assert p2["hand"] is None and p2["count"] == 1 and p2["foreheads"] == ["B9"]
    assert view["deciding"] == 0 and me["deciding"] and view["phase"] == "guess"
    assert view["legal"] == ["color pink", "color blue", "color green", "color yellow"]
    assert (view["top"], view["color"], view["direction"], view["round"]) == ("P5", "pink", 1, 1)
    assert table_view(game, 1)["legal"] is None  # another seat's decision: not the viewer's to see
    spectator = table_view(game, None)
    assert [s["hand"] for s in spectator["seats"]] == HANDS
    assert [s["foreheads"] for s in spectator["seats"]] == FOREHEADS
    assert spectator["legal"] == view["legal"] and not any(s["you"] for s in spectator["seats"])
    with pytest.raises(ValueError, match="viewer"):
        table_view(game, 3)


def test_render_text_of_a_spectator_shows_every_card():
    text = render_text(unocorns().batch, None)
    for card in ("P1", "B2", "G7", "G8", "Y1", "G3", "Y4", "B9"):
        assert card in text
    assert "(you)" not in text and "??" not in text
    assert "player_0's decision (guess): color pink" in text


# Pairs of scenarios that differ only in cards seat 0 cannot see (its own forehead card, another seat's hand);
# its forehead card is green in each, so that its guess "color green" is right in both.
UNSEEN_BY_SEAT_0 = {
    "own forehead": ({}, {"foreheads": [["G6"], ["Y4"], ["B9"]]}),
    "another's hand": ({}, {"hands": [["P1", "B2"], ["P7", "B8"], ["Y1"]]}),
    "both": ({}, {"hands": [["P1", "B2"], ["G7", "G8"], ["G1"]], "foreheads": [["G9"], ["Y4"], ["B9"]]}),
}


@pytest.mark.parametrize("change", sorted(UNSEEN_BY_SEAT_0))
def test_render_picture_of_a_seat_shows_no_card_it_cannot_see(change):
    first, second = (unocorns(**kwargs) for kwargs in UNSEEN_BY_SEAT_0[change])
    assert render_text(first.batch, 0) == render_text(second.batch, 0)  # the same table, as seat 0 sees it
    assert picture(first, 0).tobytes() == picture(second, 0).tobytes()
    assert picture(first, None).tobytes() != picture(second, None).tobytes()
    # Play on identically (the right guess puts the forehead card under the draw pile, unseen): still the same.
    for game in (first, second):
        game.step("color green")
    assert render_text(first.batch, 0) == render_text(second.batch, 0)
    assert picture(first, 0).tobytes() == picture(second, 0).tobytes()


def test_render_picture_through_the_env_hides_like_the_text():
    # As in tests/uno_env/test_aec.py's text render test: player_1 decides; P1/B2 (player_0's hand), its own Y4 hidden.
    pictures = []
    for hand_0, forehead_1 in ((["P1", "B2"], "Y4"), (["P1", "B3"], "Y6")):
        env = deal_env("unocorns", [hand_0, ["G7", "G8"], ["Y1"]], "P5", foreheads=[["G3"], [forehead_1], ["B9"]])
        act(env, "color green", "play P1")
        assert env.agent_selection == "player_1"
        pictures.append({viewer: picture(env.unwrapped.game, viewer) for viewer in (0, 1, 2, None)})
    first, second = pictures
    assert first[1].tobytes() == second[1].tobytes()  # player_1 sees neither difference
    assert first[0].tobytes() != second[0].tobytes()  # player_0 sees its hand and player_1's forehead
    assert first[2].tobytes() != second[2].tobytes()  # player_2 sees player_1's forehead
    assert first[None].tobytes() != second[None].tobytes()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"hands": [["P1", "B3"], ["G7", "G8"], ["Y1"]]},  # the viewer's own hand
        {"hands": [["P1", "B2"], ["G7", "G8", "G9"], ["Y1"]]},  # another seat's card count
        {"foreheads": [["G3"], ["Y5"], ["B9"]]},  # another seat's forehead card
        {"top": "P6"},  # the top card
        {"scores": [10, 0, 250]},  # the scores
    ],
)
def test_render_picture_changes_with_what_the_seat_sees(kwargs):
    assert picture(unocorns(), 0).tobytes() != picture(unocorns(**kwargs), 0).tobytes()


def test_render_picture_of_the_end_and_of_a_pending_draw_stack():
    game = deal("classic", [["G+2", "R5"], ["B+2", "W", "B7"], ["Y3", "Y+2"]], "G5", stack_draw_two=True)
    before = picture(game, 2)
    game.step("play G+2")
    game.step("play B+2")
    view = table_view(game, 2)
    assert view["pending_draw"] == 4 and view["legal"] == ["play Y+2", "draw"]
    assert picture(game, 2).tobytes() != before.tobytes()
    over = deal("classic", [["R5"], ["B3"]], "R3")
    over.step("play R5")
    view = table_view(over, 1)
    assert view["done"] and view["winners"] == [0] and view["deciding"] is None and view["legal"] is None
    assert not any(seat["deciding"] for seat in view["seats"]) and view["seats"][0]["winner"]
    assert picture(over, 1).shape == (HEIGHT, WIDTH, 3)


# ------------------------------------------------------------------------------------------ animations


def test_render_frames_of_a_random_game_make_a_gif(tmp_path):
    game = Game("swap", 3, seed=5)
    frames = frames_of_random_game(game, seed=5, viewer=None, max_frames=10)
    assert len(frames) == 10 and all(f.shape == (HEIGHT, WIDTH, 3) for f in frames)
    path = save_animation(frames, tmp_path / "game.gif", fps=4)
    # An animated GIF merges identical consecutive frames.
    runs = 1 + sum(not np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))
    with Image.open(path) as gif:
        assert gif.size == (WIDTH, HEIGHT) and gif.n_frames == runs
        assert gif.info["duration"] == 250
    over = deal("classic", [["R5"], ["B3"]], "R3")
    over.step("play R5")
    assert len(frames_of_random_game(over, seed=0, viewer=0)) == 1  # it stops at the end


def test_render_frames_of_actions():
    game = unocorns()
    frames = frames_of_actions(game, ["color green", "play P1"], viewer=1)
    assert len(frames) == 3 and game.seat == 1
    assert frames[-1].tobytes() == picture(game, 1).tobytes()


def test_render_save_animation_refuses_what_it_cannot_write(tmp_path):
    frame = picture(unocorns(), None)
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        save_animation([frame], tmp_path / "game.avi")
    with pytest.raises(ValueError, match="at least one frame"):
        save_animation([], tmp_path / "game.gif")
    with pytest.raises(ValueError, match="one shape"):
        save_animation([frame, frame[:10]], tmp_path / "game.gif")
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install imageio-ffmpeg"):
            save_animation([frame], tmp_path / "game.mp4")
    else:
        assert save_animation([frame, frame], tmp_path / "game.mp4").stat().st_size > 0


def test_render_rgb_array_of_the_aec_env_is_the_deciding_seats_picture_and_records_replay():
    env = uno_env.env(variant="unocorns", num_players=3, render_mode="rgb_array")
    env.reset(seed=3)
    for _ in range(25):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    frame = env.render()
    assert frame.shape == (640, 960, 3) and frame.dtype == np.uint8
    raw = env.unwrapped
    seat = raw._seat_of[raw.agent_selection]
    assert np.array_equal(frame, picture(raw.game, seat))
    record = raw.to_record()
    game = Game.from_record(record)
    assert game.describe() == raw.describe()
    assert np.array_equal(game.picture(seat), frame)
    assert Game.from_record(game.to_record()).describe() == game.describe()
    again = uno_env.raw_env.from_record(record, render_mode="rgb_array")
    assert np.array_equal(again.render(), frame)


def test_a_gif_holds_its_end_about_three_seconds(tmp_path):
    from uno_env.picture import LAST_FRAME_MS

    frames = frames_of_random_game(Game("classic", 2, seed=4), seed=4, viewer=None, max_frames=4)
    with Image.open(save_animation(frames, tmp_path / "game.gif", fps=4)) as gif:
        durations = []
        for index in range(gif.n_frames):
            gif.seek(index)
            durations.append(gif.info["duration"])
    assert durations[:-1] == [250] * (gif.n_frames - 1) and durations[-1] == LAST_FRAME_MS == 3000
    repeated = frames + [frames[-1]] * 9  # an end held by repeating it: 10 x 250 ms, already longer
    with Image.open(save_animation(repeated, tmp_path / "held.gif", fps=4)) as gif:
        gif.seek(gif.n_frames - 1)
        assert gif.info["duration"] == 2500 + 500  # the ten repeats, made up to 3 s


@pytest.mark.parametrize("count", [1, 7, 12, 20, 26, 40])
def test_a_face_up_hand_of_many_cards_keeps_every_corner_index_in_sight(count):
    from uno_env.picture import _MIN_CORNER_STRIP, _hand_rows

    width, height = 180, 74  # an other seat's room for its cards (196 x 112 panel)
    rows, per_row, w, h = _hand_rows(count, width, height)
    assert rows * per_row >= count and rows * h + 3 * (rows - 1) <= height
    if per_row > 1:
        step = min(w + 4.0, (width - w) / (per_row - 1))
        assert step >= (_MIN_CORNER_STRIP if h >= 30 else w + 2), (count, rows, per_row, w, h)  # nothing covered
    assert (rows == 1) == (count <= 7)  # one row while a row is legible, then rows
