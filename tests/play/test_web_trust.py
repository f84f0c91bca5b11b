"""uno-web under hostile input (Flask's test client and a real waitress server; no browser): seeds that tell nothing
of the next game, bounded request costs, changes only from the page (token, Origin, the game an action is for),
framing refused, JSON errors on /api/*, one-line command-line errors, and a Hypothesis fuzz of every route that
accepts only the answers docs/robustness.md ("Doors: uno-web") lists."""

import io
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_client import page_client, table  # tests/play/web_client.py

from uno_env import PRESETS, Game
from uno_env.agents.registry import agent_names
from uno_env.play import session, web  # the session makes the agents by name
from uno_env.records import dumps_record
from uno_env.render import table_view

#: the statuses uno-web answers with (docs/robustness.md): never a 5xx
DOCUMENTED_STATUSES = {200, 204, 400, 403, 404, 405, 409, 413}
#: the keys of a table answer (GET /api/state, POST /api/act, POST /api/resume, POST /api/new)
STATE_KEYS = {"view", "actions", "prompt", "colors", "names", "log", "result", "problem", "stalled", "game", "agents",
              "variants", "record", "replay", "since", "frames", "played", "reveal", "forehead", "pace",
              "difficulties", "hand_notes"}  # fmt: skip


def make_app(*argv):
    return web.create_app(web.parse_args(list(argv)))


def finish(client) -> dict:
    """Play the person's first legal action until the game is over; the last answer."""
    state = client.get("/api/state").get_json()
    for _ in range(2000):
        if state["view"]["done"]:
            return state
        answer = client.post("/api/act", json={"action": state["actions"][0]["id"], "game": state["game"]["number"]})
        assert answer.status_code == 200, answer.get_json()
        state = answer.get_json()
    raise AssertionError("the game did not end")


def snapshot(app) -> tuple:
    """Everything a request could change: the game number, the whole game (every hidden card) and the page's view."""
    t = table(app)
    return t.number, t.seed, json.dumps(t.game.describe(), sort_keys=True, default=str), json.dumps(t.state())


# ---------------------------------------------------------------------------------------- seeds
def test_without_seed_every_game_and_its_agents_are_seeded_from_secrets_with_64_bits(monkeypatch):
    draws = []

    def randbits(bits):
        draws.append(bits)
        return real(bits)

    real = web.secrets.randbits
    monkeypatch.setattr(web.secrets, "randbits", randbits)
    agent_seeds = []
    make_agent = session.make_agent
    monkeypatch.setattr(session, "make_agent", lambda name, seed, trust: agent_seeds.append(seed) or
                        make_agent(name, seed=seed, trust=trust))  # fmt: skip
    app = make_app("--players", "3")
    client = page_client(app)
    over = finish(client)
    first = int(over["game"]["seed"])  # sent as a string: exact past JavaScript's 2^53
    assert first == table(app).seed and draws and all(bits >= 64 for bits in draws)
    assert len(draws) == 3  # the deal and the two agents: each its own draw
    assert set(agent_seeds) & {first + 1, first + 2} == set()  # not the deal seed + seat
    nxt = client.post("/api/new").get_json()
    second = table(app).seed
    assert nxt["game"]["number"] == 2 and len(draws) == 6 and second != first + 1
    # the old prediction (seed + 1) no longer tells the person's next hand
    predicted = Game("classic", 3, seed=first + 1)
    assert table(app).game.describe()["hands"] != predicted.describe()["hands"]


def test_a_revealed_seed_does_not_tell_the_next_deal():
    app = make_app()
    client = page_client(app)
    first = int(finish(client)["game"]["seed"])
    client.post("/api/new")
    hand = table(app).game.describe()["hands"][0]
    for guess in (first + 1, first - 1, first ^ 1):
        assert Game("classic", 2, seed=guess).describe()["hands"][0] != hand
    assert first.bit_length() > 31 or table(app).seed.bit_length() > 31  # 64-bit seeds (both short: p = 2**-66)


