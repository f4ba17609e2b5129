#!/usr/bin/env python3
"""What the Python client costs over a bare httpx request: search p50 through ``Memoryd.search``
and through ``httpx.Client.post`` of the same body, in one run, against the built binary on a fresh
embedded data directory, interleaved so both see the same server. Both use one httpx.Client (one
connection pool); the rate limit (120 requests a minute per key) is met with a fresh key per 100
requests. A second table measures the client alone, in-process, over httpx's MockTransport.

    python3 bench/overhead.py [--binary ../../dist/memoryd] [--requests 400] [--facts 400]

Target: the client's p50 is within 5% of the bare request's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PACKAGE_ROOT / "src"))

from memoryd import Memoryd  # noqa: E402

QUERIES = ["what does billing run on?", "who manages the platform team?", "where is the staging cluster?", "when is the on-call rota changed?"]


def start(binary: Path, data_dir: Path) -> tuple[subprocess.Popen[str], str, str, str]:
    env = {k: v for k, v in os.environ.items() if not re.match(r"^(DATABASE_URL|PORT|HOST|MEMORYD_.*|ANTHROPIC_.*|OPENAI_.*)$", k)}
    proc = subprocess.Popen(
        [str(binary), "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    assert proc.stdout is not None
    text = ""
    for line in proc.stdout:
        text += line
        if "memoryd listening on" in line:
            break
    threading.Thread(target=lambda: [None for _ in proc.stdout or []], daemon=True).start()
    url = re.search(r"memoryd listening on (http://\S+)", text)
    key = re.search(r"API key \(shown once[^)]*\)[^:]*:\s*(ak_\w+)", text)
    admin = re.search(r"Admin token[^:]*:\s*(adm_\w+)", text)
    if not (url and key and admin):
        proc.kill()
        raise SystemExit(f"memoryd did not start:\n{text}")
    return proc, url.group(1), key.group(1), admin.group(1)


def new_key(url: str, admin: str) -> str:
    body = json.dumps({"name": f"bench-{time.monotonic_ns()}", "scopes": ["memory.read", "memory.write"]}).encode()
    request = urllib.request.Request(
        url + "/v1/admin/workspaces/default/keys", data=body, method="POST", headers={"authorization": f"Bearer {admin}", "content-type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return str(json.loads(response.read())["data"]["secret"])


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": statistics.median(ordered) * 1000,
        "p90": ordered[int(len(ordered) * 0.9)] * 1000,
        "mean": statistics.fmean(ordered) * 1000,
    }


def against_binary(binary: Path, requests: int, facts: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-") as tmp:
        proc, url, key, admin = start(binary, Path(tmp) / "data")
        try:
            http = httpx.Client(timeout=30)
            seed = Memoryd(url, key, http_client=http)
            subjects = ["billing", "the platform team", "the staging cluster", "the on-call rota", "the data team", "search", "payments", "the web app"]
            for start_at in range(0, facts, 20):
                seed.teach({"facts": [{"text": f"Note {i}: {subjects[i % len(subjects)]} detail number {i} is recorded here."} for i in range(start_at, min(facts, start_at + 20))]})
            seed.teach({"facts": [{"text": "The billing service runs on Postgres 16."}, {"text": "Priya manages the platform team."}]})

            client_times: list[float] = []
            bare_times: list[float] = []
            keys: list[str] = []

            def key_for(n: int) -> str:
                while len(keys) <= n // 50:  # 2 requests per round: 100 requests per key
                    keys.append(new_key(url, admin))
                return keys[n // 50]

            warmup = 20
            for n in range(requests // 2 + warmup):
                api_key = key_for(n)
                memoryd = Memoryd(url, api_key, http_client=http)
                body = {"query": QUERIES[n % len(QUERIES)], "limit": 10}
                headers = {"authorization": f"Bearer {api_key}"}

                def via_client() -> Any:
                    return memoryd.search({"query": str(body["query"]), "limit": 10})

                def via_httpx() -> Any:
                    response = http.post(url + "/v1/memory/search", json=body, headers=headers)
                    response.raise_for_status()
                    return response.json()["data"]

                order: list[tuple[Callable[[], Any], list[float]]] = [(via_client, client_times), (via_httpx, bare_times)]
                if n % 2:
                    order.reverse()
                for call, times in order:
                    started = time.perf_counter()
                    result = call()
                    elapsed = time.perf_counter() - started
                    assert result["facts"], "search found nothing"
                    if n >= warmup:
                        times.append(elapsed)
            http.close()
            return {"memoryd.Memoryd.search": summary(client_times), "httpx.Client.post": summary(bare_times)}
        finally:
            proc.terminate()
            proc.wait(15)


def in_process(requests: int) -> dict[str, dict[str, float]]:
    """The client's own cost: the same two calls over a transport that answers at once."""
    payload = json.dumps({"data": {"facts": [{"fact_id": "fact_1", "fact_text": "x" * 80, "kind": "observation"}] * 10}}).encode()
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=payload, headers={"content-type": "application/json"}))
    http = httpx.Client(transport=transport)
    memoryd = Memoryd("http://memoryd.test", "ak_test_x", http_client=http)
    headers = {"authorization": "Bearer ak_test_x"}
    client_times: list[float] = []
    bare_times: list[float] = []
    for n in range(requests + 200):
        started = time.perf_counter()
        memoryd.search({"query": "what does billing run on?", "limit": 10})
        middle = time.perf_counter()
        http.post("http://memoryd.test/v1/memory/search", json={"query": "what does billing run on?", "limit": 10}, headers=headers).json()["data"]
        end = time.perf_counter()
        if n >= 200:
            client_times.append(middle - started)
            bare_times.append(end - middle)
    return {"memoryd.Memoryd.search": summary(client_times), "httpx.Client.post": summary(bare_times)}


