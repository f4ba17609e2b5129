"""The examples run against the built binary, and docs/clients.md shows them as they are: each
```python block there that names an example file is that file, word for word."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PACKAGE_ROOT, REPO_ROOT, Server

EXAMPLES = PACKAGE_ROOT / "examples"
#: Need an agent framework this machine cannot install: shown in the docs, marked untested.
UNTESTED = {"mcp_openai_agents.py", "mcp_pydantic_ai.py"}


def run_example(name: str, server: Server, key: str, *args: str) -> str:
    env = {**os.environ, "MEMORYD_URL": server.url, "MEMORYD_KEY": key, "PYTHONPATH": str(PACKAGE_ROOT / "src")}
    env.pop("OPENAI_API_KEY", None)  # the chat loop's stub model, not a paid call
    result = subprocess.run([sys.executable, str(EXAMPLES / name), *args], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{name} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    assert result.stderr == "", result.stderr
    return result.stdout


def test_every_example_is_run_here_or_marked_untested() -> None:
    tested = {"quickstart.py", "chat_loop.py", "answers.py", "mcp_jsonrpc.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested | UNTESTED


def test_quickstart(server: Server, key: str) -> None:
    out = run_example("quickstart.py", server, key)
    assert out.splitlines()[0].startswith("The billing service runs on Postgres 16.")  # other tests taught it too
    assert "<workspace_memory>" in out


def test_chat_loop_remembers_across_turns(server: Server, key: str) -> None:
    out = run_example("chat_loop.py", server, key, "I moved to Lisbon last spring and I have two cats.", "Where do I live these days?")
    lines = out.splitlines()
    assert "(remembered: ['I moved to Lisbon last spring.', 'I have two cats.'])" in lines
    assert lines[-1].startswith("assistant: From what you told me before:") and "Lisbon" in lines[-1]


def test_answers(server: Server, key: str) -> None:
    out = run_example("answers.py", server, key)
    assert out.startswith("completed ")
    assert out.count("Postgres 16") >= 2


def test_mcp_jsonrpc(server: Server, key: str) -> None:
    out = run_example("mcp_jsonrpc.py", server, key)
    assert "tools: whoami, search_memory" in out
    assert 'found: ["The on-call rota changes every Monday."' in out


def test_docs_show_the_examples_as_they_are() -> None:
    docs = (REPO_ROOT / "docs" / "clients.md").read_text()
    blocks = re.findall(r"```python\n# (clients/python/examples/\S+\.py)\n(.*?)```", docs, re.S)
    shown = {Path(path).name for path, _ in blocks}
    assert shown == {p.name for p in EXAMPLES.glob("*.py")}, "docs/clients.md should show every example"
    for path, code in blocks:
        assert code == (REPO_ROOT / path).read_text(), f"docs/clients.md's copy of {path} differs from the file"
    for name in UNTESTED:  # said where it is shown: the paragraph before its block
        block = docs.index(f"```python\n# clients/python/examples/{name}")
        assert "untested" in docs[docs.rfind("\n\n", 0, block - 2) : block].lower(), f"{name} should be marked untested in docs/clients.md"
    for name in {p.name for p in EXAMPLES.glob("*.py")} - UNTESTED:
        block = docs.index(f"```python\n# clients/python/examples/{name}")
        assert "untested" not in docs[docs.rfind("\n\n", 0, block - 2) : block].lower(), name


@pytest.mark.parametrize("name", sorted(UNTESTED))
def test_untested_examples_at_least_compile(name: str) -> None:
    compile((EXAMPLES / name).read_text(), name, "exec")


def test_the_readme_example_runs(server: Server, key: str, tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (REPO_ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1
    script = tmp_path / "readme_example.py"
    script.write_text(blocks[0])
    env = {**os.environ, "MEMORYD_URL": server.url, "MEMORYD_KEY": key, "PYTHONPATH": str(PACKAGE_ROOT / "src")}
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Lisbon" in result.stdout and "<workspace_memory>" in result.stdout
