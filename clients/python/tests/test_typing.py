"""The types cannot drift and do their job: types.py is what the generator makes of the running
server's OpenAPI document; mypy --strict passes the package, the examples, a consumer that uses
every method (and these tests, the generator and the bench), and reports each mistake of a bad
consumer where it is."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import PACKAGE_ROOT, Server

TYPES_FILE = PACKAGE_ROOT / "src" / "memoryd" / "types.py"
TYPECHECK = PACKAGE_ROOT / "tests" / "typecheck"
#: The examples that run here (the agent frameworks' need packages this machine has not got).
TYPED_EXAMPLES = [PACKAGE_ROOT / "examples" / name for name in ("quickstart.py", "chat_loop.py", "answers.py", "mcp_jsonrpc.py")]


def load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_types", PACKAGE_ROOT / "scripts" / "generate_types.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_types"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_types_py_is_generated_from_the_servers_openapi_document(server: Server) -> None:
    with urllib.request.urlopen(server.url + "/openapi.json", timeout=30) as response:
        document = json.loads(response.read())
    generated = load_generator().Generator(document).generate()
    assert generated == TYPES_FILE.read_text(), "src/memoryd/types.py is out of date: run python3 scripts/generate_types.py"


def test_the_generator_names_query_types_and_refuses_unnamed_ones() -> None:
    generator = load_generator()
    document = {
        "paths": {
            "/v1/things": {
                "get": {
                    "security": [{"bearerKey": []}],
                    "parameters": [{"name": "limit", "in": "query", "required": True, "schema": {"type": "integer", "default": 5}}],
                    "responses": {},
                }
            }
        },
        "components": {"schemas": {"ErrorEnvelope": {"type": "object", "properties": {}}}},
    }
    with pytest.raises(SystemExit, match="QUERY_TYPES"):
        generator.Generator(document).generate()


def mypy(*files: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": f"{PACKAGE_ROOT / 'src'}:{PACKAGE_ROOT / 'tests'}"}
    command = [sys.executable, "-m", "mypy", "--config-file", str(PACKAGE_ROOT / "pyproject.toml"), "--cache-dir", str(cache), "--no-error-summary"]
    return subprocess.run([*command, *map(str, files)], cwd=PACKAGE_ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def test_mypy_strict_passes_the_package_the_examples_and_a_consumer(mypy_cache: Path) -> None:
    ours = [PACKAGE_ROOT / "scripts" / "generate_types.py", PACKAGE_ROOT / "bench" / "overhead.py", *sorted((PACKAGE_ROOT / "tests").glob("*.py"))]
    result = mypy(PACKAGE_ROOT / "src" / "memoryd", TYPECHECK / "good_consumer.py", *TYPED_EXAMPLES, *ours, cache=mypy_cache)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_reports_every_wrong_body(mypy_cache: Path) -> None:
    bad = TYPECHECK / "bad_consumer.py"
    expected: dict[int, set[str]] = {}
    for number, line in enumerate(bad.read_text().splitlines(), start=1):
        marker = re.search(r"# error: ([\w|-]+)$", line)
        if marker:
            expected[number] = set(marker.group(1).split("|"))
    result = mypy(bad, cache=mypy_cache)
    assert result.returncode == 1, result.stdout + result.stderr
    reported: dict[int, set[str]] = {}
    for match in re.finditer(r"^[^:\n]+:(\d+): error: .*\[([\w-]+)\]$", result.stdout, re.M):
        reported.setdefault(int(match.group(1)), set()).add(match.group(2))
    assert sorted(reported) == sorted(expected), result.stdout
    for number, codes in reported.items():
        assert codes & expected[number], f"line {number}: {codes} not in {expected[number]}\n{result.stdout}"
    assert len(expected) >= 10