def test_with_seed_the_session_is_reproducible_and_later_games_follow_by_a_hash_not_plus_one(monkeypatch):
    agent_seeds = []
    make_agent = session.make_agent
    monkeypatch.setattr(session, "make_agent", lambda name, seed, trust: agent_seeds.append(seed) or
                        make_agent(name, seed=seed, trust=trust))  # fmt: skip
    sequences = []
    for _ in range(2):
        app = make_app("--seed", "9")
        client = page_client(app)
        seeds = [table(app).seed]
        for _ in range(2):
            assert client.post("/api/new").status_code == 200
            seeds.append(table(app).seed)
        sequences.append(seeds)
    assert sequences[0] == sequences[1] == [9, web.derived_seed(9, "deal", 2), web.derived_seed(9, "deal", 3)]
    assert agent_seeds[:3] == [web.derived_seed(9, "agent", n, 1) for n in (1, 2, 3)] == agent_seeds[3:]
    assert all(b != a + 1 for a, b in zip(sequences[0], sequences[0][1:], strict=False))


def test_the_largest_seed_keeps_working():
    app = make_app("--seed", str(2**64 - 1))
    client = page_client(app)
    assert table(app).seed == 2**64 - 1
    for number in (2, 3):
        answer = client.post("/api/new")
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["game"]["number"] == number and 0 <= table(app).seed < 2**64


# ---------------------------------------------------------------------------------------- bounded cost
def test_settings_are_capped_before_the_parser_and_refused_fast():
    app = make_app("--seed", "0")
    client = page_client(app)
    before = snapshot(app)
    start = time.perf_counter()
    huge = client.post("/api/new", json={"options": ["stack_draw_two=true"] * 50_000})  # 1 MiB (argparse: minutes)
    assert huge.status_code == 413 and "over 16384 bytes" in huge.get_json()["error"]
    many = client.post("/api/new", json={"options": ["a=1"] * 2000})
    assert many.status_code == 400 and f"at most {web.MAX_OPTIONS}" in many.get_json()["error"]
    long = client.post("/api/new", json={"options": ["stack_draw_two=" + "t" * 5000]})
    assert long.status_code == 400 and "at most 1000 characters" in long.get_json()["error"]
    crowd = client.post("/api/new", json={"opponents": ["greedy"] * 12})
    assert crowd.status_code == 400 and "at most 9" in crowd.get_json()["error"]
    words = client.post("/api/new", json={"options": "a=1 " * 3000})  # a string of words: split, then capped
    assert words.status_code == 400 and f"at most {web.MAX_OPTIONS}" in words.get_json()["error"]
    assert time.perf_counter() - start < 2.0
    assert snapshot(app) == before
    start = time.perf_counter()  # the most the caps let through is parsed at once
    full = client.post("/api/new", json={"options": ["uno_call=explicit"] * web.MAX_OPTIONS})
    assert full.status_code == 200 and time.perf_counter() - start < 2.0


def test_an_upload_over_the_limit_is_refused_with_413_and_a_record_under_it_is_replayed():
    app = make_app("--seed", "2")
    client = page_client(app)
    token = web.page_token(app)
    big = client.post("/replay", data={"token": token, "record": (io.BytesIO(b" " * (web.MAX_UPLOAD + 1)), "r.json")})
    assert big.status_code == 413 and b"over 4 MiB" in big.get_data() and big.mimetype == "text/html"
    larger = (io.BytesIO(b" " * (web.MAX_UPLOAD + 10**6)), "r.json")  # over the whole body's limit too
    whole = client.post("/replay", data={"token": token, "record": larger})
    assert whole.status_code == 413
    finish(client)
    record = client.get("/api/record").get_data()
    shown = client.post("/replay", data={"token": token, "record": (io.BytesIO(record), "game.json")})
    assert shown.status_code == 200 and b"uno-replay" in shown.get_data()
    assert shown.headers["Content-Security-Policy"] == web.REPLAY_POLICY
    assert "frame-ancestors 'none'" in web.REPLAY_POLICY


