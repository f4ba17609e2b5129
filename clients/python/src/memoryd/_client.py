"""The synchronous client."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator
from types import TracebackType
from typing import Any, cast

import httpx

from ._shared import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    AnswerEvent,
    Call,
    FactDeleteResult,
    MemorydError,
    backoff,
    check_options,
    data_of,
    event_of,
    headers_for,
    poll_delay,
    query_of,
    route,
    stream_timeout,
)
from ._sse import SSEDecoder
from .types import (
    Answer,
    AnswerRequest,
    ContextPacket,
    FactList,
    FactListQuery,
    FactQuery,
    FactWithHistory,
    QueuedAnswer,
    RestContextRequest,
    RestSearchRequest,
    SearchResult,
    TeachMessagesRequest,
    TeachMessagesResult,
    TeachRequest,
    TeachResult,
    WhoamiResult,
)


class Memoryd:
    """memoryd's REST API (docs/api.md). Methods take the request body as a dict (typed: see
    memoryd.types) and return the ``data`` of the envelope; a failure raises MemorydError.

    ``timeout`` (seconds) bounds each attempt's connect, each read and each write; ``max_retries``
    is how many more attempts a call that is safe to repeat gets after a 429, a 5xx or a lost
    connection. ``http_client`` is an httpx.Client of your own (a proxy, a transport of a test);
    it is then yours to close.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._base_url = check_options(base_url, api_key, timeout, max_retries)
        self._headers = headers_for(api_key)
        self._timeout = timeout
        self._max_retries = max_retries
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)
        self.facts = Facts(self)
        self.answers = Answers(self)

    def close(self) -> None:
        """Closes the connection pool (not one given as http_client)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Memoryd:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        self.close()

    def whoami(self) -> WhoamiResult:
        """GET /v1/whoami: the key's name, scopes and workspace."""
        return cast(WhoamiResult, self._call(Call(*route("whoami"), retry=True)))

    def teach(self, body: TeachRequest) -> TeachResult:
        """POST /v1/memory/facts: teach 1-20 facts. Not retried: a retry after a lost connection could teach twice."""
        return cast(TeachResult, self._call(Call(*route("teach"), retry=False, body=body)))

    def teach_messages(self, body: TeachMessagesRequest) -> TeachMessagesResult:
        """POST /v1/memory/messages: teach what the user said in a conversation. Not retried."""
        return cast(TeachMessagesResult, self._call(Call(*route("teach_messages"), retry=False, body=body)))

    def search(self, body: RestSearchRequest) -> SearchResult:
        """POST /v1/memory/search: the facts most relevant to a query."""
        return cast(SearchResult, self._call(Call(*route("search"), retry=True, body=body)))

    def context(self, body: RestContextRequest) -> ContextPacket:
        """POST /v1/memory/context: the memory block for a prompt."""
        return cast(ContextPacket, self._call(Call(*route("context"), retry=True, body=body)))

    # -- transport ---------------------------------------------------------------------------

    def _call(self, call: Call) -> Any:
        response = self._send(call)
        return data_of(response)

    def _send(self, call: Call) -> httpx.Response:
        """Sends with the timeout and, where safe, retries with backoff; raises MemorydError on a non-2xx."""
        headers = self._headers if call.headers is None else {**self._headers, **call.headers}
        url = self._base_url + call.path
        for attempt in itertools.count():
            try:
                response = self._http.request(call.method, url, json=call.body, params=call.params, headers=headers, timeout=self._timeout)
            except httpx.TransportError as error:
                failure = MemorydError.lost(error)
                failure.__cause__ = error
            else:
                if response.is_success:
                    return response
                failure = MemorydError.from_response(response)
            if not (call.retry and failure.retriable and attempt < self._max_retries):
                raise failure
            time.sleep(backoff(attempt, failure.retry_after))
        raise AssertionError("unreachable")

    def _events(self, body: AnswerRequest) -> Iterator[AnswerEvent]:
        method, path = route("answers.create")
        payload: dict[str, object] = {**body, "stream": True}
        headers = {**self._headers, "accept": "text/event-stream"}
        try:
            with self._http.stream(method, self._base_url + path, json=payload, headers=headers, timeout=stream_timeout(self._timeout)) as response:
                if not response.is_success:
                    response.read()
                    raise MemorydError.from_response(response)
                decoder = SSEDecoder()
                for chunk in response.iter_bytes():
                    for message in decoder.feed(chunk):
                        event = event_of(message)
                        if event is None:
                            continue
                        yield event
                        if event["event"] == "done":
                            return
        except httpx.TransportError as error:
            raise MemorydError(0, "stream_cut", f"the answer stream broke off: {type(error).__name__}: {error}") from error
        raise MemorydError(0, "stream_cut", "the answer stream ended before its done event")


