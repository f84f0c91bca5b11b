"""Replays from the command line and as pictures: `uno-replay` writes the HTML page, a GIF or (with imageio-ffmpeg) an
MP4, every picture under a caption saying who just did what; a seat's pictures show only what it saw; bad input is one
line and exit 2 before anything is written; the page links back where told, lists the moves (a click jumps) and
follows its address's #step= after it has loaded."""

from __future__ import annotations

import random
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from uno_env import Game
from uno_env import cards as C
from uno_env.picture import HEIGHT, WIDTH, draw_table
from uno_env.play.replay_cli import main
from uno_env.records import dumps_record, save_record
from uno_env.render import sees_moment, table_view
from uno_env.replay import (
    CAPTION_HEIGHT,
    MAX_FRAMES,
    MP4_NEEDS,
    Replay,
    _played_card,
    checked_link,
    narration,
    replay_data,
    replay_frames,
    replay_html,
    replay_steps,
    save_replay,
    step_caption,
    view_frames,
)

ROOT = Path(__file__).resolve().parents[2]
COLORS = Game("unocorns", 3).rules.colors


def has_mp4_writer() -> bool:
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def record() -> dict:
    """A short 3-player Unocorns game, random play that prefers playing a card; agents named per seat."""
    game = Game("unocorns", 3, seed=11)
    rng = random.Random(11)
    for _ in range(40):  # cut short: the record ends before the game does
        legal = game.legal_action_ids()
        cards = [a for a in legal if a < C.NUM_KINDS]
        game.step(rng.choice(cards if cards and rng.random() < 0.9 else legal))
    return game.to_record(agents=["greedy", "random", "counter"])


@pytest.fixture()
def record_file(record, tmp_path) -> Path:
    return save_record(record, tmp_path / "game.json")


# ------------------------------------------------------------------------------------------- pictures


