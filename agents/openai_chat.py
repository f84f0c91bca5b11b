"""A language model behind an OpenAI-compatible chat API, as a callable prompt -> reply for `TextAgent`.

vLLM, llama.cpp's server, Ollama, LM Studio and the hosted APIs all serve ``POST {base_url}/chat/completions``.
``OpenAIChat.from_env()`` reads the server from the environment:

| variable             | meaning                                                                  |
|----------------------|--------------------------------------------------------------------------|
| `UNO_LLM_BASE_URL`   | the API's base URL, e.g. `http://localhost:8000/v1` (required)           |
| `UNO_LLM_MODEL`      | the model's name on that server (required unless given)                  |
| `UNO_LLM_API_KEY`    | the key, sent as `Authorization: Bearer ...` (optional: local servers)   |
| `UNO_LLM_TIMEOUT`    | seconds one request may take, connecting to the last byte (default 60)   |
| `UNO_LLM_MAX_TOKENS` | the most tokens of one reply (default: the server's)                     |

``TextAgent(OpenAIChat.from_env())`` seats it; `uno-arena --agents llm counter` (or ``llm:MODEL``) does the same
by name. Each prompt is one user message after a short system message; temperature 0 by default, and the
agent's seed is sent (servers that honour `seed` answer reproducibly). It speaks plain HTTP(S) through the
standard library (`urllib`): no other dependency.

Time: `timeout` is a deadline for the whole request (connecting, sending, and reading the status, the headers
and the whole answer), not a wait per read: a server that trickles its answer is cut off at it. A timeout, a
refused connection, a connection broken off mid-answer or HTTP 408, 409, 429, 500, 502, 503 or 504 is retried
`retries` times (2) after `backoff` seconds (doubling), so one prompt takes at most `timeout` * (`retries` + 1)
plus those waits (60 * 3 + 0.5 + 1 = 181.5 s by default); then it raises `ChatError`. Other HTTP errors, a
redirect (an OpenAI-compatible API never sends one, and following it would send the key to wherever it points:
none is followed) and an answer that is not HTTP or not a chat completion raise `ChatError` at once. Every
`ChatError` is one line that says what happened; the key is never in it, nor in a repr or a reply (text from a
server that echoes it back has it replaced by `***`). Usage is counted from the server's answers: `prompt_tokens`,
`completion_tokens`.
"""

from __future__ import annotations

import functools
import http.client
import io
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

__all__ = ["ChatError", "OpenAIChat", "SYSTEM_MESSAGE"]

