"""uno-web as a card table (`uno_env.play.web`, play/static): the agents' turns kept step by step and paced by the
page, the card on the pile with its player, "since your turn" with card pictures, the seats around an oval with your
hand drawn once, what you know of your own forehead card (from your observation), every hand face up with its
points when a round ends (only then), the agents the page may seat and the difficulty levels. The server's side is
checked through Flask's test client; the page's in headless Chromium, with its screenshots checked pixel by pixel
and its elements by geometry."""

import io
import json
import math
import time
from itertools import pairwise

import pytest
from web_client import (  # tests/play/web_client.py
    check_screenshot,
    element_box,
    first_action,
    missing_browser,
    need,
    page_client,
    served,
    share_of_colour,
    start_chromium,
    table,
    wait_for,
)

from uno_env import Game
from uno_env import cards as C
from uno_env.faces import COLOR_FACES, color_face
from uno_env.play import web
from uno_env.render import table_view

# seat 0 has a Narwhal forehead card; the two deals differ only in it (G5 or B1): seat 0 cannot tell them apart
HANDS = [["P1", "P5", "B3", "B7", "G2", "Y9", "W"], ["P2", "B5", "G7", "G8", "Y1", "Y3", "WN"]]
DEALS = [{"dealer": 1, "top": "B4", "hands": HANDS, "foreheads": [[own], ["Y6"]]} for own in ("G5", "B1")]


def make_app(*argv):
    return web.create_app(web.parse_args(["--seed", "0", "--pace", "0", *argv]))


def first_legal(state) -> dict:
    """The person's action of the page's first button, for the game on the table."""
    return {"action": state["actions"][0]["id"], "game": state["game"]["number"]}


def views_after(variant, players, seed, actions, seat, options=()):
    """The seat's table_view after each prefix of `actions`, replayed by the engine from the deal's `seed`."""
    game = Game(variant, players, seed=seed, **dict(options))
    views = [json.loads(json.dumps(table_view(game, seat)))]
    for action in actions:
        game.batch.step_game(0, action)
        views.append(json.loads(json.dumps(table_view(game, seat))))
    return views


# ---------------------------------------------------------------------------------------- the server
def test_each_frame_is_the_seats_view_after_its_decision_with_the_card_on_the_pile_and_its_player():
    app = make_app("--players", "4", "--seat", "1", "--opponents", "greedy", "counter", "naive", "--seed", "21")
    client = page_client(app)
    state = client.get("/api/state").get_json()
    answers = [state]
    while not state["view"]["done"]:
        state = client.post("/api/act", json=first_legal(state)).get_json()
        answers.append(state)
        assert len(answers) < 400
    views = views_after("classic", 4, 21, table(app).session.actions, 1)
    paced = 0
    for answer in answers:
        frames = answer["frames"]
        assert frames[-1]["view"] == answer["view"] and frames[-1]["since"] == len(answer["since"])
        decisions = [frame["decision"] for frame in frames]
        assert decisions == sorted(set(decisions))  # one frame a decision, in order
        for frame in frames:
            assert frame["view"] == views[frame["decision"]]  # the seat's own view then: nothing it cannot see
            if frame["played"] is not None:
                assert frame["played"]["card"] == frame["view"]["top"]
        for before, frame in pairwise(frames):  # a frame's own entries of "since your turn" name its seat
            entries = answer["since"][before["since"] : frame["since"]]
            assert entries and next(entry["seat"] for entry in entries if entry["seat"] is not None) == frame["seat"]
            plays = [entry for entry in entries if entry["kind"] == "play"]
            if plays:
                assert frame["played"]["seat"] == frame["seat"]
                assert {"card": frame["played"]["card"]} in plays[-1]["parts"]  # drawn as a card, not text
        agents = [frame["seat"] for frame in frames if frame["seat"] not in (None, 1)]
        paced = max(paced, len(agents))
        if answer is not answers[0]:
            assert frames[0]["seat"] == 1  # the person's own decision first, then each agent's
    assert paced >= 3  # the three agents' turns come as three frames, not one


