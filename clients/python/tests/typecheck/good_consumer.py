"""What an app writes: every method with a body of the right shape, results read by key, events
narrowed on their name. mypy --strict passes it (tests/test_typing.py)."""

from __future__ import annotations

import asyncio

from memoryd import AnswerEvent, AsyncMemoryd, Memoryd, MemorydError
from memoryd.types import EndUser, RestSearchRequest, SearchResultFact, TeachRequest


def sync_app(memoryd: Memoryd) -> str:
    dana: EndUser = {"id": "customer-42", "name": "Dana"}
    body: TeachRequest = {"facts": [{"text": "I moved to Lisbon.", "observed_at": "2024-04-01T00:00:00Z"}], "end_user": dana}
    taught = memoryd.teach(body)
    count: int = taught["created"] + taught["superseded"] + taught["skipped"]
    memoryd.teach_messages({"messages": [{"role": "user", "content": "I like tea."}], "agent": "support", "scope": "agent"})
    query: RestSearchRequest = {"query": "where does Dana live?", "end_user": dana, "as_of": "2025-01-01T00:00:00Z"}
    facts: list[SearchResultFact] = memoryd.search(query)["facts"]
    packet = memoryd.context({"query": "Dana", "token_budget": 500, "observed_after": "2024-01-01T00:00:00Z"})
    page = memoryd.facts.list({"end_user": "customer-42", "limit": 10, "kind": "preference"})
    cursor: str | None = page["next_cursor"]
    if page["facts"]:
        history = memoryd.facts.get(page["facts"][0]["fact_id"], {"end_user": "customer-42"})
        replaced = [r["fact_text"] for r in history["replaced"]]
        restored: list[str] = memoryd.facts.delete(history["fact"]["fact_id"])["restored"]
        del replaced, restored
    queued = memoryd.answers.create({"input": "Where does Dana live?", "end_user": dana, "include": ["sources"]}, idempotency_key="k-1")
    answer = memoryd.answers.wait(queued["answer_id"], include_sources=True, timeout=30)
    text = answer["output_text"] if answer["status"] == "completed" else answer.get("error", {"message": "?"})["message"]
    for event in memoryd.answers.stream({"input": "Hi", "conversation_id": "conv-1", "agent_slug": "main"}):
        if event["event"] == "answer.delta":
            text += event["data"]["text"]
        elif event["event"] == "answer.failed":
            text += event["data"]["error"]["code"]
        elif event["event"] == "answer.completed":
            text += str(event["data"]["usage"]["output_tokens"])
    try:
        memoryd.whoami()
    except MemorydError as error:
        text += f"{error.status} {error.code} {error.message} {error.details} {error.retry_after}"
    return f"{count} {len(facts)} {packet['rendered']} {cursor} {text}"


async def async_app(memoryd: AsyncMemoryd) -> list[AnswerEvent]:
    await memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})
    found, packet = await asyncio.gather(memoryd.search({"query": "billing"}), memoryd.context({"query": "billing"}))
    events = [event async for event in memoryd.answers.stream({"input": f"{len(found['facts'])} {packet['rendered']}"})]
    queued = await memoryd.answers.create({"input": "again"})
    await memoryd.answers.wait(queued["answer_id"])
    return events