SYSTEM_MESSAGE = "You are playing a game of UNO. Read the table and pick one legal move."
#: the most bytes of one answer read from the server
MAX_ANSWER_BYTES = 4 * 1024 * 1024
RETRIED_STATUSES = (408, 409, 429, 500, 502, 503, 504)
#: the longest wait before a retry (`backoff`)
MAX_BACKOFF = 60.0
REDACTED = "***"  # what the key becomes in any text that comes from the server


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
        if not _host(base_url) or any(c.isspace() for c in base_url):
            raise ValueError(f"the chat API's base URL must name a host and hold no spaces, got {base_url[:80]!r}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError("name the model (UNO_LLM_MODEL, or llm:MODEL)")
        if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and 0 < timeout <= 3600):
            raise ValueError(f"timeout must be a number of seconds from 0 to 3600, got {timeout!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or
                                       max_tokens < 1):  # fmt: skip
            raise ValueError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise ValueError(f"retries must be an int from 0 to 10, got {retries!r}")
        if isinstance(backoff, bool) or not (isinstance(backoff, (int, float)) and 0 <= backoff <= MAX_BACKOFF):
            raise ValueError(f"backoff must be a number of seconds from 0 to {MAX_BACKOFF:g}, got {backoff!r}")
        if api_key and not (isinstance(api_key, str) and api_key.isascii() and api_key.isprintable() and
                            " " not in api_key):  # fmt: skip
            raise ValueError("the API key must be printable ASCII without spaces")  # never the key itself
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
        self._opener = urllib.request.build_opener(_RefuseRedirects(), _DeadlineHTTPHandler(), _DeadlineHTTPSHandler())

    def __repr__(self) -> str:  # never the key
        return f"OpenAIChat({self.url!r}, model={self.model!r})"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_opener"]  # made again when unpickled (a process pool)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._opener = urllib.request.build_opener(_RefuseRedirects(), _DeadlineHTTPHandler(), _DeadlineHTTPSHandler())

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
        wait = self.backoff
        for attempt in range(self.retries + 1):
            failure = None
            try:
                return self._ask(data, time.monotonic() + self.timeout)
            except _Transient as error:
                if attempt == self.retries:
                    failure = f"{error} (tried {attempt + 1} times)" if attempt else str(error)
            except ChatError as error:
                failure = str(error)
            if failure is not None:  # raised outside the handler: no __context__ keeps the server's own words
                raise ChatError(self._redacted(failure, most=1000))
            time.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable")

    def _redacted(self, text: str, most: int = 200) -> str:
        """`text` (from the server, or naming what it sent) on one line of at most `most` characters, with the key
        replaced by `REDACTED`."""
        if self._key:
            escaped = json.dumps(self._key)[1:-1]
            for form in (self._key, escaped, escaped.replace("/", "\\/")):  # as sent, and as JSON may escape it
                text = text.replace(form, REDACTED)
        return _one_line(text, most)

    def _request(self, data: bytes, deadline: float) -> urllib.request.Request:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = _Bearer(self._key)  # type: ignore[assignment]
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        request.deadline = deadline  # type: ignore[attr-defined]  # read by the _Deadline*Handler
        return request

    def _ask(self, data: bytes, deadline: float) -> str:
        """One request: the reply, or `_Transient` (worth asking again) or `ChatError`."""
        self.requests += 1
        where = f"the chat server {self.url}"
        late = f"no complete answer from {where} within {self.timeout:g} s"
        try:
            with self._opener.open(self._request(data, deadline), timeout=self.timeout) as response:
                announced = response.length  # Content-Length, or None (chunked, or until the server closes)
                if announced is not None and announced > MAX_ANSWER_BYTES:
                    raw, missing = b"", 0
                else:
                    raw = response.read(MAX_ANSWER_BYTES + 1)
                    missing = response.length or 0  # announced bytes that never came
        except urllib.error.HTTPError as error:
            failure = self._http_error(error)
            if error.fp is not None:
                error.close()
            raise failure from None
        except urllib.error.URLError as error:
            reason = error.reason
            if isinstance(reason, TimeoutError):
                raise _Transient(late) from None
            raise _Transient(f"cannot reach {where}: {self._redacted(str(reason))}") from None
        except TimeoutError:
            raise _Transient(late) from None
        except http.client.IncompleteRead as error:  # a chunked answer cut off, or a bad chunk
            raise _Transient(f"{where} broke off mid-answer ({len(error.partial)} bytes read)") from None
        except http.client.RemoteDisconnected:
            raise _Transient(f"{where} closed the connection without answering") from None
        except http.client.HTTPException as error:  # a garbage status line, a header line too long, too many
            shown = self._redacted(f"{type(error).__name__}: {error}")
            raise ChatError(f"{where} answered something that is not HTTP ({shown})") from None
        except OSError as error:
            raise _Transient(f"{where} broke off: {self._redacted(str(error))}") from None
        if announced is not None and announced > MAX_ANSWER_BYTES or len(raw) > MAX_ANSWER_BYTES:
            raise ChatError(f"{where} answered more than {MAX_ANSWER_BYTES:,} bytes")
        if missing:
            raise _Transient(f"{where} broke off mid-answer ({len(raw)} of {len(raw) + missing} bytes read)")
        return self._content(raw)

    def _http_error(self, error: urllib.error.HTTPError) -> Exception:
        """The one-line failure of an HTTP error answer: `_Transient` for a busy server, else `ChatError`."""
        line = f"the chat server {self.url} answered HTTP {error.code}"
        if 300 <= error.code < 400:
            host = _host(error.headers.get("Location", "")) if error.headers else ""
            to = f", a redirect to {self._redacted(host)[:100]}" if host else ""
            return ChatError(f"{line}{to}: redirects are not followed (an OpenAI-compatible API sends none): set "
                             "UNO_LLM_BASE_URL to the API's own address")  # fmt: skip
        message = self._redacted(_server_message(error))
        line += f": {message}" if message else ""
        return _Transient(line) if error.code in RETRIED_STATUSES else ChatError(line)

    def _content(self, raw: bytes) -> str:
        where = f"the chat server {self.url} answered"
        try:
            answer = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            shown = self._redacted(raw.decode("utf-8", "replace"), most=80)
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
        if self._key and self._key in content:  # a reply goes into transcripts and records
            content = content.replace(self._key, REDACTED)
        return content