def test_the_hands_turn_face_up_with_their_points_only_when_the_round_ends():
    app = make_app("--players", "3", "--seed", "8")
    client = page_client(app)
    state = client.get("/api/state").get_json()
    while not state["view"]["done"]:
        assert state["reveal"] is None and not any(frame["reveal"] for frame in state["frames"])
        state = client.post("/api/act", json=first_legal(state)).get_json()
    game = table(app).game
    hands, points = game.describe()["hands"], game.rules.card_points_by_code()
    reveal = state["reveal"]
    assert [seat["hand"] for seat in reveal["seats"]] == hands and reveal["winner"] == game.winners[0]
    assert [seat["points"] for seat in reveal["seats"]] == [sum(points[code] for code in hand) for hand in hands]
    winner = reveal["winner"]
    assert reveal["gains"][winner] == sum(seat["points"] for seat in reveal["seats"]) > 0
    assert state["frames"][-1]["reveal"]


def test_a_match_shows_each_rounds_hands_as_it_scored_them_until_the_persons_next_decision():
    app = make_app("--episode", "match", "--option", "target_score=300", "--seed", "3")
    client = page_client(app)
    state = client.get("/api/state").get_json()
    shown = 0
    while not state["view"]["done"]:
        if state["reveal"] is not None:
            reveal, winner = state["reveal"], state["reveal"]["winner"]
            assert not reveal["seats"][winner]["hand"] and reveal["gains"][winner] == sum(
                seat["points"] for seat in reveal["seats"]
            )
            assert any(entry["kind"] == "round_end" for entry in state["since"])
            shown += 1
        before = state["view"]["round"]
        state = client.post("/api/act", json=first_legal(state)).get_json()
        if state["view"]["round"] == before and not state["view"]["done"]:
            assert state["reveal"] is None  # gone with the person's next decision
    assert shown >= 1 and state["view"]["round"] >= 2


def test_what_you_know_of_your_forehead_card_comes_from_your_observation():
    answers = []
    for deal in DEALS:
        app = make_app("--variant", "unocorns")
        table(app).new_game(seed=5, deal=deal)
        client = page_client(app)
        state = client.get("/api/state").get_json()
        assert state["view"]["phase"] == "guess" and state["forehead"] == {"wrong_guesses": [[]]}
        pink = next(a["id"] for a in state["actions"] if a["name"] == "color pink")  # wrong for G5 and for B1
        state = client.post("/api/act", json={"action": pink, "game": state["game"]["number"]}).get_json()
        answers.append((state["forehead"], state["view"]["seats"][0]["foreheads"], state["since"][0]))
    assert answers[0] == answers[1]  # the same answer for either hidden card
    assert answers[0][:2] == ({"wrong_guesses": [["pink"]]}, [None])


def test_the_page_seats_what_uno_arena_knows_but_no_file_and_no_unbounded_search():
    app = make_app()
    client = page_client(app)
    for name in ("ppo:classic", "best:classic", "ismcts:20", "seer:5ms", "counter"):
        answer = client.post("/api/new", json={"opponents": [name]})
        assert answer.status_code == 200 and answer.get_json()["names"][1] == f"Player 1 ({name})", answer.get_json()
    refused = {
        "ismcts:5000": "1 to 1,000 iterations or 1 to 1,000ms a decision, got '5000' (the page's cap",
        "seer:2000ms": "1 to 1,000 iterations or 1 to 1,000ms a decision, got '2000ms'",
        "ismcts:\u0662\u0660\u0660\u0660\u0660ms": "in ASCII digits",  # Arabic-Indic digits: 20000ms
        "ismcts:\uff12\uff10\uff10\uff10": "in ASCII digits",  # full-width digits: 2000
        "ppo:/etc/passwd": "unknown agent",
        "ppo:classic.pt": "unknown agent",
        "ismcts:20:prior=policy.pt": "on the page, which loads no file",  # a search's prior is a file too
        "sb3:model.zip": "unknown agent",
        "rllib:checkpoint": "unknown agent",
    }
    for name, message in refused.items():
        answer = client.post("/api/new", json={"opponents": [name]})
        assert answer.status_code == 400 and message in answer.get_json()["error"], (name, answer.get_json())
    assert {"ppo:classic", "best:unocorns", "ismcts:200"} <= set(client.get("/api/state").get_json()["agents"])


