"""The OpenAI-compatible chat adapter (`uno_env.agents.openai_chat`) against a stub chat server started here (the
standard library's http.server in a thread) and a raw socket server for answers http.server cannot send (both on
127.0.0.1 only): a text agent plays through it, uno-arena seats it as `llm`, and timeouts, trickling servers,
redirects, refusals, busy servers and malformed answers give one-line errors that never hold the key."""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from uno_env import Game
from uno_env.agents import TextAgent
from uno_env.agents.openai_chat import ChatError, OpenAIChat
from uno_env.arena import tournament

KEY = "sk-test-secret-123"


class StubServer:
    """A chat server on localhost: POST /v1/chat/completions answers with `answer(body)`; `script` (a list of
    (status, payload, delay) tuples, or (status, payload, delay, headers)) overrides the next answers. It keeps
    every request's body and headers (a GET's body as {})."""

    def __init__(self):
        self.requests: list[tuple[dict, dict]] = []
        self.script: list[tuple] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # what a followed redirect of a POST becomes
                server.requests.append(({}, dict(self.headers)))
                self.answer(200, server.answer({"messages": [{"content": ""}]}), 0.0, {})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                server.requests.append((body, dict(self.headers)))
                headers: dict = {}
                if self.path != "/v1/chat/completions":
                    status, payload, delay = 404, {"error": {"message": f"no route {self.path}"}}, 0.0
                elif server.script:
                    status, payload, delay, *more = server.script.pop(0)
                    headers = more[0] if more else {}
                else:
                    status, payload, delay = 200, server.answer(body), 0.0
                self.answer(status, payload, delay, headers)

            def answer(self, status, payload, delay, headers):
                time.sleep(delay)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @staticmethod
    def answer(body: dict) -> dict:
        """A completion that picks the first move of the prompt's list (a card, where one is legal), after a
        sentence."""
        text = body["messages"][-1]["content"]
        content = "The first move looks fine.\nMOVE: 1"
        return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant",
                "content": content}, "finish_reason": "stop"}], "usage": {"prompt_tokens": len(text) // 4,
                "completion_tokens": 9, "total_tokens": len(text) // 4 + 9}}  # fmt: skip

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    stub = StubServer()
    yield stub
    stub.close()


def test_a_text_agent_plays_a_game_through_the_chat_api(server):
    chat = OpenAIChat(server.url, "tiny-model", KEY, seed=5)
    agent = TextAgent(chat, keep_transcript=True)
    game = Game("classic", 2, seed=3)
    while not game.done:
        game.step(agent.decide(game))  # the agent plays both seats
    assert agent.fallbacks == 0 and agent.decisions == len(game.actions_taken) == chat.requests
    body, headers = server.requests[0]
    assert body["model"] == "tiny-model" and body["temperature"] == 0.0 and body["seed"] == 5
    assert body["messages"][0]["role"] == "system" and body["messages"][1]["role"] == "user"
    assert body["messages"][1]["content"] == agent.transcript[0]["text"]["prompt"]
    assert headers["Authorization"] == f"Bearer {KEY}" and "max_tokens" not in body
    assert chat.completion_tokens == 9 * chat.requests and chat.prompt_tokens > 0
    assert KEY not in repr(chat)


def test_from_env_reads_the_server_model_and_key(server):
    chat = OpenAIChat.from_env({"UNO_LLM_BASE_URL": server.url + "/", "UNO_LLM_MODEL": "m", "UNO_LLM_TIMEOUT": "5",
                                "UNO_LLM_MAX_TOKENS": "64"})  # fmt: skip
    assert chat.url == server.url + "/chat/completions" and chat.timeout == 5 and chat.name == "llm:m"
    assert chat("1. draw: draw a card") == "The first move looks fine.\nMOVE: 1"
    body, headers = server.requests[-1]
    assert body["max_tokens"] == 64 and "Authorization" not in headers  # no key: a local server
    with pytest.raises(ValueError, match="set UNO_LLM_BASE_URL"):
        OpenAIChat.from_env({})
    with pytest.raises(ValueError, match="set UNO_LLM_MODEL"):
        OpenAIChat.from_env({"UNO_LLM_BASE_URL": server.url})
    with pytest.raises(ValueError, match="UNO_LLM_TIMEOUT must be a number"):
        OpenAIChat.from_env({"UNO_LLM_BASE_URL": server.url, "UNO_LLM_MODEL": "m", "UNO_LLM_TIMEOUT": "soon"})
    with pytest.raises(ValueError, match="must start with http:// or https://"):
        OpenAIChat("file:///etc/passwd", "m")
    for bad in ("http:///v1", "http://host:port/v1", "http://a host/v1"):
        with pytest.raises(ValueError, match="must name a host and hold no spaces"):
            OpenAIChat(bad, "m")
    with pytest.raises(ValueError, match="timeout must be a number of seconds"):
        OpenAIChat(server.url, "m", timeout=0)


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message and KEY not in message
    return message


def test_an_http_error_says_what_the_server_said(server):
    server.script = [(401, {"error": {"message": "Incorrect API key provided"}}, 0.0)]
    with pytest.raises(ChatError) as error:
        OpenAIChat(server.url, "m", KEY, backoff=0)("hello")
    expected = f"the chat server {server.url}/chat/completions answered HTTP 401: Incorrect API key provided"
    assert one_line(error) == expected
    assert len(server.requests) == 1  # a refusal is not asked again


def test_a_busy_server_is_asked_again_then_given_up_on(server):
    server.script = [(503, {"error": "overloaded"}, 0.0)] * 2
    chat = OpenAIChat(server.url, "m", backoff=0, retries=2)
    assert chat("1. draw: x").endswith("MOVE: 1") and len(server.requests) == 3  # the third answer came
    server.script = [(429, {"error": {"message": "slow down"}}, 0.0)] * 3
    with pytest.raises(ChatError) as error:
        chat("1. draw: x")
    assert one_line(error).endswith("answered HTTP 429: slow down (tried 3 times)")


def test_a_timeout_gives_one_line(server):
    server.script = [(200, StubServer.answer({"messages": [{"content": "1. x"}]}), 1.0)]
    with pytest.raises(ChatError) as error:
        OpenAIChat(server.url, "m", timeout=0.2, retries=0)("1. draw: x")
    assert one_line(error) == f"no complete answer from the chat server {server.url}/chat/completions within 0.2 s"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"<html>oops</html>", "something that is not JSON: '<html>oops</html>'"),
        ({"choices": []}, "JSON without choices[0].message.content"),
        ({"choices": [{"message": {"content": 7}}]}, "a message content that is not text (int)"),
    ],
)
def test_an_answer_that_is_no_completion_gives_one_line(server, payload, message):
    server.script = [(200, payload, 0.0)]
    with pytest.raises(ChatError) as error:
        OpenAIChat(server.url, "m", retries=0)("1. draw: x")
    assert one_line(error).endswith(message)