def table(title: str, rows: dict[str, dict[str, float]], unit: str = "ms") -> str:
    scale = 1000 if unit == "µs" else 1
    client, bare = rows["memoryd.Memoryd.search"], rows["httpx.Client.post"]
    lines = [f"{title}", "", f"| call | p50 {unit} | p90 {unit} | mean {unit} |", "|---|---:|---:|---:|"]
    for name, s in rows.items():
        lines.append(f"| `{name}` | {s['p50'] * scale:.3f} | {s['p90'] * scale:.3f} | {s['mean'] * scale:.3f} |")
    overhead = (client["p50"] - bare["p50"]) / bare["p50"] * 100
    lines.append(f"| overhead of the client | {overhead:+.1f}% | | {(client['mean'] - bare['mean']) * scale:+.3f} {unit} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="search p50: the Python client vs a bare httpx request")
    parser.add_argument("--binary", type=Path, default=Path(os.environ.get("MEMORYD_BINARY") or PACKAGE_ROOT.parent.parent / "dist" / "memoryd"))
    parser.add_argument("--requests", type=int, default=400, help="searches against the binary, half through each path")
    parser.add_argument("--facts", type=int, default=400, help="facts taught first")
    parser.add_argument("--max-overhead", type=float, default=5.0, help="exit 1 when the client's p50 overhead is above this percentage")
    args = parser.parse_args()
    live = against_binary(args.binary, args.requests, args.facts)
    local = in_process(2000)
    print(f"Python {sys.version.split()[0]}, httpx {httpx.__version__}, {args.requests // 2} searches each over {args.facts + 2} facts\n")
    print(table("Against the binary (embedded database, loopback):", live))
    print()
    print(table("The client alone (httpx.MockTransport, no network):", local, unit="µs"))
    overhead = (live["memoryd.Memoryd.search"]["p50"] - live["httpx.Client.post"]["p50"]) / live["httpx.Client.post"]["p50"] * 100
    return 0 if overhead <= args.max_overhead else 1


if __name__ == "__main__":
    sys.exit(main())
