"""uno-web on a phone's screen (390 x 844) and a desktop's (1400 x 900), and one table for play and replay: a whole
4-player game played by clicking keeps every seat, the pile and the colour inside the viewport and ends with the
seed of its record, exact to the last digit (sent as a string); a card is played by clicking it, a colour chosen on
its swatch, and a card that cannot be played says why; the replay page and `uno-replay`'s page draw the same table
component as the live page, with the same names and words. Headless Chromium (Debian's, driven by Selenium)."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest
from web_client import check_screenshot, missing_browser, need, page_client, served, start_chromium, table, wait_for

from uno_env.play import replay_cli, web

#: above 2^53: a JavaScript number would show it as 17085830012646773000
BIG_SEED = "17085830012646772843"
GAME = ["--players", "4", "--opponents", "naive", "greedy", "counter", "--seed", BIG_SEED, "--pace", "0"]
SIZES = {"phone": (390, 844), "desktop": (1400, 900)}
MAX_CLICKS = 300
#: you (seat 0) decide first on R1, holding a Wild, a red card you may play and a blue one you may not
WILD_DEAL = {"dealer": 1, "top": "R1", "hands": [["W", "R7", "B2", "G5"], ["G1", "G2", "R9", "Y4"]]}

#: the parts of the table that must be on screen: every seat, the draw pile, the top card, the colour
OUT_OF_VIEW = """window.scrollTo(0, 0);
var out = [];
document.querySelectorAll("#table .uno-seat, #table .uno-draw-pile, #table .uno-top, #table .uno-colour")
  .forEach(function (node) {
    var r = node.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) {
      out.push(node.className + " " + (node.getAttribute("data-seat") || "") + " " + JSON.stringify(r));
    }
  });