def test_an_empty_completion_is_a_reply_that_names_no_move(server):
    server.script = [(200, {"choices": [{"message": {"content": None}}]}, 0.0)]
    assert OpenAIChat(server.url, "m")("1. draw: x") == ""


def test_an_unreachable_server_gives_one_line():
    with pytest.raises(ChatError) as error:
        OpenAIChat("http://127.0.0.1:9/v1", "m", retries=1, backoff=0, timeout=2)("hello")
    assert re.fullmatch(r"cannot reach the chat server http://127\.0\.0\.1:9/v1/chat/completions: .+ \(tried 2 times\)",
                        one_line(error))  # fmt: skip


def test_uno_arena_seats_llm_by_name(server, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("UNO_LLM_BASE_URL", server.url)
    monkeypatch.setenv("UNO_LLM_MODEL", "tiny-model")
    argv = ["--agents", "llm", "counter", "--games", "4", "--no-progress", "--out", str(tmp_path / "out"),
            "--save-games", str(tmp_path / "games"), "--save-games-count", "1"]  # fmt: skip
    assert tournament.main(argv) == 0
    out = capsys.readouterr().out
    asked = [body["messages"][-1]["content"] for body, _ in server.requests]  # the stub counts len // 4 a prompt
    prompt_tokens = sum(len(text) // 4 for text in asked)
    assert re.search(rf"text agent llm:tiny-model: \d+ decisions, 0 fallbacks \(no legal move named; 0 retries\), "
                     rf"{prompt_tokens:,} prompt and {9 * len(asked):,} completion tokens \(the server's count\)", out)
    assert "lineups: llm:tiny-model counter" in out  # the table names the model
    record = json.loads(next((tmp_path / "games").glob("*.json")).read_text())
    replies = [d["text"]["attempts"][0]["reply"] for d in record["details"] if d is not None]
    assert replies and all(reply.endswith("MOVE: 1") for reply in replies)
    assert server.requests[0][0]["model"] == "tiny-model"
    monkeypatch.setenv("UNO_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(SystemExit) as exit_code:  # a server that cannot be reached: one line, exit 2
        tournament.main(["--agents", "llm", "counter", "--games", "2", "--no-progress", "--out", str(tmp_path / "o")])
    assert exit_code.value.code == 2 and "cannot reach the chat server" in capsys.readouterr().err


# ------------------------------------------------------------------ hostile servers


def completion(content: str = "MOVE: 1") -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()


def http_answer(body: bytes, status: str = "200 OK", headers: str = "") -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{headers}"
            "Connection: close\r\n\r\n").encode() + body  # fmt: skip


class RawServer:
    """A TCP server on 127.0.0.1 that reads each request and sends the bytes `answer(authorization)` gives (the
    request's Authorization header, "" without one), `pace` seconds a byte when `pace` is set: answers that
    http.server cannot send (garbage, cut off, trickled). `connections` counts the requests."""

    def __init__(self, answer, pace: float = 0.0):
        self.answer, self.pace, self.connections = answer, pace, 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn: socket.socket):
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, body = data.split(b"\r\n\r\n", 1)
            fields = dict(line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:])
            while len(body) < int(fields.get("Content-Length", 0)):
                body += conn.recv(65536)
            answer = self.answer(fields.get("Authorization", ""))
            try:
                if not self.pace:
                    conn.sendall(answer)
                for i in range(len(answer) if self.pace else 0):
                    if self.stopped.is_set():
                        return
                    conn.sendall(answer[i : i + 1])
                    time.sleep(self.pace)
            except OSError:  # the client gave up
                pass

    def close(self):
        self.stopped.set()
        self.thread.join()
        self.sock.close()


