"""AsyncMemoryd: the same calls against the built binary, retries against the scripted server, and
cancellation (a cancelled task stops its request, its retry wait, its stream and its wait)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import TypeVar

import pytest
from conftest import Reply, Scripted, Server

from memoryd import AnswerEvent, AsyncMemoryd, MemorydError
from memoryd.types import EndUser

T = TypeVar("T")
Make = Callable[..., Scripted]


def run(main: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(main())  # type: ignore[arg-type]


def test_round_trip_end_users_agents_and_facts(server: Server, key: str) -> None:
    agent = server.new_agent()
    user: EndUser = {"id": f"u-{uuid.uuid4().hex[:8]}", "name": "Ana"}
    text = f"The staging cluster is in Frankfurt (ref {uuid.uuid4().hex[:8]})."

    async def main() -> None:
        async with AsyncMemoryd(server.url, key) as memoryd:
            assert "memory.read" in (await memoryd.whoami())["scopes"]
            await memoryd.teach({"facts": [{"text": text}], "agent": agent, "scope": "agent"})
            taught = await memoryd.teach_messages(
                {"end_user": user, "messages": [{"role": "user", "content": "I work in Leeds."}]}
            )
            assert taught["statements"] == ["I work in Leeds."]
            # Three reads at once on one client.
            found, hidden, packet = await asyncio.gather(
                memoryd.search({"query": "where is the staging cluster?", "agent": agent, "limit": 50}),
                memoryd.search({"query": "where is the staging cluster?", "limit": 50}),
                memoryd.context({"query": "where does Ana work?", "end_user": {"id": user["id"]}}),
            )
            assert text in [f["fact_text"] for f in found["facts"]]
            assert text not in [f["fact_text"] for f in hidden["facts"]]
            assert "Leeds" in packet["rendered"]
            listed = await memoryd.facts.list({"end_user": user["id"]})
            fact_id = listed["facts"][0]["fact_id"]
            assert (await memoryd.facts.get(fact_id, {"end_user": user["id"]}))["fact"]["fact_text"] == "I work in Leeds."
            assert (await memoryd.facts.delete(fact_id, {"end_user": user["id"]}))["fact_id"] == fact_id
            with pytest.raises(MemorydError) as caught:
                await memoryd.facts.get(fact_id, {"end_user": user["id"]})
            assert caught.value.code == "not_found"

    run(main)


def test_answers_queued_and_streamed(server: Server, key: str) -> None:
    async def main() -> None:
        async with AsyncMemoryd(server.url, key) as memoryd:
            await memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})
            queued = await memoryd.answers.create({"input": "What does billing run on?"})
            answer = await memoryd.answers.wait(queued["answer_id"], include_sources=True, timeout=60)
            assert answer["status"] == "completed" and "Postgres 16" in answer["output_text"]
            events: list[AnswerEvent] = []
            async with aclosing(memoryd.answers.stream({"input": "What does billing run on?"})) as stream:  # type: ignore[type-var]
                async for event in stream:
                    events.append(event)
            assert [e["event"] for e in events][0] == "answer.created"
            assert [e["event"] for e in events][-2:] == ["answer.completed", "done"]

    run(main)


def test_errors(server: Server, key: str) -> None:
    async def main() -> None:
        async with AsyncMemoryd(server.url, "ak_test_notarealkey0000000000000000000") as stranger:
            with pytest.raises(MemorydError) as caught:
                await stranger.whoami()
            assert (caught.value.status, caught.value.code) == (401, "api_key_invalid")
        async with AsyncMemoryd(server.url, key) as memoryd:
            with pytest.raises(MemorydError) as caught:
                await memoryd.search({"query": ""})
            assert (caught.value.status, caught.value.code) == (422, "validation_error")
            with pytest.raises(MemorydError) as caught:
                async for _ in memoryd.answers.stream({"input": "x", "agent_slug": "no-such-agent"}):
                    pass
            assert caught.value.code == "validation_error"

    run(main)


def test_retries_and_idempotency_keys(scripted: Make) -> None:
    server = scripted(
        Reply(503, {"error": {"code": "database_unavailable", "message": "down"}}, {"retry-after": "1"}),
        Reply(close=True),
        Reply(202, {"data": {"answer_id": "ans_1", "status": "queued"}}),
    )

    async def main() -> None:
        async with AsyncMemoryd(server.url, "ak_test_x", max_retries=2) as memoryd:
            started = time.monotonic()
            assert (await memoryd.answers.create({"input": "hi"}))["answer_id"] == "ans_1"
            assert time.monotonic() - started >= 1.0
        keys = {s.headers["idempotency-key"] for s in server.seen}
        assert len(server.seen) == 3 and len(keys) == 1
        assert json.loads(server.seen[0].body)["stream"] is False

    run(main)


def test_teach_is_not_retried(scripted: Make) -> None:
    server = scripted(Reply(503, {"error": {"code": "database_unavailable", "message": "down"}}, {"retry-after": "0"}))

    async def main() -> None:
        async with AsyncMemoryd(server.url, "ak_test_x") as memoryd:
            with pytest.raises(MemorydError):
                await memoryd.teach({"facts": [{"text": "x"}]})
        assert len(server.seen) == 1

    run(main)


def test_timeout(scripted: Make) -> None:
    server = scripted(Reply(delay=2.0, body={"data": {}}))

    async def main() -> None:
        async with AsyncMemoryd(server.url, "ak_test_x", timeout=0.3, max_retries=0) as memoryd:
            with pytest.raises(MemorydError) as caught:
                await memoryd.whoami()
            assert caught.value.code == "timeout"

    run(main)


def test_cancellation_stops_a_request_in_flight(scripted: Make) -> None:
    server = scripted(Reply(delay=5.0, body={"data": {"facts": []}}))

    async def main() -> float:
        async with AsyncMemoryd(server.url, "ak_test_x", timeout=30) as memoryd:
            task = asyncio.create_task(memoryd.search({"query": "slow"}))
            await asyncio.sleep(0.3)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return time.monotonic() - started

    assert run(main) < 0.5
    assert len(server.seen) == 1


def test_cancellation_stops_a_retry_wait_and_asyncio_timeouts_propagate(scripted: Make) -> None:
    server = scripted(Reply(503, {"error": {"code": "database_unavailable", "message": "down"}}, {"retry-after": "30"}))

    async def main() -> float:
        async with AsyncMemoryd(server.url, "ak_test_x") as memoryd:
            started = time.monotonic()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(memoryd.whoami(), timeout=0.5)
            return time.monotonic() - started

    assert run(main) < 2.0
    assert len(server.seen) == 1


def test_cancellation_stops_a_stream_and_a_wait(scripted: Make) -> None:
    created = b'event: answer.created\ndata: {"answer_id":"ans_1","conversation_id":"conv_1"}\n\n'
    # The stream sends its first event, then nothing: the consumer gives up on it.
    stream_server = scripted(Reply(200, raw=created + b": keep-alive\n\n", headers={"content-type": "text/event-stream"}, hold=5.0))
    poll_server = scripted(Reply(200, {"data": {"answer_id": "ans_1", "status": "in_progress", "output_text": "", "conversation_id": "c", "usage": {}}}))

    async def consume(memoryd: AsyncMemoryd, seen: list[str]) -> None:
        async for event in memoryd.answers.stream({"input": "hi"}):
            seen.append(event["event"])

    async def main() -> None:
        seen: list[str] = []
        async with AsyncMemoryd(stream_server.url, "ak_test_x") as memoryd:
            task = asyncio.create_task(consume(memoryd, seen))
            await asyncio.sleep(0.5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert seen == ["answer.created"]
        async with AsyncMemoryd(poll_server.url, "ak_test_x") as memoryd:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(memoryd.answers.wait("ans_1"), timeout=0.8)
        assert len(poll_server.seen) >= 2

    run(main)
