"""memoryd's MCP tool server from plain Python, no framework: the JSON-RPC calls an MCP client
makes (initialize, tools/list, tools/call) over Streamable HTTP, with httpx."""

import json
import os
from typing import Any

import httpx

url = os.environ.get("MEMORYD_URL", "http://127.0.0.1:8787") + "/v1/mcp"
headers = {"authorization": f"Bearer {os.environ['MEMORYD_KEY']}", "accept": "application/json, text/event-stream"}


def rpc(client: httpx.Client, method: str, params: dict[str, Any], id: int) -> Any:
    response = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    response.raise_for_status()
    message = response.json()
    if "error" in message:
        raise RuntimeError(message["error"])
    return message["result"]


with httpx.Client(timeout=30) as client:
    init = rpc(client, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "example", "version": "1"}}, 1)
    print("server:", init["serverInfo"]["name"], init["protocolVersion"])
    tools = rpc(client, "tools/list", {}, 2)["tools"]
    print("tools:", ", ".join(tool["name"] for tool in tools))
    rpc(client, "tools/call", {"name": "teach_memory", "arguments": {"facts": [{"text": "The on-call rota changes every Monday."}]}}, 3)
    found = rpc(client, "tools/call", {"name": "search_memory", "arguments": {"query": "when does the on-call rota change?"}}, 4)
    print("found:", json.dumps([fact["fact_text"] for fact in found["structuredContent"]["facts"]]))