class Facts:
    """The facts API: list, read and delete the facts the key may see. A delete is not retried (a
    second one after a lost response would be a 404)."""

    def __init__(self, client: Memoryd) -> None:
        self._client = client

    def list(self, params: FactListQuery | None = None) -> FactList:
        """GET /v1/memory/facts: newest first, a page at a time (``next_cursor``)."""
        return cast(FactList, self._client._call(Call(*route("facts.list"), retry=True, params=query_of(params))))

    def get(self, fact_id: str, params: FactQuery | None = None) -> FactWithHistory:
        """GET /v1/memory/facts/:fact_id: the fact and the earlier versions of its claim."""
        return cast(FactWithHistory, self._client._call(Call(*route("facts.get", fact_id), retry=True, params=query_of(params))))

    def delete(self, fact_id: str, params: FactQuery | None = None) -> FactDeleteResult:
        """DELETE /v1/memory/facts/:fact_id: gone from every read once this returns."""
        return cast(FactDeleteResult, self._client._call(Call(*route("facts.delete", fact_id), retry=False, params=query_of(params))))


class Answers:
    """The worker's answers: queued and polled, or streamed."""

    def __init__(self, client: Memoryd) -> None:
        self._client = client

    def create(self, body: AnswerRequest, *, idempotency_key: str | None = None) -> QueuedAnswer:
        """POST /v1/answers, queued. Sent with an Idempotency-Key (a fresh UUID when none is given),
        so a retry after a lost connection returns the same answer_id instead of a second answer."""
        key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        call = Call(*route("answers.create"), retry=True, body={**body, "stream": False}, headers={"idempotency-key": key})
        return cast(QueuedAnswer, self._client._call(call))

    def get(self, answer_id: str, *, include_sources: bool = False) -> Answer:
        """GET /v1/answers/:answer_id (with ``sources`` when asked)."""
        params = {"include": "sources"} if include_sources else None
        return cast(Answer, self._client._call(Call(*route("answers.get", answer_id), retry=True, params=params)))

    def wait(self, answer_id: str, *, include_sources: bool = False, poll_interval: float | None = None, timeout: float | None = None) -> Answer:
        """Polls until the answer is completed or failed; after ``timeout`` seconds (when given)
        raises MemorydError with code ``timeout`` (the run goes on: wait again)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for attempt in itertools.count():
            answer = self.get(answer_id, include_sources=include_sources)
            if answer["status"] in ("completed", "failed"):
                return answer
            delay = poll_delay(attempt, poll_interval)
            if deadline is not None:
                if time.monotonic() + delay > deadline:
                    raise MemorydError(0, "timeout", f"answer {answer_id} is still {answer['status']} after {timeout} s")
            time.sleep(delay)
        raise AssertionError("unreachable")

    def stream(self, body: AnswerRequest) -> Iterator[AnswerEvent]:
        """POST /v1/answers, streamed: the events as they arrive, ending with ``done``. The request
        is sent when iteration starts. Never retried: the run starts with the request, so a second
        request would be a second answer. Leaving the loop early closes the connection (the run
        still finishes on the server)."""
        return self._client._events(body)