if (document.documentElement.scrollWidth > innerWidth) out.push("the page scrolls sideways");
return out;"""

#: the element of the lowest legal action id on the page: a card in the hand or a button
FIRST_ACTION = """var nodes = document.querySelectorAll("#hand [data-action-id], #actions [data-action-id]");
var best = null;
nodes.forEach(function (node) {
  if (!best || Number(node.getAttribute("data-action-id")) < Number(best.getAttribute("data-action-id"))) best = node;
});
return best;"""


@pytest.fixture(scope="module", params=list(SIZES))
def sized(request):
    """(size name, headless Chromium at that size), or the message the browser tests fail with."""
    missing = missing_browser()
    if missing:
        yield request.param, missing
        return
    driver = start_chromium(*SIZES[request.param])
    yield request.param, driver
    driver.quit()


def rendered(browser) -> int:
    return int(browser.find_element("tag name", "body").get_attribute("data-rendered"))


def click_and_wait(browser, element) -> None:
    seen = rendered(browser)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
    wait_for(lambda: rendered(browser) > seen or browser.find_element("id", "error").text, what="the answer",
             page=browser)  # fmt: skip
    assert not browser.find_element("id", "error").text


def test_a_whole_game_keeps_the_table_in_view_and_ends_with_the_records_exact_seed(sized, tmp_path):
    size, browser = sized
    browser = need(browser)
    app = web.create_app(web.parse_args(GAME))
    with served(app) as url:
        browser.get(url + "/")
        wait_for(lambda: rendered(browser) >= 1, what="the first table", page=browser)
        assert browser.execute_script("return innerWidth") == SIZES[size][0]
        seats = browser.find_elements("css selector", "#table .uno-seat")
        assert [node.find_element("css selector", ".uno-seat-name").text for node in seats] == [
            "You (player 0)", "Player 1 (naive)", "Player 2 (greedy)", "Player 3 (counter)"]  # fmt: skip
        clicks = 0
        while browser.find_element("tag name", "body").get_attribute("data-done") != "true":
            assert browser.execute_script(OUT_OF_VIEW) == [], (size, clicks)
            if clicks == 2:
                browser.save_screenshot(str(tmp_path / f"{size}-playing.png"))
            click_and_wait(browser, browser.execute_script(FIRST_ACTION))
            clicks += 1
            assert clicks < MAX_CLICKS
        assert browser.execute_script(OUT_OF_VIEW) == []
        shot = tmp_path / f"{size}-over.png"
        browser.save_screenshot(str(shot))
        check_screenshot(shot, min_size=SIZES[size][:1] + (600,))
        record = json.loads(urllib.request.urlopen(url + "/api/record").read())
        seed = browser.find_element("id", "game-seed")
        assert seed.get_attribute("data-seed") == BIG_SEED == str(record["seed"])
        assert seed.get_attribute("textContent") == BIG_SEED
        assert BIG_SEED not in browser.find_element("id", "title").text  # in the details, not the headline
        result = browser.find_element("id", "result").text
        assert result.startswith("Game over") and "seed" not in result
        facts = [node.text for node in browser.find_elements("css selector", "#table .uno-seat-facts")]
        assert all(fact.endswith("points") or fact.endswith("1 point") for fact in facts), facts
        assert not browser.find_elements("css selector", "#table .web-points")  # no second meaning of points
        assert len(browser.find_elements("css selector", "#table .uno-hand-worth")) == 4


def test_cards_are_played_from_the_hand_colours_chosen_on_swatches_and_refusals_said(sized):
    size, browser = sized
    browser = need(browser)
    app = web.create_app(web.parse_args(["--seed", "0", "--pace", "0", "--opponents", "naive"]))
    table(app).new_game(deal=WILD_DEAL)
    with served(app) as url:
        browser.get(url + "/")
        wait_for(lambda: rendered(browser) >= 1, what="the first table", page=browser)
        buttons = browser.find_elements("css selector", "#actions button")
        buttons = [node.get_attribute("data-action") for node in buttons]
        assert buttons == ["draw"]  # each playable card once: in the hand, not again as a button
        playable = browser.find_elements("css selector", "#hand .web-playable")
        assert sorted(node.get_attribute("data-code") for node in playable) == ["R7", "W"]
        note = browser.find_element("id", "hand-note")
        assert not note.is_displayed()
        blue = browser.find_element("css selector", "#hand .web-hand-card[data-code='B2']")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", blue)
        blue.click()
        assert note.is_displayed() and note.text == "B2 matches neither the colour (red) nor the top card (R1)."
        assert table(app).session.actions == []  # nothing sent
        click_and_wait(browser, browser.find_element("css selector", "#hand .web-playable[data-code='W']"))
        swatches = browser.find_elements("css selector", "#actions .web-swatch")
        assert [node.get_attribute("data-action") for node in swatches] == [
            "color red", "color blue", "color green", "color yellow"]  # fmt: skip
        assert [node.text for node in swatches] == ["Red", "Blue", "Green", "Yellow"]
        colour = browser.find_element("css selector", "#table .uno-colour")
        assert colour.get_attribute("data-colour") == "" and "being chosen" in colour.text  # not the old red
        assert browser.execute_script(OUT_OF_VIEW) == []
        click_and_wait(browser, swatches[3])
        assert browser.find_element("css selector", "#table .uno-colour").get_attribute("data-colour") in (
            "yellow", table(app).session.view()["color"])


# ---------------------------------------------------------------------------------------- one table for replays
#: the table component's own parts, as the live page and both replay pages draw them
COMPONENT = """var node = document.querySelector(".uno-table");
return {
  parts: Array.prototype.map.call(node.children, function (child) { return child.classList[0]; }),
  names: Array.prototype.map.call(node.querySelectorAll(".uno-seat-name"), function (n) { return n.textContent; }),
  direction: node.querySelector(".uno-direction").textContent,
  font: getComputedStyle(node.querySelector(".uno-seat")).fontFamily,
  felt: getComputedStyle(node.querySelector(".uno-felt")).borderRadius,
};"""


def test_the_replay_page_and_uno_replay_draw_the_live_tables_component(tmp_path):
    missing = missing_browser()
    if missing:
        pytest.fail(missing)
    app = web.create_app(web.parse_args(GAME))
    client = page_client(app)
    state = client.get("/api/state").get_json()
    while not state["view"]["done"]:
        state = client.post("/api/act", json={"action": state["actions"][0]["id"], "game": 1}).get_json()
    record = client.get("/api/record").get_data()
    uploaded = client.post("/replay", data={"record": (io.BytesIO(record), "game.json"), "token": web.page_token(app)})
    assert uploaded.status_code == 200
    (tmp_path / "uploaded.html").write_bytes(uploaded.get_data())
    (tmp_path / "game.json").write_bytes(record)
    assert replay_cli.main([str(tmp_path / "game.json"), "--out", str(tmp_path / "written.html")]) == 0
    browser = start_chromium(1400, 900)
    try:
        with served(app) as url:
            browser.get(url + "/")
            wait_for(lambda: rendered(browser) >= 1, what="the live table", page=browser)
            live = browser.execute_script(COMPONENT)
        assert live["parts"] == ["uno-felt", "uno-seat", "uno-seat", "uno-seat", "uno-seat", "uno-middle"]
        for page in ("uploaded.html", "written.html"):
            browser.get((tmp_path / page).as_uri())
            wait_for(lambda: browser.find_elements("css selector", ".uno-table"), what=page, page=browser)
            replayed = browser.execute_script(COMPONENT)
            assert {key: replayed[key] for key in ("parts", "font", "felt")} == {
                key: live[key] for key in ("parts", "font", "felt")}, page  # fmt: skip
            assert replayed["names"] == ["Player 0 (you)", "Player 1 (naive)", "Player 2 (greedy)",
                                         "Player 3 (counter)"]  # fmt: skip
            assert replayed["direction"] in ("\u21bb to the left", "\u21ba to the right")
            browser.find_element("css selector", ".uno-controls button[title^='next']").click()
            said = browser.find_element("css selector", ".uno-action").text
            assert said.startswith("Decision 1: Player ") and "player_" not in said, said
            moves = [node.text for node in browser.find_elements("css selector", ".uno-moves li")]
            assert moves[0] == "the deal" and all(move.startswith("Player ") for move in moves[1:]), moves[:5]
    finally:
        browser.quit()
