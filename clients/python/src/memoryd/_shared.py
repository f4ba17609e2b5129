"""What the sync and async clients share: the route table, the one error type, the timing of
retries, and the hand-written types the OpenAPI document does not describe."""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict, Union
from urllib.parse import quote

import httpx

from ._sse import ServerSentEvent
from .types import Answer, AnswerError

if TYPE_CHECKING:
    from typing_extensions import TypeAlias

__version__ = "0.1.0"

#: The REST routes the clients call, by method (docs/api.md, Routes). The methods read their paths
#: from here, and a test checks that every route docs/api.md lists for key holders is in it, and
#: that it names the same routes as the TypeScript client's CLIENT_ROUTES.
CLIENT_ROUTES: Final = {
    "whoami": "GET /v1/whoami",
    "teach": "POST /v1/memory/facts",
    "teach_messages": "POST /v1/memory/messages",
    "search": "POST /v1/memory/search",
    "context": "POST /v1/memory/context",
    "facts.list": "GET /v1/memory/facts",
    "facts.get": "GET /v1/memory/facts/:fact_id",
    "facts.delete": "DELETE /v1/memory/facts/:fact_id",
    "answers.create": "POST /v1/answers",
    "answers.get": "GET /v1/answers/:answer_id",
}

DEFAULT_TIMEOUT: Final = 30.0
DEFAULT_MAX_RETRIES: Final = 2
#: A stream waits at least this long for its next bytes: the server sends a keep-alive every 15 s.
STREAM_READ_TIMEOUT: Final = 60.0


# -- types the OpenAPI document leaves out ------------------------------------------------------


class FactDeleteResult(TypedDict):
    """DELETE /v1/memory/facts/:fact_id: the deleted fact and the versions it had replaced, live again."""

    fact_id: str
    restored: list[str]


class AnswerCreatedData(TypedDict):
    answer_id: str
    conversation_id: str


class AnswerDeltaData(TypedDict):
    text: str


class AnswerFailedData(TypedDict):
    error: AnswerError


class DoneData(TypedDict):
    ok: bool


class AnswerCreatedEvent(TypedDict):
    event: Literal["answer.created"]
    data: AnswerCreatedData


class AnswerDeltaEvent(TypedDict):
    event: Literal["answer.delta"]
    data: AnswerDeltaData


class AnswerCompletedEvent(TypedDict):
    event: Literal["answer.completed"]
    data: Answer


class AnswerFailedEvent(TypedDict):
    event: Literal["answer.failed"]
    data: AnswerFailedData


class DoneEvent(TypedDict):
    event: Literal["done"]
    data: DoneData


#: One server-sent event of a streamed answer (docs/api.md, Answers): ``answer.created``, zero or
#: more ``answer.delta``, ``answer.completed`` or ``answer.failed``, then ``done``. Narrow it on
#: ``event["event"]``.
AnswerEvent: TypeAlias = Union[AnswerCreatedEvent, AnswerDeltaEvent, AnswerCompletedEvent, AnswerFailedEvent, DoneEvent]

ANSWER_EVENTS: Final = frozenset({"answer.created", "answer.delta", "answer.completed", "answer.failed", "done"})


# -- errors ---------------------------------------------------------------------------------------