def test_an_upload_of_more_decisions_than_the_page_replays_is_refused_at_once():
    app = make_app("--seed", "2")
    client = page_client(app)
    token = web.page_token(app)
    for players, most in ((2, web.MAX_REPLAY_VIEWS // 3), (10, web.MAX_REPLAY_VIEWS // 11)):
        record = Game("classic", players, seed=1, max_steps=10**6).to_record()
        record["actions"], record["details"] = [0] * (most + 1), None  # refused before any is replayed
        started = time.perf_counter()
        refused = client.post("/replay", data={"token": token, "record": (io.BytesIO(dumps_record(record).encode()),
                                                                          "long.json")})  # fmt: skip
        assert time.perf_counter() - started < 2 and refused.status_code == 400, refused.get_data()[:300]
        assert f"this record has {most + 1:,} decisions; the page replays at most {most:,} at a table of {players} " \
               "(uno-replay writes the page of any record)" in refused.get_data(as_text=True)


@pytest.fixture
def served():
    """Start `web.make_server(app, 0, **limits)` in a thread; stopped after the test."""
    servers = []

    def start(**limits):
        server = web.make_server(make_app("--seed", "0"), 0, **limits)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return server

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_the_server_is_waitress_with_limits_and_closes_idle_connections(served):
    server = served(channel_timeout=1, cleanup_interval=1)
    assert type(server.adjustments).__module__ == "waitress.adjustments"
    defaults = web.make_server(make_app("--seed", "0"), 0)
    try:
        for name, value in web.SERVER_LIMITS.items():
            assert getattr(defaults.adjustments, name) == value, name
    finally:
        defaults.server_close()
    url = f"http://127.0.0.1:{server.server_port}"
    assert json.loads(urllib.request.urlopen(url + "/api/state", timeout=10).read())["game"]["number"] == 1
    idle = socket.create_connection(("127.0.0.1", server.server_port), timeout=10)
    idle.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a request that never ends
    start = time.monotonic()
    assert idle.recv(1024) == b"" and time.monotonic() - start < 8  # closed by the server
    idle.close()


def test_the_server_holds_at_most_its_connection_limit(served):
    server = served(connection_limit=4, channel_timeout=30)  # waitress counts its listener and trigger: 2 more
    url = f"http://127.0.0.1:{server.server_port}/api/state"
    held = [socket.create_connection(("127.0.0.1", server.server_port), timeout=10) for _ in range(2)]
    time.sleep(0.5)
    with pytest.raises((TimeoutError, urllib.error.URLError)):  # a third waits until one closes
        urllib.request.urlopen(url, timeout=1.5).read()
    for connection in held:
        connection.close()
    assert json.loads(urllib.request.urlopen(url, timeout=10).read())["game"]["number"] == 1


# ---------------------------------------------------------------------------------------- only the page
def test_a_cross_site_or_tokenless_post_changes_nothing():
    app = make_app("--seed", "0")
    client = app.test_client()
    token = web.page_token(app)
    before = snapshot(app)
    cases = [
        ({}, "application/x-www-form-urlencoded", b""),  # an empty cross-site form, no Origin sent
        ({"Origin": "http://evil.example"}, "text/plain", b""),
        ({"Origin": "http://evil.example", "X-Uno-Token": token}, "application/json", b"{}"),
        ({"Origin": "null", "X-Uno-Token": token}, "application/json", b"{}"),
        ({"Sec-Fetch-Site": "cross-site", "X-Uno-Token": token}, "application/json", b"{}"),
        ({"Sec-Fetch-Site": "same-site", "X-Uno-Token": token}, "application/json", b"{}"),  # another port
        ({"X-Uno-Token": token[:-1]}, "application/json", b"{}"),
        ({"X-Uno-Token": ""}, "application/json", b"{}"),
    ]
    for headers, kind, body in cases:
        for path in ("/api/new", "/api/act"):
            answer = client.post(path, headers=headers, data=body, content_type=kind)
            assert answer.status_code == 403 and answer.is_json, (path, headers)
            assert "\n" not in answer.get_json()["error"]
    form = client.post("/replay", data={"record": (io.BytesIO(b"{}"), "r.json")})  # the upload form's token
    assert form.status_code == 403 and b"reload it from the table" in form.get_data()
    assert snapshot(app) == before
    same = client.post("/api/new", headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin",
                                            "X-Uno-Token": token})  # fmt: skip
    assert same.status_code == 200 and same.get_json()["game"]["number"] == 2


def test_the_page_and_the_upload_form_carry_a_fresh_token():
    app, other = make_app("--seed", "0"), make_app("--seed", "0")
    token = web.page_token(app)
    assert len(token) >= 32 and token != web.page_token(other)
    client = app.test_client()
    assert f'<meta name="uno-token" content="{token}">'.encode() in client.get("/").get_data()
    assert f'name="token" value="{token}"'.encode() in client.get("/replay").get_data()


def test_every_answer_forbids_framing():
    app = make_app("--seed", "0")
    client = page_client(app)
    answers = [client.get(path) for path in ("/", "/api/state", "/replay", "/static/play.js", "/uno-static/table.js",
                                             "/favicon.ico", "/nothing", "/api/nothing", "/api/record")]  # fmt: skip
    answers += [client.post("/api/act", json={}), client.post("/api/new")]
    for answer in answers:
        assert answer.headers["X-Frame-Options"] == "DENY", answer.request.path
        assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"], answer.request.path
    assert answers[0].headers["Content-Security-Policy"] == web.PAGE_POLICY


def test_an_action_for_another_game_is_refused_with_409():
    app = make_app("--seed", "0")
    client = page_client(app)
    old = client.get("/api/state").get_json()
    action = old["actions"][0]["id"]
    client.post("/api/new")
    before = snapshot(app)
    stale = client.post("/api/act", json={"action": action, "game": old["game"]["number"]})
    assert stale.status_code == 409 and "for game 1, but the table plays game 2" in stale.get_json()["error"]
    missing = client.post("/api/act", json={"action": action})
    assert missing.status_code == 400 and '"game": NUMBER' in missing.get_json()["error"]
    assert snapshot(app) == before
    legal = table(app).game.legal_action_ids()[0]
    assert client.post("/api/act", json={"action": legal, "game": 2}).status_code == 200


# ---------------------------------------------------------------------------------------- JSON errors
def test_every_api_error_is_one_line_json():
    app = make_app("--seed", "0")
    client = page_client(app)
    deep = b"[" * 1000 + b"]" * 1000
    cases = [
        (client.post("/api/act", data=b'{"action": ', content_type="application/json"), 400),
        (client.post("/api/act", data=deep, content_type="application/json"), 400),
        (client.post("/api/new", data=b'{"players": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                     content_type="application/json"), 400),  # fmt: skip
        (client.post("/api/new", data=b"\xff\xfe\x00{", content_type="application/json"), 400),
        (client.post("/api/act", data=b'{"action": 1' + b"0" * 5000 + b', "game": 1}',
                     content_type="application/json"), 400),  # fmt: skip
        (client.post("/api/act", data=b'{"action": 1, "game": 1}', content_type="text/plain"), 400),
        (client.post("/api/new", json=[1, 2]), 400),
        (client.post("/api/new", json={"players": 10**30}), 400),
        (client.get("/api/act"), 405),
        (client.put("/api/state"), 405),
        (client.get("/api/nothing"), 404),
        (client.get("/api/record"), 400),
        (client.post("/api/new", data=b"x" * (web.MAX_API_BODY + 1), content_type="application/json"), 413),
        (app.test_client().post("/api/new"), 403),
    ]
    for answer, status in cases:
        assert answer.status_code == status and answer.is_json, (answer.status_code, answer.get_data()[:200])
        body = answer.get_json()
        assert set(body) == {"error"} and body["error"] and "\n" not in body["error"], body
    assert "nested too deep" in cases[1][0].get_json()["error"]


def test_a_server_bug_on_the_api_is_a_json_500(monkeypatch):
    app = make_app("--seed", "0")
    monkeypatch.setattr(table(app), "state", lambda: 1 / 0)
    answer = app.test_client().get("/api/state")
    assert answer.status_code == 500 and answer.get_json() == {"error": "the server failed (ZeroDivisionError)"}


# ---------------------------------------------------------------------------------------- the command line
def test_a_port_outside_0_to_65535_is_refused_in_one_line(capsys):
    for port in ("70000", "65536", "-1"):
        with pytest.raises(SystemExit) as stop:
            web.parse_args(["--port", port])
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and "must be an int from 0 to 65535" in err and "\n" not in err
    assert web.parse_args(["--port", "65535"]).port == 65535


def test_a_text_file_as_a_policy_is_one_line_on_the_command_line_and_a_json_400_on_the_page(
    tmp_path, capsys, monkeypatch
):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a policy\n")
    monkeypatch.setattr(web, "make_server", lambda *args, **kwargs: pytest.fail("served a table it should refuse"))
    for name in (f"ppo:{notes}", "ppo:/etc/passwd"):
        with pytest.raises(SystemExit) as stop:
            web.main(["--opponents", name, "--port", "0"])
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and err.startswith("uno-web: error:") and "\n" not in err, err
    # a file named on the command line that fails between games: the page gets a JSON 400, the table stays
    app = make_app("--seed", "0")
    client = page_client(app)
    before = snapshot(app)

    def broken(name, seed, trust):
        raise OSError(f"cannot read {name}")

    monkeypatch.setattr(session, "make_agent", broken)
    answer = client.post("/api/new")
    assert answer.status_code == 400 and answer.get_json() == {"error": "cannot read greedy"}
    assert snapshot(app) == before
    page = client.post("/api/new", json={"opponents": ["ppo:/etc/passwd"]})  # the page names no file
    assert page.status_code == 400 and "unknown agent 'ppo:/etc/passwd'" in page.get_json()["error"]


# ---------------------------------------------------------------------------------------- the fuzz
METHODS = ["GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
PATHS = ["/", "/api/state", "/api/act", "/api/act", "/api/new", "/api/resume", "/api/record", "/api/nothing",
         "/api/act/", "/replay", "/favicon.ico", "/static/play.js", "/uno-static/table.js", "/uno-static/..%2Fgame.py",
         "/static/../web.py"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
SETTINGS = st.fixed_dictionaries({}, optional={
    "variant": st.sampled_from(list(PRESETS)) | st.text(max_size=8),
    "players": st.integers(1, 11) | JSON,
    "seat": st.integers(-1, 10) | JSON,
    "episode": st.sampled_from(["round", "match", "x"]),
    "options": st.lists(st.sampled_from(["uno_call=explicit", "stack_draw_two=true", "hand_size=3", "foo=1",
                                         "target_score=-5"]), max_size=4) | JSON,
    "opponents": st.lists(st.sampled_from([*agent_names(), "ppo:/etc/passwd", "-h", "--trust", "ismcts:5000",
                                           "sb3:model.zip", "ismcts:2"]), max_size=3) | JSON,  # fmt: skip
    "difficulty": st.sampled_from(["easy", "medium", "hard", "nightmare"]) | JSON,
})  # fmt: skip
BODIES = st.one_of(
    st.just(b""),
    st.sampled_from(["legal", "legal", "legal", "stale"]),  # a legal action of the game on the table, or the last
    st.fixed_dictionaries({"action": st.integers(-2, 80) | JSON, "game": st.integers(0, 4) | JSON}).map(json.dumps),
    SETTINGS.map(json.dumps),
    JSON.map(json.dumps),
    st.binary(max_size=64),
    st.integers(1, 6000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(1, 6000).map(lambda depth: '{"a":' * depth + "1" + "}" * depth),
    st.integers(1, 40_000).map(lambda size: json.dumps({"options": ["a" * size]})),
    st.integers(4300, 6000).map(lambda digits: '{"action": ' + "7" * digits + ', "game": 1}'),
)
HEADERS = st.fixed_dictionaries({
    "token": st.sampled_from(["right", "right", "right", "wrong", "missing"]),
    "origin": st.sampled_from([None, None, "same", "http://evil.example", "null", "http://localhost:1"]),
    "site": st.sampled_from([None, None, "same-origin", "none", "cross-site", "same-site"]),
    "type": st.sampled_from(["application/json", "application/json", None, "text/plain", "multipart/form-data",
                             "application/x-www-form-urlencoded", "application/json; charset=utf-16"]),
    "host": st.sampled_from(["localhost", "localhost", "localhost", "127.0.0.1:8765", "evil.example", "[::1]:1"]),
    "form": st.booleans(),  # /replay: the body as an uploaded file, with the token field
})  # fmt: skip
PAGE_HEADERS = st.fixed_dictionaries({
    "token": st.just("right"), "origin": st.sampled_from([None, "same"]),
    "site": st.sampled_from([None, "same-origin"]), "type": st.just("application/json"),
    "host": st.sampled_from(["localhost", "127.0.0.1:8765"]), "form": st.just(True),
})  # fmt: skip
#: what the page sends (mostly legal actions, so that games go on; "finish": legal actions to the end), and
#: anything else
PAGE_REQUESTS = st.one_of(
    st.tuples(st.just("POST"), st.just("/api/act"), st.sampled_from(["legal", "legal", "stale", "finish"]),
              PAGE_HEADERS),  # fmt: skip
    st.tuples(st.just("POST"), st.sampled_from(["/api/act", "/api/new"]), BODIES, PAGE_HEADERS),
    st.tuples(st.just("POST"), st.just("/api/new"), st.just(b"") | SETTINGS.map(json.dumps), PAGE_HEADERS),
    st.tuples(st.just("GET"), st.sampled_from(["/api/state", "/api/record", "/"]), st.just(b""), PAGE_HEADERS),
    st.tuples(st.just("POST"), st.just("/replay"), BODIES, PAGE_HEADERS),
)
REQUESTS = PAGE_REQUESTS | PAGE_REQUESTS | st.tuples(st.sampled_from(METHODS), st.sampled_from(PATHS), BODIES, HEADERS)

FUZZED = {}


def fuzzed_app():
    if "app" not in FUZZED:
        FUZZED["app"] = make_app("--variant", "unocorns", "--players", "3", "--seed", "5", "--opponents", "greedy")
        FUZZED["last"] = None
    return FUZZED["app"]


def send(app, method, path, body, headers):
    """Send one fuzzed request; the answer."""
    t = table(app)
    if body in ("legal", "stale"):
        if body == "stale" and FUZZED["last"] is not None:
            body = FUZZED["last"]
        else:
            legal = t.game.legal_action_ids() if t.game.seat == t.human and not t.game.done else [0]
            body = {"action": legal[len(legal) // 2], "game": t.number}
            FUZZED["last"] = body
        body = json.dumps(body)
    sent = {"Host": headers["host"]}
    if headers["token"] != "missing":
        sent[web.TOKEN_HEADER] = web.page_token(app) if headers["token"] == "right" else "x" + web.page_token(app)
    if headers["origin"]:
        sent["Origin"] = "http://" + headers["host"] if headers["origin"] == "same" else headers["origin"]
    if headers["site"]:
        sent["Sec-Fetch-Site"] = headers["site"]
    data = body.encode() if isinstance(body, str) else body
    if path == "/replay" and headers["form"]:
        token = web.page_token(app) if headers["token"] == "right" else "wrong"
        return app.test_client().open(path, method=method, headers=sent,
                                      data={"token": token, "record": (io.BytesIO(data), "r.json")})  # fmt: skip
    return app.test_client().open(path, method=method, headers=sent, data=data, content_type=headers["type"])


def check_answer(app, method, path, answer, before):
    """Only documented answers: a documented status, JSON one-line errors on /api/*, refusals change nothing, and a
    table answer is exactly the seat's table_view with its legal actions."""
    status = answer.status_code
    assert status in DOCUMENTED_STATUSES, (method, path, status, answer.get_data()[:300])
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
    t = table(app)
    if status >= 400 or method in ("GET", "HEAD", "OPTIONS"):
        assert snapshot(app) == before, (method, path, status)
    if method == "HEAD" or not path.startswith("/api/"):
        return
    if status >= 400:
        assert answer.is_json, (method, path, status, answer.get_data()[:300])
        error = answer.get_json()
        assert set(error) == {"error"} and isinstance(error["error"], str) and "\n" not in error["error"]
        return
    if method == "OPTIONS":  # Flask's own answer: the allowed methods, no body
        assert answer.get_data() == b"" and "Allow" in answer.headers
        return
    if path == "/api/record":
        assert t.game.done and json.loads(answer.get_data())["seed"] == t.seed
        return
    state = answer.get_json()
    assert set(state) == STATE_KEYS
    assert state["view"] == json.loads(json.dumps(table_view(t.game, t.human)))  # nothing a seat cannot see
    for frame in state["frames"]:  # the seat's views of the moments since its last decision
        hidden = [seat["hand"] is None for seat in frame["view"]["seats"]]
        assert hidden == [seat != t.human for seat in range(t.game.num_players)]
        assert all(code is None for code in frame["view"]["seats"][t.human]["foreheads"])
    ended = any(entry["kind"] == "round_end" for entry in state["since"])
    assert (state["reveal"] is not None) == ended  # the hands turn face up only when a round ends
    deciding = t.game.seat == t.human and not t.game.done and t.problem is None
    assert [a["id"] for a in state["actions"]] == (t.game.legal_action_ids() if deciding else [])
    assert state["game"]["seed"] == (str(t.seed) if t.game.done else None)


@settings(max_examples=100, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(st.lists(REQUESTS, min_size=1, max_size=10))
def test_fuzz_every_route_gives_only_documented_answers(requests):
    app = fuzzed_app()
    for method, path, body, headers in requests:
        for _ in range(2000 if body == "finish" else 1):  # "finish": legal actions until the game is over
            before = snapshot(app)
            answer = send(app, method, path, "legal" if body == "finish" else body, headers)
            check_answer(app, method, path, answer, before)
            if table(app).game.done or table(app).problem:
                break
