"""uno-web (`uno_env.play.web`): what the server sends a seat (never a card it cannot see), what it refuses, and
the page in a real browser: a whole game played by clicking, and a saved record replayed from an uploaded file
(tests/play/test_web_table.py: the card table, pacing, the hands at the end, the difficulty).

The browser tests drive Debian's headless Chromium with Selenium (scripts/setup.sh installs both); without them
they fail, saying so."""

import io
import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest
from web_client import (  # tests/play/web_client.py
    check_screenshot,
    first_action,
    missing_browser,
    need,
    page_client,
    served,
    start_chromium,
    table,
    wait_for,
)

from uno_env import Game
from uno_env.agents import TextAgent
from uno_env.agents.openai_chat import ChatError
from uno_env.play import session, web
from uno_env.render import table_view

SCREENSHOTS = Path("/tmp")

# Two deals that differ only in what seat 0 cannot see: seat 1's hand, seat 0's own forehead card, the deck.
HAND_0 = ["P1", "P5", "B3", "B7", "G2", "Y9", "W"]
DEAL_A = {"dealer": 1, "top": "B4", "hands": [HAND_0, ["P2", "B5", "G7", "G8", "Y1", "Y3", "WN"]],
          "foreheads": [["G5"], ["Y6"]]}  # fmt: skip
DEAL_B = {"dealer": 1, "top": "B4", "hands": [HAND_0, ["PS", "B9", "G0", "Y2", "Y4", "W+4", "B1"]],
          "foreheads": [["P9"], ["Y6"]]}  # fmt: skip


def make_app(*argv):
    return web.create_app(web.parse_args(["--seed", "0", "--pace", "0", *argv]))


# ---------------------------------------------------------------------------------------- the server
def test_a_seat_gets_the_same_answer_for_deals_that_differ_only_in_cards_it_cannot_see():
    answers = []
    for deal, seed in ((DEAL_A, 5), (DEAL_B, 6)):  # other seeds: other decks too
        app = make_app("--variant", "unocorns")
        table(app).new_game(seed=seed, deal=deal)
        assert table(app).game.describe()["foreheads"][0] == deal["foreheads"][0]
        client = app.test_client()
        page = client.get("/").get_data().replace(web.page_token(app).encode(), b"TOKEN")  # each app its own
        answers.append((client.get("/api/state").get_data(), page))
    assert answers[0] == answers[1]
    state = json.loads(answers[0][0])
    me, other = state["view"]["seats"]
    assert me["hand"] == HAND_0 and me["foreheads"] == [None] and other["hand"] is None
    assert other["foreheads"] == ["Y6"] and other["count"] == 7
    assert state["game"]["seed"] is None  # the seed would tell every hidden card


def test_every_answer_is_the_seats_table_view_and_the_seed_and_record_come_only_at_the_end():
    app = make_app("--players", "3", "--seat", "1", "--opponents", "greedy", "counter", "--seed", "4")
    client, game = page_client(app), table(app).game
    state = client.get("/api/state").get_json()
    assert client.get("/api/record").status_code == 400
    steps = 0
    while not state["view"]["done"]:
        game = table(app).game
        assert state["view"] == table_view(game, 1)
        assert [a["id"] for a in state["actions"]] == game.legal_action_ids() and game.seat == 1
        assert state["game"]["seed"] is None and not state["record"]
        state = client.post("/api/act", json={"action": state["actions"][-1]["id"], "game": 1}).get_json()
        steps += 1
        assert steps < 500
    assert state["view"] == table_view(game, 1) and state["actions"] == []
    assert state["result"].startswith("Game over") and state["game"]["seed"] == "4"
    assert state["log"][0].startswith("Round 1:") and "Traceback" not in "\n".join(state["log"])
    saved = client.get("/api/record")
    assert saved.status_code == 200 and "attachment" in saved.headers["Content-Disposition"]
    record = json.loads(saved.get_data())
    assert record["seed"] == 4 and record["agents"] == ["greedy", "you", "counter"]
    assert record["result"]["winners"] == game.winners
    nxt = client.post("/api/new").get_json()  # the next deal follows from --seed by a hash, not seed + 1
    assert nxt["game"]["number"] == 2 and not nxt["view"]["done"] and table(app).seed == web.derived_seed(4, "deal", 2)


def test_an_illegal_or_malformed_action_is_refused_with_a_400_and_changes_nothing():
    app = make_app("--seed", "3")
    client = page_client(app)
    before = client.get("/api/state").get_json()
    legal = {a["id"] for a in before["actions"]}
    illegal = next(a for a in range(77) if a not in legal)
    answer = client.post("/api/act", json={"action": illegal, "game": 1})
    assert answer.status_code == 400 and "is not legal now" in answer.get_json()["error"]
    for body in ({"action": "draw", "game": 1}, {"action": 77, "game": 1}, {"action": True, "game": 1},
                 {"nothing": 1}, [59], {"action": min(legal)}):  # fmt: skip
        answer = client.post("/api/act", json=body)
        assert answer.status_code == 400 and "action id" in answer.get_json()["error"], body
    assert client.post("/api/act", data='{"action": 59}', content_type="text/plain").status_code == 400
    assert client.get("/api/state").get_json() == before


