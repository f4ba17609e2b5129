"""Every REST route docs/api.md lists for key holders has a method in both clients, under the same
name as the TypeScript client's (snake_case), and the route tables of the two clients agree."""

from __future__ import annotations

import inspect
import re
from typing import Any

from conftest import REPO_ROOT

from memoryd import CLIENT_ROUTES, AsyncMemoryd, Memoryd


def documented_routes() -> set[str]:
    api = (REPO_ROOT / "docs" / "api.md").read_text()
    # The first table's rows: "| `METHOD /v1/...` | scope | ...", MCP being JSON-RPC rather than REST.
    return set(re.findall(r"^\| `((?:GET|POST|DELETE|PATCH|PUT) /v1/(?!admin/|mcp)[^`]*)` \|", api, re.M))


def typescript_routes() -> dict[str, str]:
    source = (REPO_ROOT / "src" / "client" / "index.ts").read_text()
    table = re.search(r"export const CLIENT_ROUTES = \{(.*?)\} as const;", source, re.S)
    assert table, "CLIENT_ROUTES not found in src/client/index.ts"
    return dict(re.findall(r'^\s*"?([\w.]+)"?: "([A-Z]+ [^"]+)",', table.group(1), re.M))


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def method_of(client: Any, name: str) -> Any:
    for part in name.split("."):
        client = getattr(client, part)
    return client


def test_every_documented_key_holder_route_has_a_method() -> None:
    documented = documented_routes()
    assert len(documented) > 5
    assert set(CLIENT_ROUTES.values()) == documented


def test_the_python_and_typescript_route_tables_agree() -> None:
    assert {snake(name): route for name, route in typescript_routes().items()} == CLIENT_ROUTES


def test_both_clients_have_every_method() -> None:
    sync = Memoryd("http://127.0.0.1:1", "ak_test_x")
    asynchronous = AsyncMemoryd("http://127.0.0.1:1", "ak_test_x")
    names = [*CLIENT_ROUTES, "answers.wait", "answers.stream"]
    for name in names:
        assert callable(method_of(sync, name)), name
        method = method_of(asynchronous, name)
        assert inspect.iscoroutinefunction(method) or name == "answers.stream", name
        sync_params = list(inspect.signature(method_of(sync, name)).parameters)
        assert sync_params == list(inspect.signature(method).parameters), name
    sync.close()
