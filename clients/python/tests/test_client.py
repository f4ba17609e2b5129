"""The synchronous client against the built binary: every method, end users, agents, as_of and
observed times, the facts API, answers (queued and streamed), and errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from conftest import Server

from memoryd import AnswerEvent, Memoryd, MemorydError
from memoryd.types import EndUser, RestSearchRequest


@pytest.fixture
def memoryd(server: Server, key: str) -> Iterator[Memoryd]:
    with Memoryd(server.url, key) as client:
        yield client


def unique(text: str) -> str:
    """A fact nobody else taught: tests share one server."""
    return f"{text} (ref {uuid.uuid4().hex[:10]})"


def test_whoami(memoryd: Memoryd) -> None:
    me = memoryd.whoami()
    assert set(me["scopes"]) == {"memory.read", "memory.write", "answers.write"}
    assert me["key_audience"] == "internal"
    assert me["rate_limit"]["requests_per_window"] == 120


def test_teach_search_context_round_trip(memoryd: Memoryd) -> None:
    text = unique("The billing service runs on Postgres 16.")
    taught = memoryd.teach({"facts": [{"text": text}]})
    assert taught["accepted_fact_count"] == 1
    assert taught["created"] + taught["superseded"] + taught["skipped"] == 1

    found = memoryd.search({"query": "what does the billing service run on?", "limit": 50})
    assert text in [fact["fact_text"] for fact in found["facts"]]
    explained = memoryd.search({"query": "billing service Postgres", "explain": True, "limit": 5})
    assert all("explanation" in fact for fact in explained["facts"])

    packet = memoryd.context({"query": "what does billing run on?", "token_budget": 800})
    assert packet["packet_version"] == 1
    assert "Postgres 16" in packet["rendered"]


def test_teach_messages_and_end_users(memoryd: Memoryd) -> None:
    dana: EndUser = {"id": f"customer-{uuid.uuid4().hex[:8]}", "name": "Dana"}
    other: EndUser = {"id": f"customer-{uuid.uuid4().hex[:8]}"}
    taught = memoryd.teach_messages(
        {
            "end_user": dana,
            "messages": [
                {"role": "user", "content": "Hi! I moved to Lisbon last spring. Any tips for this weekend?"},
                {"role": "assistant", "content": "Welcome to Lisbon! The Gulbenkian museum is lovely."},
            ],
        }
    )
    assert taught["statements"] == ["I moved to Lisbon last spring."]
    assert taught["accepted_message_count"] == 2

    packet = memoryd.context({"query": "where does Dana live?", "end_user": {"id": dana["id"]}})
    assert "Lisbon" in packet["rendered"]
    # Facts about an end user only when the call names that end user.
    assert not any("Lisbon" in f["fact_text"] for f in memoryd.search({"query": "moved to Lisbon", "end_user": {"id": other["id"]}})["facts"])
    listed = memoryd.facts.list({"end_user": dana["id"]})
    assert [f["fact_text"] for f in listed["facts"]] == ["I moved to Lisbon last spring."]


def test_agent_acting(server: Server, memoryd: Memoryd) -> None:
    agent = server.new_agent()
    text = unique("The refund queue is triaged every Tuesday.")
    memoryd.teach({"facts": [{"text": text}], "agent": agent, "scope": "agent"})
    as_agent = memoryd.search({"query": "when is the refund queue triaged?", "agent": agent, "limit": 50})
    assert text in [f["fact_text"] for f in as_agent["facts"]]
    as_nobody = memoryd.search({"query": "when is the refund queue triaged?", "limit": 50})
    assert text not in [f["fact_text"] for f in as_nobody["facts"]]
    assert text in memoryd.context({"query": "refund queue triage", "agent": agent})["rendered"]
    assert text in [f["fact_text"] for f in memoryd.facts.list({"agent": agent, "limit": 200})["facts"]]

    # An agent the workspace does not have is a 422 naming `agent`.
    with pytest.raises(MemorydError) as caught:
        memoryd.search({"query": "refunds", "agent": "no-such-agent"})
    assert caught.value.status == 422
    assert caught.value.code == "validation_error"


def test_as_of_and_observed_times(memoryd: Memoryd) -> None:
    subject = f"Project{uuid.uuid4().hex[:6]}"
    text = f"{subject} shipped its first release in March 2020."
    memoryd.teach({"facts": [{"text": text, "observed_at": "2020-03-15T12:00:00Z"}]})
    query = f"when did {subject} ship?"

    def texts(as_of: str | None = None, after: str | None = None, before: str | None = None) -> list[str]:
        body: RestSearchRequest = {"query": query, "limit": 50}
        if as_of is not None:
            body["as_of"] = as_of
        if after is not None:
            body["observed_after"] = after
        if before is not None:
            body["observed_before"] = before
        return [f["fact_text"] for f in memoryd.search(body)["facts"]]

    assert text in texts()
    assert text not in texts(as_of="2019-01-01T00:00:00Z")
    assert text in texts(as_of="2021-01-01T00:00:00Z")
    assert text in texts(after="2020-01-01T00:00:00Z", before="2020-06-01T00:00:00Z")
    assert text not in texts(after="2020-06-01T00:00:00Z")
    listed = memoryd.facts.list({"as_of": "2019-01-01T00:00:00Z", "subject": subject})
    assert text not in [f["fact_text"] for f in listed["facts"]]

    with pytest.raises(MemorydError) as caught:
        memoryd.search({"query": query, "observed_after": "not a time"})
    assert caught.value.code == "validation_error"
    assert "observed_after" in str(caught.value.details)


def test_facts_api(memoryd: Memoryd) -> None:
    user: EndUser = {"id": f"u-{uuid.uuid4().hex[:8]}"}
    memoryd.teach({"end_user": user, "facts": [{"text": "My manager is Bo."}, {"text": "I prefer tea over coffee."}]})
    first = memoryd.facts.list({"end_user": user["id"], "limit": 1})
    assert len(first["facts"]) == 1 and first["next_cursor"] is not None
    second = memoryd.facts.list({"end_user": user["id"], "limit": 1, "cursor": first["next_cursor"]})
    assert len(second["facts"]) == 1 and second["facts"][0]["fact_id"] != first["facts"][0]["fact_id"]

    # A change of value supersedes: the new fact's history holds the old one.
    changed = memoryd.teach({"end_user": user, "facts": [{"text": "My manager is Cy."}]})
    assert changed["superseded"] == 1
    newest = next(f for f in memoryd.facts.list({"end_user": user["id"]})["facts"] if "Cy" in f["fact_text"])
    history = memoryd.facts.get(newest["fact_id"], {"end_user": user["id"]})
    assert history["fact"]["fact_id"] == newest["fact_id"]
    assert [r["fact_text"] for r in history["replaced"]] == ["My manager is Bo."]

    deleted = memoryd.facts.delete(newest["fact_id"], {"end_user": user["id"]})
    assert deleted["fact_id"] == newest["fact_id"]
    assert len(deleted["restored"]) == 1
    with pytest.raises(MemorydError) as caught:
        memoryd.facts.get(newest["fact_id"], {"end_user": user["id"]})
    assert (caught.value.status, caught.value.code) == (404, "not_found")
    assert "Bo" in memoryd.context({"query": "who is my manager?", "end_user": user})["rendered"]


def test_answers_queued(memoryd: Memoryd) -> None:
    memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})
    queued = memoryd.answers.create({"input": "What does the billing service run on?"})
    assert queued["status"] == "queued"
    answer = memoryd.answers.wait(queued["answer_id"], include_sources=True, timeout=60)
    assert answer["status"] == "completed"
    assert "Postgres 16" in answer["output_text"]
    assert answer["usage"]["input_tokens"] > 0
    assert any("Postgres 16" in s["fact_text"] for s in answer.get("sources", []))
    again = memoryd.answers.get(queued["answer_id"])
    assert again["answer_id"] == queued["answer_id"] and "sources" not in again


def test_answers_idempotency_key(memoryd: Memoryd) -> None:
    idempotency_key = f"key-{uuid.uuid4()}"
    first = memoryd.answers.create({"input": "What does billing run on?"}, idempotency_key=idempotency_key)
    second = memoryd.answers.create({"input": "What does billing run on?"}, idempotency_key=idempotency_key)
    assert first["answer_id"] == second["answer_id"]
    with pytest.raises(MemorydError) as caught:
        memoryd.answers.create({"input": "Something else entirely?"}, idempotency_key=idempotency_key)
    assert (caught.value.status, caught.value.code) == (409, "idempotency_key_reused")
    memoryd.answers.wait(first["answer_id"], timeout=60)


def test_answers_stream(memoryd: Memoryd) -> None:
    memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})
    events: list[AnswerEvent] = list(memoryd.answers.stream({"input": "What does billing run on?", "include": ["sources"]}))
    names = [e["event"] for e in events]
    assert names[0] == "answer.created" and names[-2:] == ["answer.completed", "done"]
    assert set(names[1:-2]) <= {"answer.delta"}
    text = ""
    answer_id = ""
    for event in events:
        if event["event"] == "answer.created":
            answer_id = event["data"]["answer_id"]
        elif event["event"] == "answer.delta":
            text += event["data"]["text"]
        elif event["event"] == "answer.completed":
            assert event["data"]["answer_id"] == answer_id
            assert event["data"]["output_text"] == text
            assert "Postgres 16" in text
        elif event["event"] == "done":
            assert event["data"]["ok"] is True
    # The run belongs to the server: it can be read afterwards.
    assert memoryd.answers.get(answer_id)["status"] == "completed"


def test_answers_stream_leaving_early(memoryd: Memoryd) -> None:
    stream = memoryd.answers.stream({"input": "What does billing run on?"})
    first = next(iter(stream))
    assert first["event"] == "answer.created"
    answer_id = first["data"]["answer_id"]
    stream.close()  # type: ignore[attr-defined]
    assert memoryd.answers.wait(answer_id, timeout=60)["status"] == "completed"


def test_errors(server: Server, memoryd: Memoryd) -> None:
    with Memoryd(server.url, "ak_test_notarealkey0000000000000000000") as stranger:
        with pytest.raises(MemorydError) as caught:
            stranger.whoami()
    assert (caught.value.status, caught.value.code) == (401, "api_key_invalid")
    assert caught.value.request_id

    with pytest.raises(MemorydError) as caught:
        memoryd.teach({"facts": []})
    error = caught.value
    assert (error.status, error.code) == (422, "validation_error")
    assert error.details is not None and [f["path"] for f in error.details["fields"]] == ["facts"]
    assert str(error).startswith("validation_error: ")

    with pytest.raises(MemorydError) as caught:
        list(memoryd.answers.stream({"input": ""}))
    assert caught.value.code == "validation_error"

    with pytest.raises(MemorydError) as caught:
        memoryd.answers.get("ans_does_not_exist")
    assert caught.value.code == "not_found"

    reader = Memoryd(server.url, server.new_key(scopes=["memory.read"]))
    with pytest.raises(MemorydError) as caught:
        reader.teach({"facts": [{"text": "Nope."}]})
    assert (caught.value.status, caught.value.code) == (403, "scope_missing")
    reader.close()


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        Memoryd("localhost:8787", "ak_test_x")
    with pytest.raises(ValueError):
        Memoryd("http://localhost:8787", "")
    with pytest.raises(ValueError):
        Memoryd("http://localhost:8787", "ak_test_x").facts.get("")
