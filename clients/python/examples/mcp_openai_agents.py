"""UNTESTED (the OpenAI Agents SDK is not installed where memoryd's tests run): an agent of the
OpenAI Agents SDK with memoryd's MCP tool server, so the model itself searches and teaches memory.

    pip install openai-agents
    OPENAI_API_KEY=sk-... MEMORYD_KEY=ak_... python3 mcp_openai_agents.py
"""

import asyncio
import os

from agents import Agent, Runner
from agents.mcp import MCPServerStreamableHttp


async def main() -> None:
    async with MCPServerStreamableHttp(
        name="memoryd",
        params={
            "url": os.environ.get("MEMORYD_URL", "http://127.0.0.1:8787") + "/v1/mcp",
            "headers": {"Authorization": f"Bearer {os.environ['MEMORYD_KEY']}"},
        },
        cache_tools_list=True,
    ) as memoryd:
        agent = Agent(
            name="Assistant",
            instructions="Search memory before you answer; teach memory what the user tells you about themselves.",
            mcp_servers=[memoryd],
        )
        result = await Runner.run(agent, "I moved to Lisbon last spring. Any tips for this weekend?")
        print(result.final_output)


asyncio.run(main())
