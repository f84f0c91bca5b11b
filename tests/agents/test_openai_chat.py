"""The OpenAI-compatible chat adapter (`uno_env.agents.openai_chat`) against a stub chat server started here (the
standard library's http.server in a thread): a text agent plays through it, uno-arena seats it as `llm`, and
timeouts, refusals, busy servers and malformed answers give one-line errors."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from uno_env import Game
from uno_env.agents import TextAgent
from uno_env.agents.openai_chat import ChatError, OpenAIChat
from uno_env.arena import tournament

KEY = "sk-test-secret-123"


class StubServer:
    """A chat server on localhost: POST /v1/chat/completions answers with `answer(body)`; `script` (a list of
    (status, payload, delay) tuples) overrides the next answers. It keeps every request's body and headers."""

    def __init__(self):
        self.requests: list[tuple[dict, dict]] = []
        self.script: list[tuple[int, object, float]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                server.requests.append((body, dict(self.headers)))
                if self.path != "/v1/chat/completions":
                    status, payload, delay = 404, {"error": {"message": f"no route {self.path}"}}, 0.0
                elif server.script:
                    status, payload, delay = server.script.pop(0)
                else:
                    status, payload, delay = 200, server.answer(body), 0.0
                time.sleep(delay)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
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
    assert one_line(error) == f"no answer from the chat server {server.url}/chat/completions within 0.2 s"


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
    assert re.search(r"text agent llm: \d+ decisions, 0 fallbacks", out)
    record = json.loads(next((tmp_path / "games").glob("*.json")).read_text())
    replies = [d["text"]["attempts"][0]["reply"] for d in record["details"] if d is not None]
    assert replies and all(reply.endswith("MOVE: 1") for reply in replies)
    assert server.requests[0][0]["model"] == "tiny-model"
    monkeypatch.setenv("UNO_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(SystemExit) as exit_code:  # a server that cannot be reached: one line, exit 2
        tournament.main(["--agents", "llm", "counter", "--games", "2", "--no-progress", "--out", str(tmp_path / "o")])
    assert exit_code.value.code == 2 and "cannot reach the chat server" in capsys.readouterr().err