@pytest.fixture
def raw_server():
    """Call it with answer(authorization) -> bytes (and pace=) to start a RawServer; each is closed after the test."""
    started = []

    def start(answer, pace: float = 0.0) -> RawServer:
        started.append(RawServer(answer, pace))
        return started[-1]

    yield start
    for server in started:
        server.close()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(server, status):
    stranger = StubServer()  # another host: what the Location names
    try:
        location = stranger.url.replace("127.0.0.1", "localhost") + "/chat/completions?token=abc"
        server.script = [(status, b"", 0.0, {"Location": location})]
        with pytest.raises(ChatError) as error:
            OpenAIChat(server.url, "m", KEY, backoff=0)("1. draw: x")
        assert one_line(error) == (
            f"the chat server {server.url}/chat/completions answered HTTP {status}, a redirect to localhost: "
            "redirects are not followed (an OpenAI-compatible API sends none): set UNO_LLM_BASE_URL to the API's "
            "own address"
        )
        assert stranger.requests == [] and len(server.requests) == 1  # not followed, not asked again
    finally:
        stranger.close()


def test_the_timeout_is_a_deadline_for_the_whole_answer(raw_server):
    trickling = raw_server(lambda auth: http_answer(completion("x" * 200)), pace=0.02)  # ~5 s to send it all
    chat = OpenAIChat(trickling.url, "m", timeout=0.5, retries=0)
    start = time.monotonic()
    with pytest.raises(ChatError) as error:
        chat("1. draw: x")
    assert time.monotonic() - start < 1.5
    assert one_line(error) == f"no complete answer from the chat server {trickling.url}/chat/completions within 0.5 s"


def test_a_trickled_status_line_and_headers_are_cut_off_too_and_retries_have_a_bound(raw_server):
    trickling = raw_server(lambda auth: b"HTTP/1.1 200 OK\r\n" + b"X-Slow: yes\r\n" * 500, pace=0.01)
    chat = OpenAIChat(trickling.url, "m", timeout=0.3, retries=2, backoff=0.1)
    start = time.monotonic()
    with pytest.raises(ChatError) as error:
        chat("1. draw: x")
    assert time.monotonic() - start < 0.3 * 3 + 0.1 + 0.2 + 1.0  # the tries, the waits, some slack
    assert one_line(error).endswith("within 0.3 s (tried 3 times)") and trickling.connections == 3


CHUNKED = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"