def test_each_spectator_picture_is_the_table_under_a_caption_of_what_was_just_done(record):
    names = Game("unocorns", 3).action_names
    games = [table_view(game, None) for game in replay_steps(record)]
    frames = list(replay_frames(record))
    assert len(frames) == len(record["actions"]) + 1
    for frame, view in zip(frames, games, strict=True):
        assert frame.shape == (HEIGHT + CAPTION_HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
        assert np.array_equal(frame[CAPTION_HEIGHT:], draw_table(view, COLORS))
    data = replay_data(record, viewers=[None])
    steps = [step for step, _ in view_frames(data, "all")]
    last = len(record["actions"])
    assert step_caption(data, steps[0], 0, last).startswith(f"step 0/{last} · the deal: UNO unocorns, 3 players")
    for index in range(1, last + 1):
        seat = steps[index]["by"]
        caption = step_caption(data, steps[index], index, last)
        action = names[record["actions"][index - 1]]
        assert caption.startswith(f"step {index}/{last} · Player {seat} ({record['agents'][seat]}) ")  # as it is said
        assert caption.split(" · ")[1] == narration({"by": seat, "action": action, "phase": steps[index]["phase"]},
                                                    record["agents"], 3)  # fmt: skip
    ending = step_caption(data, steps[-1], last, last)
    scores = ", ".join(map(str, record["result"]["scores"]))
    assert ending.endswith(f"· the record ends before the game does (points {scores})")
    # The captions differ where the steps do: the strip is drawn from the caption, not a fixed banner.
    strips = {frame[:CAPTION_HEIGHT].tobytes() for frame in frames}
    assert len(strips) == len(frames)


def test_a_caption_of_any_length_is_fitted_in_a_few_measurements(record):
    from PIL import Image, ImageDraw

    from uno_env.picture import clip_text, font

    draw = ImageDraw.Draw(Image.new("RGB", (8, 8)))
    for name in ("ab" * 5_000, "W" * 10_000):
        started = time.perf_counter()
        text = clip_text(draw, name, 19, 900)
        assert time.perf_counter() - started < 0.5  # one character at a time took about 50 s for the first
        assert text.endswith("...") and name.startswith(text[:-3])
        assert draw.textlength(text, font=font(19)) <= 900 < draw.textlength(name[: len(text) - 2] + "...",
                                                                          font=font(19))  # fmt: skip
    long_named = {**record, "agents": ["x" * 10_000, "random", "counter"]}
    started = time.perf_counter()
    frames = list(replay_frames(long_named))
    assert len(frames) == len(record["actions"]) + 1 and time.perf_counter() - started < 30


def test_a_seats_pictures_show_only_the_moments_and_cards_it_saw(record):
    seat = 1
    seen = [table_view(game, seat) for game in replay_steps(record) if sees_moment(game.describe(), seat)]
    frames = list(replay_frames(record, viewer=seat, captions=False))
    assert len(frames) == len(seen) < len(record["actions"]) + 1  # another seat's draw and its decision: one step
    for frame, view in zip(frames, seen, strict=True):
        assert np.array_equal(frame, draw_table(view, COLORS))
        assert all(other["hand"] is None for other in view["seats"] if other["seat"] != seat)
    some = list(replay_frames(record, viewer=seat, start=2, count=3))
    assert len(some) == 3 and np.array_equal(some[0][CAPTION_HEIGHT:], frames[2])
    with pytest.raises(ValueError, match="viewers must be seats from 0 to 2"):
        next(replay_frames(record, viewer=3))


def test_the_card_a_step_played_is_found_in_its_caption():
    assert _played_card("play R5") == "R5"
    assert _played_card("draw, then play W+4") == "W+4"
    assert _played_card("draw") is None and _played_card(None) is None and _played_card("color red") is None


def test_save_replay_writes_a_looping_gif_of_the_chosen_frames(record, tmp_path):
    path = save_replay(record, tmp_path / "game.gif", viewer=0, fps=4, start=1, frames=6)
    frames = list(replay_frames(record, viewer=0, start=1, count=6))
    with Image.open(path) as gif:
        assert gif.n_frames == 6 and gif.info["loop"] == 0 and gif.info["duration"] == 250
        assert gif.size == (WIDTH, HEIGHT + CAPTION_HEIGHT)
        gif.seek(3)
        shown = np.asarray(gif.convert("RGB"), dtype=np.int16)
        gif.seek(5)
        assert gif.info["duration"] == 3000  # the last picture held about 3 s before the GIF loops
    assert np.abs(shown - frames[3]).mean() < 6  # the fourth picture (a GIF's palette shifts colours a little)


def test_save_replay_refuses_what_it_cannot_write_before_writing(record, tmp_path):
    old = tmp_path / "old.gif"
    old.write_bytes(b"old")
    for kwargs, message in [
        ({"fps": 0}, "fps must be a number above 0"), ({"frames": MAX_FRAMES + 1}, f"from 1 to {MAX_FRAMES}"),
        ({"start": 10_000}, "start must be a moment from 0 to"), ({"viewer": 7}, "viewers must be seats"),
    ]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            save_replay(record, old, **kwargs)
        assert old.read_bytes() == b"old"
    with pytest.raises(ValueError, match=r"\.html, \.gif or \.mp4"):
        save_replay(record, tmp_path / "game.avi")
    if not has_mp4_writer():
        with pytest.raises(ImportError, match="pip install imageio-ffmpeg"):
            save_replay(record, tmp_path / "game.mp4")
        assert not (tmp_path / "game.mp4").exists()
    else:
        assert save_replay(record, tmp_path / "game.mp4", frames=4).stat().st_size > 0


def test_a_failed_gif_leaves_the_old_file_whole(record, tmp_path, image_save_fails_half_written):
    path = save_replay(record, tmp_path / "game.gif", frames=2)
    old = path.read_bytes()

    image_save_fails_half_written()
    with pytest.raises(OSError, match="No space left"):
        save_replay(record, path, frames=3)
    assert path.read_bytes() == old and [p.name for p in tmp_path.iterdir()] == ["game.gif"]


# ------------------------------------------------------------------------------------------- the page


def test_the_page_links_back_where_told_and_refuses_other_links(record):
    page = replay_html(record, back_link="/?game=1&seat=0", back_label="back to <the> table")
    assert '<a class="uno-back-link" href="/?game=1&amp;seat=0">\u2190 back to &lt;the&gt; table</a>' in page
    assert 'class="uno-back-link"' not in replay_html(record)
    assert 'href="https://example.org/t"' in Replay(record).html(back_link="https://example.org/t")
    for bad in ("javascript:alert(1)", "data:text/html,x", "//evil.example/", "/a b", "http:/x", "", "/\n"):
        with pytest.raises(ValueError, match="back_link must be a path"):
            checked_link(bad)
        with pytest.raises(ValueError, match="back_link must be a path"):
            replay_html(record, back_link=bad)


# ------------------------------------------------------------------------------------------- uno-replay


def test_uno_replay_is_a_console_script():
    scripts = (ROOT / "pyproject.toml").read_text().split("[project.scripts]")[1].split("\n[")[0]
    assert re.search(r'^uno-replay = "uno_env\.play\.replay_cli:main"$', scripts, re.M)


def test_uno_replay_writes_the_page_beside_the_record_and_a_seat_gif(record, record_file, capsys):
    assert main([str(record_file)]) == 0
    page = record_file.with_suffix(".html")
    assert page.read_text(encoding="utf-8") == replay_html(record)
    assert "the interactive replay" in capsys.readouterr().out
    assert main([str(record_file), "--seat", "2", "--out", str(page)]) == 0
    assert page.read_text(encoding="utf-8") == replay_html(record, viewers=[2])
    gif = record_file.with_name("seat2.gif")
    assert main([str(record_file), "--out", str(gif), "--seat", "2", "--frames", "5", "--fps", "2"]) == 0
    out = capsys.readouterr().out
    moments = len(replay_data(record, viewers=[2])["views"]["2"]["steps"])
    assert f"5 pictures (player_2's view, moments 0 to 4 of 0 to {moments - 1}; --start and --frames" in out
    with Image.open(gif) as image:
        assert image.n_frames == 5 and image.info["duration"] == 500
    assert main([str(record_file), "--format", "gif", "--start", "3", "--frames", "2"]) == 0
    with Image.open(record_file.with_suffix(".gif")) as image:
        assert image.n_frames == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["{record}", "--out", "{dir}/game.txt"], "--out must end in .html, .gif or .mp4"),
        (["{record}", "--out", "{dir}/g.gif", "--format", "html"], "--format html disagrees with --out"),
        (["{record}", "--out", "{dir}/missing/g.gif"], "must be a file in an existing folder"),
        (["{record}", "--seat", "3"], "--seat must be a seat from 0 to 2 of this 3-player game"),
        (["{record}", "--out", "{dir}/g.gif", "--start", "999"], "--start must be a moment from 0 to"),
        (["{record}", "--out", "{dir}/g.gif", "--frames", "5000"], f"--frames must be an int from 1 to {MAX_FRAMES}"),
        (["{record}", "--fps", "0"], "must be a number > 0"),
        (["{dir}/nothing.json"], "no record file"),
        (["{dir}/broken.json"], "not a game record: not JSON"),
        (["{dir}/illegal.json"], "is not legal at decision 3"),
        (["{dir}/game.html", "--out", "{dir}/game.html"], "would replace the record"),
    ],
)
def test_uno_replay_refuses_bad_input_in_one_line_before_writing(argv, message, record, record_file, capsys):
    folder = record_file.parent
    (folder / "broken.json").write_text("{not json")
    (folder / "illegal.json").write_text(dumps_record(dict(record, actions=[*record["actions"][:3], 76])))
    (folder / "game.html").write_text(dumps_record(record))
    before = sorted(path.name for path in folder.iterdir())
    with pytest.raises(SystemExit) as exit_info:
        main([part.format(record=record_file, dir=folder) for part in argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-replay: error: ") and err.count("\n") == 1 and message in err, err
    assert sorted(path.name for path in folder.iterdir()) == before  # nothing written


def test_uno_replay_mp4_needs_imageio_ffmpeg_said_in_one_line(record_file, capsys):
    if has_mp4_writer():
        assert main([str(record_file), "--format", "mp4", "--frames", "3"]) == 0
        assert record_file.with_suffix(".mp4").stat().st_size > 0
        return
    with pytest.raises(SystemExit) as exit_info:
        main([str(record_file), "--format", "mp4"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and MP4_NEEDS in err and not record_file.with_suffix(".mp4").exists()


# ------------------------------------------------------------------------------------------- in a browser

CHROMIUM, CHROMEDRIVER = shutil.which("chromium") or "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def chrome():
    """Headless Chromium driven by Selenium (the test fails, not skips, when it is missing)."""
    if not (Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()):
        pytest.fail("the browser tests need chromium and chromium-driver: run scripts/setup.sh")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,900",
                 "--disable-dev-shm-usage"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def shown_step(driver) -> str:
    return driver.find_element("css selector", ".uno-step").text


def test_the_page_follows_its_address_after_loading_and_its_move_list_jumps(record, tmp_path, chrome):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    path = Replay(record).save_html(tmp_path / "game.html", back_link="/")
    last = len(record["actions"])
    chrome.get(path.as_uri())
    wait = WebDriverWait(chrome, 10)
    wait.until(lambda d: shown_step(d) == f"decision 0 / {last}")
    assert chrome.find_element(By.CSS_SELECTOR, "a.uno-back-link").get_attribute("href").endswith("/")
    moves = chrome.find_elements(By.CSS_SELECTOR, ".uno-moves li")
    assert len(moves) == last + 1 and moves[0].text == "the deal"
    names = Game("unocorns", 3).action_names
    data = replay_data(record)
    said = data["moves"][data["views"]["all"]["steps"][5]]["says"]  # in the live table's words
    assert moves[5].text == said and said.startswith("Player ") and names[record["actions"][4]].split()[-1] in said
    assert "uno-current" in moves[0].get_attribute("class")

    chrome.execute_script("location.hash = '#step=7&view=all'")  # after the page has loaded: hashchange
    wait.until(lambda d: shown_step(d) == f"decision 7 / {last}")
    assert "uno-current" in moves[7].get_attribute("class") and "uno-current" not in moves[0].get_attribute("class")
    assert "Decision 7: Player " in chrome.find_element(By.CSS_SELECTOR, ".uno-action").text

    moves[12].find_element(By.TAG_NAME, "button").click()
    wait.until(lambda d: shown_step(d) == f"decision 12 / {last}")
    assert re.search(r"#step=12&view=all$", chrome.current_url)

    chrome.execute_script("location.hash = '#step=3&view=1'")  # another view: its own moments and move list
    seat_moments = len(replay_data(record)["views"]["1"]["steps"])
    wait.until(lambda d: shown_step(d) == f"decision 3 / {seat_moments - 1}")
    assert len(chrome.find_elements(By.CSS_SELECTOR, ".uno-moves li")) == seat_moments
    assert chrome.find_element(By.CSS_SELECTOR, "select").get_attribute("value") == "1"


def test_a_text_agents_decisions_replay_as_a_conversation(tmp_path, chrome):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from uno_env.agents import TextAgent

    replies = iter(["I think the red one.", "Red seven.\nMOVE: 2"])
    game = Game("classic", 2, deal={"dealer": 1, "top": "R1", "hands": [["R5", "R7", "B2"], ["G1", "G2", "R9"]]})
    agent = TextAgent(lambda text: next(replies), name="llm:tiny")
    action = agent.decide(game)
    game.step(action)
    record = game.to_record(agents=["llm:tiny", "greedy"], details=[agent.last_details[0]])
    path = Replay(record).save_html(tmp_path / "talk.html")
    chrome.get(path.as_uri() + "#step=1&view=all")
    talk = WebDriverWait(chrome, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".uno-conversation"))[0]
    assert talk.find_element(By.CSS_SELECTOR, ".uno-prompt summary").text == "Prompt to Player 0 (llm:tiny)"
    prompt_text = talk.find_element(By.CSS_SELECTOR, ".uno-prompt pre").get_attribute("textContent")
    assert prompt_text == agent.last_details[0]["text"]["prompt"] and "\\n" not in prompt_text  # text, not JSON
    replies_shown = [node.get_attribute("textContent") for node in talk.find_elements(By.CSS_SELECTOR,
                                                                                       ".uno-reply pre")]
    assert replies_shown == ["I think the red one.", "Red seven.\nMOVE: 2"]
    reads = [node.text for node in talk.find_elements(By.CSS_SELECTOR, ".uno-reply .uno-read")]
    assert reads[0].startswith("not accepted: ") and reads[1] == "accepted: play R7"
    assert '{"text"' not in chrome.find_element(By.CSS_SELECTOR, ".uno-details").text