def test_bad_settings_are_refused_with_a_clear_message():
    app = make_app()
    client = page_client(app)
    before = client.get("/api/state").get_json()
    cases = {
        "unknown rule option 'foo'": {"options": ["foo=1"]},
        "stack_draw_two must be True or False": {"options": ["stack_draw_two=maybe"]},
        "--players: must be an int from 2 to 10": {"players": 11},
        "--seat must be from 0 to 1": {"seat": 2},
        "unknown agent 'ppo:/etc/passwd'": {"opponents": ["ppo:/etc/passwd"]},  # the page loads no file
        "unknown settings trust": {"trust": True},
    }
    for message, body in cases.items():
        answer = client.post("/api/new", json=body)
        error = answer.get_json()["error"]
        assert answer.status_code == 400 and message in error and "\n" not in error and "--help" not in error, error
    assert client.get("/api/state").get_json() == before
    settings = {"players": 3, "opponents": ["naive", "counter"], "options": ["uno_call=explicit"]}
    ok = client.post("/api/new", json=settings)
    names = ["You (player 0)", "Player 1 (naive)", "Player 2 (counter)"]
    assert ok.status_code == 200 and ok.get_json()["names"] == names


def test_the_command_line_refuses_a_bad_option_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        web.main(["--option", "foo=1"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err.startswith("uno-web: error:") and "unknown rule option 'foo'" in err
    assert "\n" not in err
    with pytest.raises(SystemExit) as stop:  # uno-play's --save: the page saves records
        web.main(["--save", "game.json"])
    assert stop.value.code == 2 and "saves a finished game from the page" in capsys.readouterr().err


def test_requests_for_another_host_and_other_files_are_refused():
    app = make_app()
    client = app.test_client()
    assert client.get("/api/state", headers={"Host": "attacker.example:8765"}).status_code == 400
    assert client.get("/uno-static/table.js").status_code == 200
    assert client.get("/uno-static/..%2Frecords.py").status_code == 404
    assert client.get("/replay?path=/etc/passwd").get_data().count(b"root:") == 0
    bad = client.post("/replay", data={"record": (io.BytesIO(b'{"format": "pickle"}'), "x.json"),
                                       "token": web.page_token(app)})
    assert bad.status_code == 400 and b"not a valid record" in bad.get_data()


# ---------------------------------------------------------------------------------------- a model that fails
DOWN = "the chat server http://127.0.0.1:9/v1/chat/completions answered HTTP 503: overloaded (tried 3 times)"
#: you (seat 0) decide first, on R1 with R5 R7 B2; the agent's seat holds G1 G2 R9
SMALL_DEAL = {"dealer": 1, "top": "R1", "hands": [["R5", "R7", "B2"], ["G1", "G2", "R9"]]}


class FlakyChat:
    """A chat model that fails as the chat adapter does when its server is down (`down`), else answers 'MOVE: 1'."""

    name = "llm:flaky"

    def __init__(self):
        self.down, self.calls = True, 0

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        if self.down:
            raise ChatError(DOWN)
        return "MOVE: 1"


@pytest.fixture
def flaky(monkeypatch):
    """An app whose opponent `llm` is a text agent over a FlakyChat; yields (app, client, agent, chat)."""
    chat = FlakyChat()
    agent = TextAgent(chat, name="llm")
    monkeypatch.setattr(session, "make_agent", lambda name, seed, trust: agent)
    app = make_app("--opponents", "llm")
    table(app).new_game(deal=SMALL_DEAL)  # game 2 (the first one's agent may have failed already)
    chat.calls = 0
    return app, page_client(app), agent, chat


def test_when_the_agents_model_fails_the_table_waits_says_why_and_asks_again_on_request(flaky):
    app, client, agent, chat = flaky
    before = client.get("/api/state").get_json()
    assert before["stalled"] is None and before["actions"]
    answer = client.post("/api/act", json={"action": Game().action_id("play R5"), "game": 2})
    assert answer.status_code == 200  # not a 500: the failure is the agent's, said at the table
    state = answer.get_json()
    message = f"Player 1 (llm) could not decide: {DOWN}"
    assert state["stalled"] == {"seat": 1, "message": message, "choices": ["retry", "fallback"]}
    assert state["log"][-1] == message and state["since"][-1]["kind"] == "stalled"
    assert state["actions"] == [] and "\n" not in message
    expected = Game("classic", 2, deal=SMALL_DEAL)
    expected.step("play R5")  # your move stands; the agent's turn changed nothing
    assert table(app).game.describe() == expected.describe() and state["view"] == table_view(expected, 0)

    refused = client.post("/api/act", json={"action": Game().action_id("draw"), "game": 2})
    assert refused.status_code == 400
    assert refused.get_json()["error"] == f"{message}; ask it again or let it play its fallback move first"

    again = client.post("/api/resume", json={"how": "retry", "game": 2}).get_json()  # still down: still waiting
    assert again["stalled"]["message"] == message and chat.calls == 2 and again["log"].count(message) == 2
    chat.down = False
    resumed = client.post("/api/resume", json={"how": "retry", "game": 2}).get_json()
    assert resumed["stalled"] is None and chat.calls == 3 and agent.fallbacks == 0
    assert table(app).session.actions[:2] == [Game().action_id("play R5"), Game().action_id("play R9")]
    assert resumed["actions"] or resumed["view"]["done"]  # your decision again (or the game is over)


def test_the_person_may_let_the_failing_agent_play_its_counted_fallback(flaky):
    app, client, agent, chat = flaky
    client.post("/api/act", json={"action": Game().action_id("play R5"), "game": 2})
    assert table(app).stalled is not None and chat.calls == 1
    state = client.post("/api/resume", json={"how": "fallback", "game": 2}).get_json()
    assert state["stalled"] is None and chat.calls == 1 and agent.fallbacks == 1  # played without asking
    assert table(app).session.actions[1] == Game().action_id("play R9")  # the first move of its list (draw: 2nd)
    assert state["actions"] or state["view"]["done"]


def test_resuming_is_refused_in_one_line_unless_an_agent_waits(flaky):
    app, client, agent, chat = flaky
    for body, status, error in [
        ({"how": "retry", "game": 2}, 400, "no agent is waiting to be resumed: the game goes on"),
        ({"how": "again", "game": 2}, 400, 'send {"how": "retry" or "fallback", "game": NUMBER}, got how=\'again\''),
        ({"how": "retry", "game": 1}, 409, "that is for game 1, but the table plays game 2: reload the page"),
        ({"how": "retry"}, 400, 'send JSON {"how": "retry" or "fallback", "game": NUMBER}'),
    ]:
        answer = client.post("/api/resume", json=body)
        assert answer.status_code == status and answer.get_json()["error"].startswith(error)


def test_a_model_that_fails_before_your_first_decision_leaves_a_new_game_waiting(flaky):
    app, client, agent, chat = flaky
    table(app).new_game(deal={**SMALL_DEAL, "dealer": 0})  # the agent's seat decides first
    state = client.get("/api/state").get_json()
    assert state["stalled"]["seat"] == 1 and state["actions"] == [] and table(app).session.actions == []
    chat.down = False
    state = client.post("/api/resume", json={"how": "retry", "game": 3}).get_json()
    assert state["stalled"] is None and state["actions"] and len(table(app).session.actions) == 1


# ---------------------------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def server():
    app = make_app("--seed", "11", "--opponents", "greedy")
    httpd = web.make_server(app, 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def chrome():
    """Headless Chromium driven by Selenium, or, when Chromium or its driver is missing, the message the browser
    tests fail with (they fail: they are not skipped)."""
    missing = missing_browser()
    if missing:
        yield missing
        return
    driver = start_chromium()
    yield driver
    driver.quit()


def error_text(browser) -> str:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, "error").text


def test_a_whole_game_played_by_clicking_in_the_browser(server, chrome):
    browser = need(chrome)
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    body = browser.find_element(By.TAG_NAME, "body")
    wait_for(lambda: int(body.get_attribute("data-rendered")) >= 1, what="the first table")
    assert browser.find_elements(By.CSS_SELECTOR, "#hand .uno-card")  # the hand, drawn as cards
    assert "Your turn" in browser.find_element(By.ID, "prompt").text
    browser.save_screenshot(str(SCREENSHOTS / "uno-web-your-turn.png"))
    check_screenshot(SCREENSHOTS / "uno-web-your-turn.png")
    clicks = 0
    while body.get_attribute("data-done") != "true":
        seen = int(body.get_attribute("data-rendered"))
        button = first_action(browser)  # a card of the hand or a button
        assert button, browser.find_element(By.ID, "error").text or "no legal action offered"
        button.click()
        wait_for(lambda seen=seen: int(body.get_attribute("data-rendered")) > seen or error_text(browser),
                 what="the table after a click")  # fmt: skip
        assert not browser.find_element(By.ID, "error").text
        clicks += 1
        assert clicks < 400
    result = browser.find_element(By.ID, "result").text
    assert "Game over" in result and browser.find_element(By.ID, "game-seed").get_attribute("textContent") == "11"
    assert browser.find_element(By.ID, "save").is_displayed()
    assert browser.find_elements(By.CSS_SELECTOR, ".uno-seat.uno-winner")
    shot = SCREENSHOTS / "uno-web-game-over.png"
    browser.save_screenshot(str(shot))
    check_screenshot(shot)
    blocked = [line["message"] for line in browser.get_log("browser") if "Content Security Policy" in line["message"]]
    assert not blocked, blocked  # the page runs whole under its own policy (its scripts and styles only)
    # the engine's result, as the server tells it
    state = json.loads(urllib.request.urlopen(server + "/api/state").read())
    assert state["view"]["done"] and state["result"] in result
    winner = state["names"][state["view"]["winners"][0]]
    assert ("you win" in result) == (winner.startswith("You")) and clicks >= 1


def test_a_saved_record_is_replayed_from_an_uploaded_file(server, chrome, tmp_path):
    browser = need(chrome)
    from selenium.webdriver.common.by import By

    state = json.loads(urllib.request.urlopen(server + "/api/state").read())
    if not state["view"]["done"]:  # run alone: finish the game through the API, with the page's token
        token = re.search(r'name="uno-token" content="([^"]+)"', urllib.request.urlopen(server + "/").read().decode())
        while not state["view"]["done"]:
            body = {"action": state["actions"][0]["id"], "game": state["game"]["number"]}
            request = urllib.request.Request(server + "/api/act", data=json.dumps(body).encode(), headers={
                "Content-Type": "application/json", "X-Uno-Token": token.group(1)})  # fmt: skip
            state = json.loads(urllib.request.urlopen(request).read())
    path = tmp_path / "game.json"
    path.write_bytes(urllib.request.urlopen(server + "/api/record").read())
    browser.get(server + "/replay")
    browser.find_element(By.ID, "record").send_keys(str(path))
    browser.find_element(By.ID, "open").click()
    counter = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".uno-step"), what="the replay viewer",
                       page=browser)[0]
    back = browser.find_element(By.CSS_SELECTOR, "a.uno-back-link")  # the replay page links back to the table
    assert back.get_attribute("href") == server + "/" and "back to the table" in back.text
    assert counter.text.startswith("decision 0 /")
    following = browser.find_element(By.CSS_SELECTOR, ".uno-controls button[title^='next']")
    for _ in range(3):
        following.click()
    assert counter.text.startswith("decision 3 /")
    assert "Decision 3" in browser.find_element(By.CSS_SELECTOR, ".uno-action").text
    assert len(browser.find_elements(By.CSS_SELECTOR, ".uno-seat-cards .uno-card")) >= 10  # the spectator sees all
    shot = SCREENSHOTS / "uno-web-replay.png"
    browser.save_screenshot(str(shot))
    check_screenshot(shot, min_colours=25)
    back.click()
    wait_for(lambda: browser.current_url == server + "/" and browser.find_elements(By.CSS_SELECTOR, "#hand .uno-card"),
             what="the table again, from the replay's link")  # fmt: skip
    browser.get(server + "/replay")  # a file that is not a record: refused, said on the page
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "uno-env-record", "version": 1}')
    browser.find_element(By.ID, "record").send_keys(str(bad))
    browser.find_element(By.ID, "open").click()
    assert "not a valid record" in wait_for(lambda: browser.find_elements(By.ID, "error"), what="the error")[0].text


