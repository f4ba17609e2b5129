"""The answers worker from asyncio: a queued answer polled to the end, then one streamed as it is
written. Cancelling the task (Ctrl-C, a timeout) cancels the request."""

import asyncio
import os

from memoryd import AsyncMemoryd


async def main() -> None:
    async with AsyncMemoryd(os.environ.get("MEMORYD_URL", "http://127.0.0.1:8787"), os.environ["MEMORYD_KEY"]) as memoryd:
        await memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})

        queued = await memoryd.answers.create({"input": "What does billing run on?"})
        answer = await memoryd.answers.wait(queued["answer_id"], timeout=60)
        print(answer["status"], answer["output_text"])

        async for event in memoryd.answers.stream({"input": "What does billing run on?"}):
            if event["event"] == "answer.delta":
                print(event["data"]["text"], end="", flush=True)
            elif event["event"] == "answer.failed":
                print("failed:", event["data"]["error"]["message"])
        print()


asyncio.run(main())
