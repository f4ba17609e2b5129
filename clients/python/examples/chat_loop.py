"""A chat loop with memory, in the shape of OpenAI's Chat Completions API: before each model call
the memory block for the user's message joins the system prompt (context), and after it the turn
is taught (teach_messages), so the next conversation starts knowing what this one said.

    MEMORYD_KEY=ak_... python3 chat_loop.py "I moved to Lisbon last spring." "Where do I live?"

With the openai package installed and OPENAI_API_KEY set it calls OPENAI_MODEL (default
gpt-4.1-mini); otherwise a stub model stands in, answering from the memory block, so the loop runs
anywhere.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from memoryd import Memoryd, MemorydError
from memoryd.types import EndUser

ChatModel = Callable[[list[dict[str, str]]], str]


def stub_model(messages: list[dict[str, str]]) -> str:
    """Stands in for a chat model: repeats what the memory block says, the way a model would use it."""
    remembered = [line.split("] ", 1)[1] for line in messages[0]["content"].splitlines() if line.startswith("[") and "] " in line]
    if not remembered:
        return "I don't know anything about that yet."
    return "From what you told me before: " + " ".join(remembered)


def openai_model() -> ChatModel | None:
    """OpenAI's Chat Completions API, when the package and a key are there."""
    if not os.environ.get("OPENAI_API_KEY"):
        return None
    try:
        openai: Any = importlib.import_module("openai")
    except ImportError:
        return None
    client = openai.OpenAI()
    model = os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")

    def call(messages: list[dict[str, str]]) -> str:
        completion = client.chat.completions.create(model=model, messages=messages)
        return str(completion.choices[0].message.content or "")

    return call


def chat(memoryd: Memoryd, model: ChatModel, user: EndUser, turns: list[str]) -> None:
    history: list[dict[str, str]] = []
    for text in turns:
        # 1. What memory knows that bears on this message, as a block for the system prompt.
        try:
            memory = memoryd.context({"query": text, "end_user": user, "token_budget": 800})["rendered"]
        except MemorydError as error:  # memory is an aid: answer without it rather than fail
            print(f"(memory skipped: {error})", file=sys.stderr)
            memory = ""
        system = {"role": "system", "content": f"You are a helpful assistant.\n\n{memory}"}
        # 2. The model call, with the conversation so far.
        reply = model([system, *history, {"role": "user", "content": text}])
        print(f"user: {text}\nassistant: {reply}")
        history += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
        # 3. Teach the turn: memoryd keeps the user's statements, never the assistant's words as the user's.
        taught = memoryd.teach_messages(
            {"end_user": user, "messages": [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]}
        )
        if taught["statements"]:
            print(f"(remembered: {taught['statements']})")


def main() -> None:
    turns = sys.argv[1:] or ["Hi! I moved to Lisbon last spring and I have two cats.", "Where do I live these days?"]
    user: EndUser = {"id": os.environ.get("CHAT_USER", "chat-demo-user"), "name": "Ana"}
    with Memoryd(os.environ.get("MEMORYD_URL", "http://127.0.0.1:8787"), os.environ["MEMORYD_KEY"]) as memoryd:
        chat(memoryd, openai_model() or stub_model, user, turns)


if __name__ == "__main__":
    main()