class _Transient(Exception):
    """A failure worth asking again for (a timeout, a refused connection, a busy server)."""


class _Bearer:
    """The Authorization header's value: http.client sends what `encode` gives, and a repr (a traceback's locals,
    a debugger) shows no key."""

    __slots__ = ("_key",)

    def __init__(self, key: str):
        self._key = key

    def encode(self, encoding: str) -> bytes:
        return f"Bearer {self._key}".encode(encoding)

    def __repr__(self) -> str:
        return f"'Bearer {REDACTED}'"


# ------------------------------------------------------------------ transport: no redirects, a deadline per request


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Follows no redirect (urllib's would send every header, the key too, to wherever Location points): the 3xx
    answer stays an HTTPError."""

    def http_error_302(self, req, fp, code, msg, headers):  # noqa: D102
        return None  # the next handler (urllib's default) raises the HTTPError

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _time_left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the request's deadline passed")
    return left


class _DeadlineReader(io.RawIOBase):
    """A socket's reading end that waits at most until `deadline` (`time.monotonic()`) in all: each read may
    take only the time left, so a server trickling its status, headers or body is cut off at the deadline."""

    def __init__(self, sock: socket.socket, deadline: float):
        self._sock, self._raw, self._deadline = sock, sock.makefile("rb", buffering=0), deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int | None:  # noqa: D102
        self._sock.settimeout(_time_left(self._deadline))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()  # the socket's own reference count: it closes with the connection
        super().close()


class _DeadlineSocket:
    """What http.client's response reads from: `makefile` gives a `_DeadlineReader`."""

    def __init__(self, sock: socket.socket, deadline: float):
        self._sock, self._deadline = sock, deadline

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))


class _DeadlineConnection(http.client.HTTPConnection):
    """An HTTP connection whose every step (connecting, sending, reading) ends by `deadline`."""

    def __init__(self, *args: Any, deadline: float, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self._create_connection = self._connect_by_deadline

    def _connect_by_deadline(self, address, timeout, source_address=None):
        sock = socket.create_connection(address, _time_left(self.deadline), source_address)
        sock.settimeout(_time_left(self.deadline))  # sending (sendall's timeout is a total), a TLS handshake
        return sock

    def response_class(self, sock, *args: Any, **kwargs: Any) -> http.client.HTTPResponse:
        """http.client makes the response as self.response_class(self.sock, ...): this one reads by the deadline."""
        return http.client.HTTPResponse(_DeadlineSocket(sock, self.deadline), *args, **kwargs)


class _DeadlineHTTPSConnection(_DeadlineConnection, http.client.HTTPSConnection):
    """`_DeadlineConnection` over TLS."""


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):  # noqa: D102
        return self.do_open(functools.partial(_DeadlineConnection, deadline=req.deadline), req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):  # noqa: D102
        return self.do_open(functools.partial(_DeadlineHTTPSConnection, deadline=req.deadline), req,
                            context=self._context)  # fmt: skip


def _one_line(text: str, most: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 3] + "..."


def _host(url: str) -> str:
    """The host a URL names ("" if none can be read, or its port is not a number)."""
    try:
        parts = urllib.parse.urlsplit(url)
        return (parts.port, parts.hostname)[1] or ""
    except ValueError:
        return ""


def _server_message(error: urllib.error.HTTPError) -> str:
    """The error message an OpenAI-compatible server put in its answer (`{"error": {"message": ...}}`), if any."""
    try:
        body = error.read(64 * 1024)
        answer = json.loads(body.decode("utf-8"))
        message = answer["error"]["message"] if isinstance(answer.get("error"), dict) else answer.get("error")
        return str(message) if message else ""
    except Exception:  # the message is a courtesy: an answer without one is still an HTTP error
        return ""