def test_the_page_says_why_an_agent_waits_and_offers_to_retry_or_fall_back(flaky, chrome):
    browser = need(chrome)
    from selenium.webdriver.common.by import By

    app, client, agent, chat = flaky
    with served(app) as url:
        browser.get(url + "/")
        body = browser.find_element(By.TAG_NAME, "body")
        wait_for(lambda: int(body.get_attribute("data-rendered")) >= 1, what="the first table")
        browser.find_element(By.CSS_SELECTOR, "#hand .web-playable[data-action='play R5']").click()
        prompt = browser.find_element(By.ID, "prompt")
        wait_for(lambda: "could not decide" in prompt.text, what="the agent's failure", page=browser)
        assert prompt.text == f"Player 1 (llm) could not decide: {DOWN}" and not error_text(browser)
        buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button")
        assert [(b.get_attribute("data-resume"), b.text) for b in buttons] == [
            ("retry", "Ask it again"), ("fallback", "Let it play its fallback move")]  # fmt: skip
        seen = int(body.get_attribute("data-rendered"))
        buttons[1].click()
        wait_for(lambda: int(body.get_attribute("data-rendered")) > seen, what="the table after the fallback")
        assert "Your turn" in prompt.text and agent.fallbacks == 1 and chat.calls == 1 and not error_text(browser)
        assert browser.find_elements(By.CSS_SELECTOR, "#actions button[data-action-id]")
