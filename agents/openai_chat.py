"""A language model behind an OpenAI-compatible chat API, as a callable prompt -> reply for `TextAgent`.

vLLM, llama.cpp's server, Ollama, LM Studio and the hosted APIs all serve ``POST {base_url}/chat/completions``.
``OpenAIChat.from_env()`` reads the server from the environment:

| variable             | meaning                                                                  |
|----------------------|--------------------------------------------------------------------------|
| `UNO_LLM_BASE_URL`   | the API's base URL, e.g. `http://localhost:8000/v1` (required)           |
| `UNO_LLM_MODEL`      | the model's name on that server (required unless given)                  |
| `UNO_LLM_API_KEY`    | the key, sent as `Authorization: Bearer ...` (optional: local servers)   |
| `UNO_LLM_TIMEOUT`    | seconds to wait for one answer (default 60)                              |
| `UNO_LLM_MAX_TOKENS` | the most tokens of one reply (default: the server's)                     |

``TextAgent(OpenAIChat.from_env())`` seats it; `uno-arena --agents llm counter` (or ``llm:MODEL``) does the same
by name. Each prompt is one user message after a short system message; temperature 0 by default, and the
agent's seed is sent (servers that honour `seed` answer reproducibly). It speaks plain HTTP(S) through the
standard library (`urllib`): no other dependency. A timeout, a refused connection or an HTTP error is retried
`retries` times (2) after `backoff` seconds (doubling), then raises `ChatError` with one line that says what
happened (never the key). Usage is counted from the server's answers: `prompt_tokens`, `completion_tokens`.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

__all__ = ["ChatError", "OpenAIChat", "SYSTEM_MESSAGE"]

SYSTEM_MESSAGE = "You are playing a game of UNO. Read the table and pick one legal move."
#: the most bytes of one answer read from the server
MAX_ANSWER_BYTES = 4 * 1024 * 1024
RETRIED_STATUSES = (408, 409, 429, 500, 502, 503, 504)


class ChatError(OSError):
    """The chat server could not be reached, did not answer in time, refused the request or answered something
    that is not a chat completion; the message is one line."""


class OpenAIChat:
    """A callable prompt -> reply that asks an OpenAI-compatible chat server (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        seed: int | None = None,
        system: str | None = SYSTEM_MESSAGE,
        retries: int = 2,
        backoff: float = 0.5,
    ):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"the chat API's base URL must start with http:// or https://, got {base_url!r}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError("name the model (UNO_LLM_MODEL, or llm:MODEL)")
        if not (isinstance(timeout, (int, float)) and 0 < timeout <= 3600):
            raise ValueError(f"timeout must be a number of seconds from 0 to 3600, got {timeout!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or
                                       max_tokens < 1):  # fmt: skip
            raise ValueError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise ValueError(f"retries must be an int from 0 to 10, got {retries!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model.strip()
        self.name = f"llm:{self.model}"
        self._key = api_key or None
        self.timeout = float(timeout)
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.seed = seed
        self.system = system
        self.retries = retries
        self.backoff = float(backoff)
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def __repr__(self) -> str:  # never the key
        return f"OpenAIChat({self.url!r}, model={self.model!r})"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **settings: Any) -> OpenAIChat:
        """The chat model the environment names (`UNO_LLM_*`, see the module docstring); `settings` override it
        (e.g. ``model=``, ``seed=``). A ValueError says which variable is missing or malformed."""
        env = os.environ if environ is None else environ
        base_url = settings.pop("base_url", None) or env.get("UNO_LLM_BASE_URL")
        if not base_url:
            raise ValueError("set UNO_LLM_BASE_URL to the chat API's base URL (e.g. http://localhost:8000/v1) and "
                             "UNO_LLM_MODEL to the model's name")  # fmt: skip
        model = settings.pop("model", None) or env.get("UNO_LLM_MODEL")
        if not model:
            raise ValueError("set UNO_LLM_MODEL to the model's name on the chat server (or name it: llm:MODEL)")
        api_key = settings.pop("api_key", None) or env.get("UNO_LLM_API_KEY")
        for key, variable, kind in (("timeout", "UNO_LLM_TIMEOUT", float), ("max_tokens", "UNO_LLM_MAX_TOKENS", int)):
            if key not in settings and env.get(variable):
                try:
                    settings[key] = kind(env[variable])
                except ValueError:
                    raise ValueError(f"{variable} must be a number, got {env[variable][:40]!r}") from None
        return cls(base_url, model, api_key, **settings)

    def request_body(self, prompt: str) -> dict[str, Any]:
        """The JSON body of one chat completion request for `prompt`."""
        messages = [{"role": "system", "content": self.system}] if self.system else []
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [*messages, {"role": "user", "content": prompt}],
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.seed is not None:
            body["seed"] = int(self.seed) % 2**31
        return body

    def __call__(self, prompt: str) -> str:
        """The model's reply to `prompt` (the first choice's message content); `ChatError` if there is none."""
        if not isinstance(prompt, str):
            raise TypeError(f"a prompt is a str, got {type(prompt).__name__}")
        data = json.dumps(self.request_body(prompt)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        wait = self.backoff
        for attempt in range(self.retries + 1):
            try:
                return self._ask(urllib.request.Request(self.url, data=data, headers=headers, method="POST"))
            except _Transient as error:
                if attempt == self.retries:
                    tries = f" (tried {attempt + 1} times)" if attempt else ""
                    raise ChatError(f"{error}{tries}") from None
                time.sleep(wait)
                wait *= 2
        raise AssertionError("unreachable")

    def _ask(self, request: urllib.request.Request) -> str:
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 (http(s) only)
                raw = response.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as error:
            message = _server_message(error)
            line = f"the chat server {self.url} answered HTTP {error.code}" + (f": {message}" if message else "")
            if error.code in RETRIED_STATUSES:
                raise _Transient(line) from None
            raise ChatError(line) from None
        except TimeoutError:
            raise _Transient(f"no answer from the chat server {self.url} within {self.timeout:g} s") from None
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, TimeoutError):
                raise _Transient(f"no answer from the chat server {self.url} within {self.timeout:g} s") from None
            raise _Transient(f"cannot reach the chat server {self.url}: {_one_line(str(reason))}") from None
        except (ConnectionError, OSError) as error:
            raise _Transient(f"the chat server {self.url} broke off: {_one_line(str(error))}") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise ChatError(f"the chat server {self.url} answered more than {MAX_ANSWER_BYTES:,} bytes")
        return self._content(raw)

    def _content(self, raw: bytes) -> str:
        where = f"the chat server {self.url} answered"
        try:
            answer = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            shown = _one_line(raw[:80].decode("utf-8", "replace"))
            raise ChatError(f"{where} something that is not JSON: {shown!r}") from None
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ChatError(f"{where} JSON without choices[0].message.content") from None
        if content is None:
            content = ""  # a reply of nothing (e.g. cut off by max_tokens): a reply that names no move
        if not isinstance(content, str):
            raise ChatError(f"{where} a message content that is not text ({type(content).__name__})")
        usage = answer.get("usage") if isinstance(answer, dict) else None
        if isinstance(usage, dict):
            for key in ("prompt_tokens", "completion_tokens"):
                value = usage.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    setattr(self, key, getattr(self, key) + value)
        return content


class _Transient(Exception):
    """A failure worth asking again for (a timeout, a refused connection, a busy server)."""


def _one_line(text: str, most: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 3] + "..."


def _server_message(error: urllib.error.HTTPError) -> str:
    """The error message an OpenAI-compatible server put in its answer (`{"error": {"message": ...}}`), if any."""
    try:
        body = error.read(64 * 1024)
        answer = json.loads(body.decode("utf-8"))
        message = answer["error"]["message"] if isinstance(answer.get("error"), dict) else answer.get("error")
        return _one_line(str(message)) if message else ""
    except Exception:  # the message is a courtesy: an answer without one is still an HTTP error
        return ""
