"""What the uno-web tests share: the table behind an app, a client that sends the page's token, a served app, headless
Chromium (Debian's chromium and chromium-driver, driven by Selenium; never downloaded), and checks of screenshots.
tests/play/web_screenshots.py uses the same helpers to remake the screenshots of docs/web.md."""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from uno_env.play import web

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # Debian's packages chromium, chromium-driver
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"  # given: Selenium never downloads one


def table(app) -> web.WebTable:
    return app.extensions["uno_table"]


def page_client(app):
    """A test client that sends the page's token with every request, as the page does."""
    client = app.test_client()
    client.environ_base["HTTP_X_UNO_TOKEN"] = web.page_token(app)
    return client


@contextlib.contextmanager
def served(app):
    """`app` served by uno-web's waitress server on a free port of 127.0.0.1, in a thread: its base URL."""
    httpd = web.make_server(app, 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def missing_browser() -> str | None:
    """Why headless Chromium cannot run here (None: it can)."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).is_file()]
    if missing:
        return (
            f"the browser tests need Chromium and chromedriver ({', '.join(missing)} missing): run scripts/setup.sh "
            "(as root: it installs the Debian packages chromium and chromium-driver)"
        )
    return None


def need(chrome):
    """The browser, or the test fails (in its body: a failure, not a setup error) saying how to install it."""
    if isinstance(chrome, str):
        pytest.fail(chrome)
    return chrome


MIN_WINDOW_WIDTH = 500  # Chromium's narrowest window: a narrower screen is emulated


def start_chromium(width: int = 1200, height: int = 900):
    """Headless Chromium driven by Selenium, its console logged (CSP violations show there)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
                 "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1"):  # fmt: skip
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    if width < MIN_WINDOW_WIDTH:  # a phone: the page's viewport set as a phone's (a window is never this narrow)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})  # fmt: skip
    return driver


def wait_for(condition, timeout=10.0, what="the page", page=None, every=0.02):
    """The first true value of `condition()` within `timeout` seconds, else an AssertionError saying `what`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(every)
    shown = f"; the page shows: {page.find_element('tag name', 'body').text[:300]!r}" if page is not None else ""
    raise AssertionError(f"timed out waiting for {what}{shown}")


def check_screenshot(path: Path, min_colours: int = 40, min_size=(1000, 600)) -> Image.Image:
    """The screenshot at `path`, checked to be a real picture: at least `min_size`, many colours, not uniform."""
    image = Image.open(path).convert("RGB")
    assert image.width >= min_size[0] and image.height >= min_size[1], image.size
    pixels = np.asarray(image)
    colours = np.unique((pixels // 16).reshape(-1, 3), axis=0)
    assert len(colours) >= min_colours, f"{path}: only {len(colours)} distinct colours: blank?"
    assert pixels.std() > 20, f"{path}: nearly uniform"
    return image


def element_box(element) -> tuple[int, int, int, int]:
    """An element's box on the page's screenshot: (left, top, right, bottom) in pixels (a scale factor of 1)."""
    rect = element.rect
    return (round(rect["x"]), round(rect["y"]), round(rect["x"] + rect["width"]), round(rect["y"] + rect["height"]))


def share_of_colour(image: Image.Image, box, rgb, tolerance: int = 40) -> float:
    """The share of the pixels in `box` of `image` within `tolerance` of the colour `rgb` (each channel)."""
    pixels = np.asarray(image.crop(box).convert("RGB")).astype(int)
    close = (np.abs(pixels - np.array(rgb)) <= tolerance).all(axis=-1)
    return float(close.mean())


#: the page's element of the lowest legal action id: a card in the hand or a button (the order the engine lists them)
_FIRST_ACTION = """var best = null;
document.querySelectorAll("#hand [data-action-id], #actions [data-action-id]").forEach(function (node) {
  if (!best || Number(node.getAttribute("data-action-id")) < Number(best.getAttribute("data-action-id"))) best = node;
});
if (best) best.scrollIntoView({block: "center"});
return best;"""


def first_action(browser):
    """The page's first legal action (`state["actions"][0]`): a playable card of the hand or a button; None when
    the page offers none."""
    return browser.execute_script(_FIRST_ACTION)