class MemorydError(Exception):
    """What a call failed with: the error envelope's ``code``, ``message`` and ``details``
    (docs/api.md, Errors), the HTTP ``status`` (0 when no response came: ``code`` is then
    ``timeout``, ``connection_failed`` or ``stream_cut``), ``retry_after`` (the seconds a 429 or
    503 asked to wait) and the response's ``request_id``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retry_after = retry_after
        self.request_id = request_id

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" + (f" (HTTP {self.status})" if self.status else "")

    def __repr__(self) -> str:
        return f"MemorydError(status={self.status!r}, code={self.code!r}, message={self.message!r})"

    @property
    def retriable(self) -> bool:
        """A 429, a 5xx, or no response at all: worth another attempt where repeating is safe."""
        return self.status == 429 or self.status >= 500 or self.status == 0

    @classmethod
    def from_response(cls, response: httpx.Response) -> MemorydError:
        """The error a non-2xx response carries (its body already read); a body that is not the
        envelope still gives a clear error."""
        retry_after = seconds_of(response.headers.get("retry-after"))
        request_id = response.headers.get("x-request-id")
        try:
            error = json.loads(response.content).get("error")
            if isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str):
                details = error.get("details")
                return cls(
                    response.status_code,
                    error["code"],
                    error["message"],
                    details if isinstance(details, dict) else None,
                    retry_after,
                    request_id,
                )
        except (ValueError, AttributeError):
            pass  # not JSON, or not an object: described below
        return cls(response.status_code, "http_error", f"HTTP {response.status_code} without an error envelope", None, retry_after, request_id)

    @classmethod
    def lost(cls, error: httpx.TransportError) -> MemorydError:
        """No response: the connection failed or the attempt timed out."""
        if isinstance(error, httpx.TimeoutException):
            return cls(0, "timeout", f"no response within the timeout ({type(error).__name__})")
        return cls(0, "connection_failed", f"no response: {type(error).__name__}: {error}")


def seconds_of(header: str | None) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date."""
    if header is None:
        return None
    try:
        seconds = float(header)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def backoff(attempt: int, retry_after: float | None) -> float:
    """Seconds before the next attempt: what Retry-After asked, else exponential backoff with
    jitter (0.25 s, 0.5 s, 1 s, ... at most 8 s)."""
    if retry_after is not None:
        return retry_after
    base = min(8.0, 0.25 * 2.0**attempt)
    return base / 2 + random.random() * (base / 2)


def poll_delay(attempt: int, poll_interval: float | None) -> float:
    """answers.wait's pause between polls: 0.25 s doubling to 2 s, or the interval given (at most 2 s)."""
    return min(poll_interval if poll_interval is not None else 0.25 * 2.0 ** min(attempt, 3), 2.0)


# -- requests -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    #: Safe to send again after a 429, a 5xx or a lost connection.
    retry: bool
    body: Any = None
    params: dict[str, str] | None = None
    headers: dict[str, str] | None = None


def route(name: str, param: str | None = None) -> tuple[str, str]:
    """A route's method and its path, with the parameter filled in."""
    method, pattern = CLIENT_ROUTES[name].split(" ", 1)
    if param is None:
        return method, pattern
    if not isinstance(param, str) or param == "":
        raise ValueError(f"{name} needs a non-empty id, got {param!r}")
    head, _, _ = pattern.rpartition("/:")
    segment = quote(param, safe="!'()*-._~")  # one path segment, encoded as encodeURIComponent would
    return method, f"{head}/{segment}"


def query_of(params: Any) -> dict[str, str] | None:
    """Query parameters as strings (None left out); booleans as true/false."""
    if not params:
        return None
    out: dict[str, str] = {}
    for name, value in dict(params).items():
        if value is None:
            continue
        out[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def data_of(response: httpx.Response) -> Any:
    """The envelope's ``data`` of a 2xx response."""
    if not response.content:
        return None
    try:
        return json.loads(response.content)["data"]
    except (ValueError, KeyError, TypeError) as error:
        raise MemorydError(
            response.status_code, "invalid_response", f"a {response.status_code} response without a JSON envelope", request_id=response.headers.get("x-request-id")
        ) from error


def event_of(message: ServerSentEvent) -> AnswerEvent | None:
    """A parsed answer event; None for an event this client does not know (a newer server's)."""
    if message.event not in ANSWER_EVENTS:
        return None
    try:
        data = json.loads(message.data)
    except ValueError as error:
        raise MemorydError(0, "invalid_response", f"the {message.event} event's data is not JSON") from error
    event: AnswerEvent = {"event": message.event, "data": data}  # type: ignore[misc, assignment]
    return event


def headers_for(api_key: str) -> dict[str, str]:
    return {
        "authorization": f"Bearer {api_key}",
        "accept": "application/json",
        "user-agent": f"memoryd-python/{__version__} httpx/{httpx.__version__}",
    }


def check_options(base_url: str, api_key: str, timeout: float, max_retries: int) -> str:
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
    if not isinstance(api_key, str) or api_key == "":
        raise ValueError("api_key is required")
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    if max_retries < 0:
        raise ValueError("max_retries must be 0 or more")
    return base_url.rstrip("/")


def stream_timeout(timeout: float) -> httpx.Timeout:
    return httpx.Timeout(timeout, read=max(timeout, STREAM_READ_TIMEOUT))
