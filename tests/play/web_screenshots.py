"""Remake the screenshots of uno-web on docs/web.md: a unocorns table in the middle of a game, on a desktop's screen
and on a phone's, and the same table at the end of the round, every hand face up with what its cards are worth.
Headless Chromium plays the person's seat by clicking the first action offered, as tests/play/test_web_table.py does.

    python tests/play/web_screenshots.py            # writes docs/web-table.png, web-phone.png, web-round-end.png
    python tests/play/web_screenshots.py /tmp/shots

The game is seeded (`SETTINGS`), so the pictures are the same each time; each file is written whole or not at all.
"""

from __future__ import annotations

import sys
from pathlib import Path

from web_client import first_action, missing_browser, served, start_chromium, wait_for  # tests/play/web_client.py

from uno_env.play import web
from uno_env.records import write_atomic

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: the game shown: unocorns, you against counter, greedy and naive; by seed 10 you guess your forehead card wrong
#: on your sixth decision, and the round ends on your 22nd
SETTINGS = ["--variant", "unocorns", "--players", "4", "--opponents", "counter", "greedy", "naive", "--seed", "10",
            "--pace", "0"]  # fmt: skip
WINDOW = (1400, 1000)
PHONE = (390, 844)
MAX_CLICKS = 200


def make_screenshots(out: Path = DOCS, browser=None) -> dict[str, Path]:
    """Play the game of `SETTINGS` in `browser` (default: a new headless Chromium) and save its screenshots in
    `out`: ``table`` (your turn, once you know a colour your forehead card is not), ``phone`` (the same moment on
    a phone's screen, in a second headless Chromium) and ``round_end``."""
    from selenium.webdriver.common.by import By

    out = Path(out)
    own = browser is None
    if own:
        missing = missing_browser()
        if missing:
            raise RuntimeError(missing)
        browser = start_chromium(*WINDOW)
    app = web.create_app(web.parse_args(SETTINGS))
    shots = {"table": out / "web-table.png", "phone": out / "web-phone.png", "round_end": out / "web-round-end.png"}
    try:
        with served(app) as url:
            browser.get(url + "/")
            body = browser.find_element(By.TAG_NAME, "body")

            def rendered() -> int:
                return int(body.get_attribute("data-rendered"))

            def click_first_action() -> None:
                seen = rendered()
                first_action(browser).click()
                wait_for(lambda: rendered() > seen, what="the table after a click", page=browser)

            wait_for(lambda: rendered() >= 1, what="the first table", page=browser)
            for _ in range(MAX_CLICKS):
                if browser.find_elements(By.CSS_SELECTOR, ".web-known[data-wrong]") and first_action(browser):
                    break
                click_first_action()
            else:
                raise AssertionError("the person never learned a colour its forehead card is not")
            browser.execute_script("window.scrollTo(0, 0)")
            write_atomic(shots["table"], browser.get_screenshot_as_png())
            phone = start_chromium(*PHONE)
            try:  # the same table, as the page shows it on a phone
                phone.get(url + "/")
                wait_for(lambda: int(phone.find_element(By.TAG_NAME, "body").get_attribute("data-rendered")) >= 1,
                         what="the table on a phone", page=phone)  # fmt: skip
                write_atomic(shots["phone"], phone.get_screenshot_as_png())
            finally:
                phone.quit()
            for _ in range(MAX_CLICKS):
                if body.get_attribute("data-done") == "true":
                    break
                click_first_action()
            else:
                raise AssertionError(f"the round did not end in {MAX_CLICKS} clicks")
            browser.execute_script("window.scrollTo(0, 0)")
            write_atomic(shots["round_end"], browser.get_screenshot_as_png())
    finally:
        if own:
            browser.quit()
    return shots


if __name__ == "__main__":
    for name, path in make_screenshots(Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS).items():
        print(f"{name}: {path}")
