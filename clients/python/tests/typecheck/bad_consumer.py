"""Mistakes mypy must catch: each line marked ``# error: CODE`` is an error of that code, and
there is no other (tests/test_typing.py)."""

from __future__ import annotations

from memoryd import Memoryd


def app(memoryd: Memoryd) -> None:
    memoryd.teach({"fact": [{"text": "x"}]})  # error: typeddict-unknown-key|typeddict-item
    memoryd.search({"query": 42})  # error: typeddict-item
    memoryd.search({"limit": 5})  # error: typeddict-item
    memoryd.teach_messages({"messages": [{"role": "robot", "content": "hi"}]})  # error: typeddict-item
    memoryd.teach({"facts": [{"text": "x"}], "scope": "everyone"})  # error: typeddict-item
    memoryd.facts.list({"limit": "10"})  # error: typeddict-item
    memoryd.answers.create({"input": "x", "include": ["everything"]})  # error: list-item
    result = memoryd.search({"query": "x"})
    result["fact"]  # error: typeddict-item
    for event in memoryd.answers.stream({"input": "x"}):
        event["data"]["text"]  # error: typeddict-item
    memoryd.answers.get(42)  # error: arg-type
