"""UNTESTED (Pydantic AI is not installed where memoryd's tests run): a Pydantic AI agent with
memoryd's MCP tool server as a toolset.

    pip install "pydantic-ai-slim[openai,mcp]"
    OPENAI_API_KEY=sk-... MEMORYD_KEY=ak_... python3 mcp_pydantic_ai.py
"""

import asyncio
import os

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPServerStreamableHTTP

memoryd = MCPServerStreamableHTTP(
    os.environ.get("MEMORYD_URL", "http://127.0.0.1:8787") + "/v1/mcp",
    headers={"Authorization": f"Bearer {os.environ['MEMORYD_KEY']}"},
)
agent = Agent(
    "openai:gpt-4.1-mini",
    instructions="Search memory before you answer; teach memory what the user tells you about themselves.",
    toolsets=[memoryd],
)


async def main() -> None:
    async with agent:
        result = await agent.run("What do you remember about where I live?")
        print(result.output)


asyncio.run(main())