def test_a_difficulty_seats_its_agent_at_every_opponent_seat():
    app = make_app("--players", "3")
    client = page_client(app)
    state = client.post("/api/new", json={"difficulty": "medium"}).get_json()
    assert state["names"][1:] == ["Player 1 (counter)", "Player 2 (counter)"]
    assert [(level["level"], level["agent"], level["chosen"]) for level in state["difficulties"]] == [
        ("easy", "naive", False), ("medium", "counter", True), ("hard", "best:classic", False)]  # fmt: skip
    hard = state["difficulties"][2]
    assert not hard["available"] and "shipped for 2 and 4 players" in hard["why"]
    for body, message in (({"difficulty": "hard"}, "this game has 3 players"),
                          ({"difficulty": "nightmare"}, "difficulty must be easy, medium, hard"),
                          ({"difficulty": "easy", "opponents": ["naive"]}, "not both")):  # fmt: skip
        answer = client.post("/api/new", json=body)
        assert answer.status_code == 400 and message in answer.get_json()["error"]
    state = client.post("/api/new", json={"difficulty": "hard", "players": 2, "variant": "unocorns"}).get_json()
    assert state["names"] == ["You (player 0)", "Player 1 (best:unocorns)"] and state["difficulties"][2]["chosen"]


def test_the_pace_is_a_setting_from_0_to_5_seconds(capsys):
    assert make_app().extensions["uno_table"].settings.pace == 0
    assert page_client(web.create_app(web.parse_args([]))).get("/api/state").get_json()["pace"] == web.DEFAULT_PACE
    with pytest.raises(SystemExit) as stop:
        web.main(["--pace", "-1"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "--pace: must be a number of seconds from 0 to 5" in err and "\n" not in err


def test_the_replay_page_links_back_to_the_table():
    app = make_app()
    client = page_client(app)
    state = client.get("/api/state").get_json()
    while not state["view"]["done"]:
        state = client.post("/api/act", json=first_legal(state)).get_json()
    record = client.get("/api/record").get_data()
    page = client.post("/replay", data={"record": (io.BytesIO(record), "game.json"), "token": web.page_token(app)})
    assert page.status_code == 200 and b'<a class="uno-back-link" href="/">' in page.get_data()


# ---------------------------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def chrome():
    """Headless Chromium (1400 x 1000), or the message the browser tests fail with when it is missing."""
    missing = missing_browser()
    if missing:
        yield missing
        return
    driver = start_chromium(1400, 1000)
    yield driver
    driver.quit()


def by_css(browser, selector):
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, selector)


def body_number(browser, name) -> int:
    return int(by_css(browser, "body")[0].get_attribute(name))


def load(browser, url):
    browser.get(url)
    wait_for(lambda: body_number(browser, "data-rendered") >= 1, what="the first table", page=browser)


def click_and_settle(browser, element, timeout=30.0):
    """Click `element` and wait until the page has drawn the answer whole (after its paced frames)."""
    seen = body_number(browser, "data-rendered")
    element.click()
    wait_for(lambda: body_number(browser, "data-rendered") > seen or by_css(browser, "#error")[0].text,
             timeout=timeout, what="the answer", page=browser)  # fmt: skip
    assert not by_css(browser, "#error")[0].text


def card_rgb(code: str, colors) -> tuple[int, int, int]:
    return color_face(C.parse_card(code, tuple(colors)), tuple(colors)).rgb


#: what the paced test reads of the page each time it looks
SAMPLE = """var body = document.body;
return [Number(body.getAttribute("data-frame-at")), document.querySelectorAll("#since li").length,
  (document.querySelector(".uno-played-by") || {}).textContent || "", body.getAttribute("data-animating") === "true",
  document.querySelectorAll("#actions button, #hand .web-playable").length,
  Number(body.getAttribute("data-rendered"))]"""


def no_policy_violations(browser):
    blocked = [line["message"] for line in browser.get_log("browser") if "Content Security Policy" in line["message"]]
    assert not blocked, blocked


def test_a_paced_game_around_an_oval_table(chrome, tmp_path):
    browser = need(chrome)
    app = make_app("--players", "4", "--opponents", "greedy", "--seed", "5", "--pace", "0.3")
    with served(app) as url:
        load(browser, url)
        state = table(app).state()
        # the seats around an oval: you at the bottom, then each next seat to your left, clockwise on the screen
        area = element_box(by_css(browser, "#table")[0])
        cx, cy = (area[0] + area[2]) / 2, (area[1] + area[3]) / 2
        rx, ry = (area[2] - area[0]) / 2 - 102, (area[3] - area[1]) / 2 - 62  # a seat's half width and 4 px in
        seats = {}
        for node in by_css(browser, "#table .uno-seat"):
            left, top, right, bottom = element_box(node)
            x, y = (left + right) / 2 - cx, (top + bottom) / 2 - cy
            assert abs((x / rx) ** 2 + (y / ry) ** 2 - 1) < 0.05, (x, y)  # on the ellipse
            seats[int(node.get_attribute("data-seat"))] = math.degrees(math.atan2(y, x)) % 360
        turned = {seat: abs((angle - 90 * (seat + 1) + 180) % 360 - 180) for seat, angle in seats.items()}
        assert max(turned.values()) < 1, seats  # you (seat 0) at 90 degrees (the bottom), then 180, 270 and 0
        # your hand, drawn once: in your own place below the table, not again at the table
        hand = state["view"]["seats"][0]["hand"]
        assert [card.get_attribute("data-code") for card in by_css(browser, "#hand .uno-card")] == hand
        assert not by_css(browser, "#table .uno-you .uno-card")
        # one click: your move at once, then each agent's turn shown in turn, about 0.3 s apart
        plays = by_css(browser, "#hand .web-playable")  # a card is played by clicking it in the hand
        button = plays[0]
        seen = body_number(browser, "data-rendered")
        button.click()
        timeline, start = [], time.monotonic()
        while time.monotonic() - start < 20:
            # one look at the page, taken whole in its own thread (between two of its renders)
            drawn, since, caption, animating, buttons, rendered = browser.execute_script(SAMPLE)
            if rendered > seen:
                break
            # drawn: the page's clock when it drew what it shows (ms); no decision offered while the agents play
            timeline.append((drawn, since, caption, buttons if animating else 0))
            time.sleep(0.02)
        answer = table(app).state()
        steps = [(t, count) for (_, before, _, _), (t, count, _, _) in pairwise(timeline) if count != before]
        agents = sum(frame["seat"] not in (None, 0) for frame in answer["frames"])
        assert agents >= 3 and len(steps) >= agents - 1, timeline  # the agents' moves appear one by one
        gaps = [later - earlier for (earlier, _), (later, _) in pairwise(steps)]
        assert all(290 <= gap < 1300 for gap in gaps), gaps  # 0.3 s apart (a timer never fires early)
        shown = [sample for sample in timeline if sample[0] >= steps[0][0]]  # from your move on
        assert all(buttons == 0 for *_, buttons in shown), timeline  # no decision offered while the agents play
        players = {caption for _, _, caption, _ in shown if caption.startswith("played by Player")}
        assert players and all(caption.endswith("(greedy)") for caption in players), players
        # "since your turn": each move with its card drawn small, a picture in the words' place
        items = by_css(browser, "#since li")
        assert len(items) == len(answer["since"])
        for item, entry in zip(items, answer["since"], strict=True):
            codes = [part["card"] for part in entry.get("parts", []) if isinstance(part, dict) and "card" in part]
            cards = item.find_elements("css selector", ".uno-card.uno-mini")
            assert [card.get_attribute("data-code") for card in cards] == codes
            assert item.get_attribute("data-kind") == entry["kind"]
        assert by_css(browser, "#since li[data-kind='play'] .uno-card.uno-mini")
        # the top card, in its colour on the screenshot, with who played it under it
        shot = tmp_path / "table.png"
        browser.save_screenshot(str(shot))
        image = check_screenshot(shot)
        top = by_css(browser, ".uno-top .uno-card")[0]
        code = top.get_attribute("data-code")
        assert code == answer["view"]["top"]
        assert share_of_colour(image, element_box(top), card_rgb(code, answer["colors"])) > 0.2
        played = answer["played"]
        caption = by_css(browser, ".uno-played-by")[0].text
        assert caption == ("played by you" if played["seat"] == 0 else f"played by {answer['names'][played['seat']]}")
        no_policy_violations(browser)


def test_the_hands_turn_face_up_at_the_end_of_the_round(chrome, tmp_path):
    browser = need(chrome)
    app = make_app("--players", "3", "--opponents", "counter", "--seed", "8")
    with served(app) as url:
        load(browser, url)
        assert not by_css(browser, ".uno-revealed") and not by_css(browser, "#table .uno-hand-worth")
        others = by_css(browser, "#table .uno-seat:not(.uno-you) .uno-seat-cards .uno-card")
        assert others and all("uno-back" in card.get_attribute("class") for card in others)  # face down
        clicks = 0
        while by_css(browser, "body")[0].get_attribute("data-done") != "true":
            click_and_settle(browser, first_action(browser))
            clicks += 1
            assert clicks < 300
        game = table(app).game
        hands, points = game.describe()["hands"], game.rules.card_points_by_code()
        shot = tmp_path / "round-end.png"
        browser.save_screenshot(str(shot))
        image = check_screenshot(shot)
        for seat in (1, 2):
            box = by_css(browser, f"#table .uno-seat[data-seat='{seat}']")[0]
            faces = box.find_elements("css selector", ".uno-revealed .uno-card")
            assert [card.get_attribute("data-code") for card in faces] == hands[seat]
            assert box.find_element("css selector", ".uno-hand-worth").text.startswith(
                f"cards worth {sum(points[code] for code in hands[seat])}")
            frame = element_box(box)
            for card in faces:  # drawn inside its seat's place, in its colour
                left, top, right, bottom = element_box(card)
                assert frame[0] <= left and right <= frame[2] and frame[1] <= top and bottom <= frame[3]
                code = card.get_attribute("data-code")
                if not code.startswith("W"):
                    assert share_of_colour(image, element_box(card), card_rgb(code, game.rules.colors)) > 0.15
        assert by_css(browser, ".uno-seat.uno-winner")
        no_policy_violations(browser)


def test_a_match_shows_the_hands_of_a_round_that_ended(chrome):
    browser = need(chrome)
    app = make_app("--episode", "match", "--option", "target_score=300", "--seed", "3")
    with served(app) as url:
        load(browser, url)
        assert not by_css(browser, "#reveal")[0].is_displayed()
        clicks = 0
        while not by_css(browser, "#reveal")[0].is_displayed():
            click_and_settle(browser, first_action(browser))
            clicks += 1
            assert clicks < 300 and by_css(browser, "body")[0].get_attribute("data-done") != "true"
        reveal = table(app).state()["reveal"]
        rows = by_css(browser, "#reveal .web-reveal-row")
        assert len(rows) == 2
        for row, seat in zip(rows, reveal["seats"], strict=True):
            codes = [card.get_attribute("data-code") for card in row.find_elements("css selector", ".uno-card")]
            assert codes == seat["hand"] + seat["foreheads"]
            assert row.find_element("css selector", ".uno-hand-worth").text == f"cards worth {seat['points']}"
        click_and_settle(browser, first_action(browser))
        assert by_css(browser, "#reveal")[0].is_displayed() == (table(app).state()["reveal"] is not None)


def test_your_forehead_card_shows_the_colours_you_guessed_wrong(chrome, tmp_path):
    browser = need(chrome)
    app = make_app("--variant", "unocorns")
    table(app).new_game(seed=5, deal=DEALS[0])
    with served(app) as url:
        load(browser, url)
        note = by_css(browser, "#forehead .web-known")[0]
        assert note.text == "no guess yet" and by_css(browser, "#forehead .uno-card.uno-unknown")
        click_and_settle(browser, by_css(browser, "#actions button[data-action='color pink']")[0])
        note = by_css(browser, "#forehead .web-known")[0]
        assert note.get_attribute("data-wrong") == "pink" and note.text.startswith("not")
        shot = tmp_path / "forehead.png"
        browser.save_screenshot(str(shot))
        chip = note.find_element("css selector", ".uno-chip.web-crossed")
        assert share_of_colour(check_screenshot(shot), element_box(chip), COLOR_FACES["pink"].rgb) > 0.3
        assert "G5" not in json.dumps(table(app).state())  # the hidden card itself is never sent


def test_choosing_a_difficulty(chrome, tmp_path):
    browser = need(chrome)
    app = make_app("--seed", "2")
    with served(app) as url:
        load(browser, url)
        levels = {button.get_attribute("data-level"): button for button in by_css(browser, "#levels button")}
        assert [button.text.lower().split() for button in levels.values()] == [
            ["easy", "naive"], ["medium", "counter"], ["hard", "best:classic"]]  # fmt: skip
        for level, agent in (("medium", "counter"), ("hard", "best:classic"), ("easy", "naive")):
            click_and_settle(browser, by_css(browser, f"#levels button[data-level='{level}']")[0])
            names = [node.text for node in by_css(browser, "#table .uno-seat:not(.uno-you) .uno-seat-name")]
            assert names == [f"Player 1 ({agent})"]
            pressed = [b.get_attribute("data-level") for b in by_css(browser, "#levels button[aria-pressed='true']")]
            assert pressed == [level] and table(app).settings.opponents == [agent]
        shot = tmp_path / "difficulty.png"
        browser.save_screenshot(str(shot))
        image = check_screenshot(shot)
        chosen = by_css(browser, "#levels button[data-level='easy']")[0]
        assert share_of_colour(image, element_box(chosen), (255, 140, 0)) > 0.4  # the chosen level, lit
        # three players: no policy is shipped for them, so the hard level cannot be chosen, and says why; the
        # settings seat any agent uno-arena knows, here a search
        browser.find_element("css selector", "#settings-panel summary").click()
        players = browser.find_element("id", "set-players")
        players.clear()
        players.send_keys("3")
        opponents = browser.find_element("id", "set-opponents")
        opponents.clear()
        opponents.send_keys("ismcts:30 naive")
        click_and_settle(browser, browser.find_element("id", "start"))
        names = [node.text for node in by_css(browser, "#table .uno-seat:not(.uno-you) .uno-seat-name")]
        assert names == ["Player 1 (ismcts:30)", "Player 2 (naive)"]
        hard = by_css(browser, "#levels button[data-level='hard']")[0]
        assert not hard.is_enabled() and "shipped for 2 and 4 players" in hard.get_attribute("title")
        assert len(by_css(browser, "#table .uno-seat")) == 3
        no_policy_violations(browser)


def test_the_screenshots_on_docs_web_are_remade_by_their_script(chrome, tmp_path):
    from web_screenshots import make_screenshots  # tests/play/web_screenshots.py

    browser = need(chrome)
    shots = make_screenshots(tmp_path, browser)
    assert sorted(path.name for path in shots.values()) == ["web-phone.png", "web-round-end.png", "web-table.png"]
    check_screenshot(shots["phone"], min_size=(390, 844))
    table_image, end_image = (check_screenshot(shots[name]) for name in ("table", "round_end"))
    left, top, right, bottom = element_box(by_css(browser, ".uno-felt")[0])  # the page of the last picture
    x, y = (left + right) / 2 - 0.6 * (right - left) / 2, (top + bottom) / 2 - 0.6 * (bottom - top) / 2
    between = (round(x) - 10, round(y) - 6, round(x) + 10, round(y) + 6)  # the felt, between the seats and the pile
    for image in (table_image, end_image):
        assert share_of_colour(image, between, (46, 66, 84), tolerance=16) > 0.9
    golden = share_of_colour(end_image, (0, 0, *end_image.size), (255, 215, 0), tolerance=30)
    assert golden > share_of_colour(table_image, (0, 0, *table_image.size), (255, 215, 0), tolerance=30)
