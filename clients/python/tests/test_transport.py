"""Retries, timeouts, idempotency keys and cut streams, against a scripted local server that
answers what the test says (a 503 with Retry-After, a dropped connection, a slow answer)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from email.utils import formatdate

import pytest
from conftest import Reply, Scripted

from memoryd import Memoryd, MemorydError
from memoryd._shared import backoff, seconds_of

Make = Callable[..., Scripted]

OK_SEARCH = Reply(200, {"data": {"facts": []}})
UNAVAILABLE = Reply(503, {"error": {"code": "database_unavailable", "message": "the database cannot be reached"}}, {"retry-after": "1"})
RATE_LIMITED = Reply(429, {"error": {"code": "rate_limited", "message": "slow down", "details": {"retry_after_seconds": 0}}}, {"retry-after": "0"})
INTERNAL = Reply(500, {"error": {"code": "internal_error", "message": "oops"}})
QUEUED = Reply(202, {"data": {"answer_id": "ans_1", "status": "queued"}})


def client(server: Scripted, **options: float) -> Memoryd:
    return Memoryd(server.url, "ak_test_scripted", **options)  # type: ignore[arg-type]


def test_503_with_retry_after_then_200_is_retried_after_the_wait(scripted: Make) -> None:
    server = scripted(UNAVAILABLE, OK_SEARCH)
    started = time.monotonic()
    assert client(server).search({"query": "anything"}) == {"facts": []}
    assert time.monotonic() - started >= 1.0  # Retry-After: 1 was honoured
    assert len(server.seen) == 2
    assert all(s.headers["authorization"] == "Bearer ak_test_scripted" for s in server.seen)
    assert json.loads(server.seen[1].body) == {"query": "anything"}


def test_429_and_500_and_a_dropped_connection_are_retried_for_reads(scripted: Make) -> None:
    server = scripted(RATE_LIMITED, Reply(close=True), INTERNAL, OK_SEARCH)
    assert client(server, max_retries=3).search({"query": "x"}) == {"facts": []}
    assert [s.path for s in server.seen] == ["/v1/memory/search"] * 4


def test_retries_stop_after_max_retries_with_the_last_error(scripted: Make) -> None:
    server = scripted(Reply(503, {"error": {"code": "database_unavailable", "message": "down"}}, {"retry-after": "0"}))
    with pytest.raises(MemorydError) as caught:
        client(server, max_retries=2).facts.list()
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (503, "database_unavailable", 0)
    assert len(server.seen) == 3


def test_teach_delete_and_stream_are_never_retried(scripted: Make) -> None:
    server = scripted(Reply(503, {"error": {"code": "database_unavailable", "message": "down"}}, {"retry-after": "0"}))
    memoryd = client(server)
    with pytest.raises(MemorydError):
        memoryd.teach({"facts": [{"text": "x"}]})
    with pytest.raises(MemorydError):
        memoryd.teach_messages({"messages": [{"role": "user", "content": "x"}]})
    with pytest.raises(MemorydError):
        memoryd.facts.delete("fact_1")
    with pytest.raises(MemorydError):
        list(memoryd.answers.stream({"input": "x"}))
    assert [(s.method, s.path) for s in server.seen] == [
        ("POST", "/v1/memory/facts"),
        ("POST", "/v1/memory/messages"),
        ("DELETE", "/v1/memory/facts/fact_1"),
        ("POST", "/v1/answers"),
    ]


def test_a_queued_answer_always_carries_an_idempotency_key_and_keeps_it_across_retries(scripted: Make) -> None:
    server = scripted(Reply(close=True), INTERNAL, QUEUED)
    memoryd = client(server, max_retries=3)
    assert memoryd.answers.create({"input": "hello"}) == {"answer_id": "ans_1", "status": "queued"}
    keys = [s.headers.get("idempotency-key") for s in server.seen]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1
    assert json.loads(server.seen[0].body) == {"input": "hello", "stream": False}

    memoryd.answers.create({"input": "hello"})
    assert server.seen[-1].headers["idempotency-key"] != keys[0]  # a fresh one per call
    memoryd.answers.create({"input": "hello"}, idempotency_key="mine-1")
    assert server.seen[-1].headers["idempotency-key"] == "mine-1"


def test_a_timeout_per_attempt(scripted: Make) -> None:
    server = scripted(Reply(delay=2.0, body={"data": {}}))
    started = time.monotonic()
    with pytest.raises(MemorydError) as caught:
        client(server, timeout=0.3, max_retries=1).whoami()
    assert (caught.value.status, caught.value.code) == (0, "timeout")
    assert len(server.seen) == 2  # each attempt had its own 0.3 s
    assert time.monotonic() - started < 1.9


def test_connection_refused_is_connection_failed(scripted: Make) -> None:
    server = scripted(OK_SEARCH)
    url = server.url
    server.close()
    with pytest.raises(MemorydError) as caught:
        Memoryd(url, "ak_test_x", max_retries=0).whoami()
    assert (caught.value.status, caught.value.code) == (0, "connection_failed")
    assert isinstance(caught.value.__cause__, Exception)


def test_an_error_without_the_envelope_is_still_a_memoryd_error(scripted: Make) -> None:
    server = scripted(Reply(502, raw=b"<html>bad gateway</html>", headers={"content-type": "text/html"}), Reply(404, raw=b""))
    with pytest.raises(MemorydError) as caught:
        client(server, max_retries=0).whoami()
    assert (caught.value.status, caught.value.code) == (502, "http_error")
    with pytest.raises(MemorydError) as caught:
        client(server, max_retries=0).whoami()
    assert (caught.value.status, caught.value.code) == (404, "http_error")


def test_a_stream_cut_before_done(scripted: Make) -> None:
    body = b'event: answer.created\ndata: {"answer_id":"ans_1","conversation_id":"conv_1"}\n\nevent: answer.delta\ndata: {"text":"Hel'
    server = scripted(Reply(200, raw=body, headers={"content-type": "text/event-stream"}))
    events = []
    with pytest.raises(MemorydError) as caught:
        for event in client(server).answers.stream({"input": "hi"}):
            events.append(event)
    assert caught.value.code == "stream_cut"
    assert [e["event"] for e in events] == ["answer.created"]
    assert json.loads(server.seen[0].body) == {"input": "hi", "stream": True}


def test_a_stream_skips_comments_and_unknown_events(scripted: Make) -> None:
    body = (
        b": keep-alive\r\n\r\n"
        b'event: answer.created\r\ndata: {"answer_id":"ans_1","conversation_id":"conv_1"}\r\n\r\n'
        b'event: answer.thinking\r\ndata: {"text":"hm"}\r\n\r\n'
        b'event: answer.delta\r\ndata: {"text":"Hi \\u2028 there"}\r\n\r\n'
        b'event: done\r\ndata: {"ok":true}\r\n\r\n'
        b'event: answer.delta\r\ndata: {"text":"after done"}\r\n\r\n'
    )
    server = scripted(Reply(200, raw=body, headers={"content-type": "text/event-stream"}))
    events = list(client(server).answers.stream({"input": "hi"}))
    assert [e["event"] for e in events] == ["answer.created", "answer.delta", "done"]
    assert events[1]["data"] == {"text": "Hi \u2028 there"}


def test_retry_after_and_backoff() -> None:
    assert seconds_of("5") == 5.0
    assert seconds_of("0.5") == 0.5
    assert seconds_of(None) is None
    assert seconds_of("soon") is None
    assert seconds_of("-1") is None
    later = seconds_of(formatdate(time.time() + 30, usegmt=True))
    assert later is not None and 28 <= later <= 31
    assert seconds_of(formatdate(time.time() - 30, usegmt=True)) == 0.0
    assert backoff(0, 7.0) == 7.0
    for attempt, top in [(0, 0.25), (1, 0.5), (2, 1.0), (10, 8.0)]:
        assert top / 2 <= backoff(attempt, None) <= top