@pytest.mark.parametrize(
    ("answer", "message", "retried"),
    [
        (b"GARBAGE\r\n\r\n", "answered something that is not HTTP (BadStatusLine: GARBAGE)", False),
        (b"HTTP/1.1 2x0 OK\r\n\r\n", "answered something that is not HTTP (BadStatusLine: HTTP/1.1 2x0 OK)", False),
        (
            b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n",
            "answered something that is not HTTP (LineTooLong: got more than 65536 bytes when reading header line)",
            False,
        ),
        (
            b"HTTP/1.1 200 OK\r\n" + b"X-Many: 1\r\n" * 101 + b"\r\n",
            "answered something that is not HTTP (HTTPException: got more than 100 headers)",
            False,
        ),
        (CHUNKED + b"zz\r\n{}\r\n0\r\n\r\n", "broke off mid-answer (0 bytes read)", True),  # a bad chunk size
        (CHUNKED + b"40\r\n" + completion()[:20], "broke off mid-answer (0 bytes read)", True),  # cut off in a chunk
        (
            http_answer(completion())[:-10],
            f"broke off mid-answer ({len(completion()) - 10} of {len(completion())} bytes read)",
            True,
        ),  # short of its Content-Length
        (b"", "closed the connection without answering", True),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "answered more than 4,194,304 bytes", False),
    ],
    ids=["garbage", "bad-status", "long-header", "many-headers", "bad-chunk", "cut-chunk", "short", "empty", "huge"],
)
def test_a_malformed_http_answer_gives_one_line(raw_server, answer, message, retried):
    hostile = raw_server(lambda auth: answer)
    with pytest.raises(ChatError) as error:
        OpenAIChat(hostile.url, "m", KEY, retries=1, backoff=0, timeout=5)("1. draw: x")
    where = f"the chat server {hostile.url}/chat/completions "
    assert one_line(error) == where + message + (" (tried 2 times)" if retried else "")
    assert hostile.connections == (2 if retried else 1)


def echo(auth: str) -> str:
    """Text that holds the key several ways, as a server echoing the Authorization header would write it."""
    return f"you sent {auth}; key={auth.removeprefix('Bearer ')} {json.dumps(auth)}"


#: answers of a server that echoes the key into every part of them, one for each way a request can fail
ECHOING = {
    "refused": lambda auth: http_answer(json.dumps({"error": {"message": echo(auth)}}).encode(), f"401 {auth}"),
    "busy": lambda auth: http_answer(json.dumps({"error": echo(auth)}).encode(), f"503 {auth}"),
    "redirect": lambda auth: http_answer(b"", "302 Found", f"Location: http://{auth[7:]}.example/?k={auth}\r\n"),
    "not-json": lambda auth: http_answer(echo(auth).encode()),
    "no-content": lambda auth: http_answer(json.dumps({"choices": [], "error": echo(auth)}).encode()),
    "bad-status": lambda auth: f"HTTP/1.1 2x0 {echo(auth)}\r\n\r\n".encode(),
    "garbage": lambda auth: f"{echo(auth)}\r\n\r\n".encode(),
    "cut-off": lambda auth: http_answer(echo(auth).encode() * 3)[:-20],
    "echoed-reply": lambda auth: http_answer(completion(echo(auth) + "\nMOVE: 1")),
}


@pytest.mark.parametrize("case", [*ECHOING, "timeout", "unreachable"])
def test_the_key_is_in_no_error_repr_log_or_reply(raw_server, caplog, capsys, case):
    caplog.set_level(logging.DEBUG)
    if case == "timeout":
        url = raw_server(lambda auth: http_answer(completion(echo(auth))), pace=0.05).url
    elif case == "unreachable":
        url = "http://127.0.0.1:9/v1"
    else:
        url = raw_server(ECHOING[case]).url
    chat = OpenAIChat(url, "m", KEY, retries=1, backoff=0, timeout=0.5)
    seen = [repr(chat)]
    try:
        reply = chat("1. draw: x")
    except ChatError as error:
        assert case != "echoed-reply"
        seen += [str(error), repr(error), "".join(traceback.format_exception(error))]
        context = error.__context__
        while context is not None:
            seen += [str(context), repr(context)]
            context = context.__context__
    else:
        assert case == "echoed-reply" and reply == 'you sent Bearer ***; key=*** "Bearer ***"\nMOVE: 1'
        seen.append(reply)
    captured = capsys.readouterr()
    seen += [captured.out, captured.err, caplog.text]
    leaks = [text for text in seen if KEY in text]
    assert not leaks


def test_a_key_that_is_not_one_printable_word_is_refused_without_saying_it():
    for bad in ("sk-abc\\r\\nX-Evil: 1", "sk-\u00e9t\u00e9", "sk abc"):
        with pytest.raises(ValueError) as error:
            OpenAIChat("http://127.0.0.1:9/v1", "m", bad)
        assert str(error.value) == "the API key must be printable ASCII without spaces"
    with pytest.raises(ValueError, match="backoff must be a number of seconds from 0 to 60"):
        OpenAIChat("http://127.0.0.1:9/v1", "m", backoff=1e9)
