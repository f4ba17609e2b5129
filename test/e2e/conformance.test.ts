/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the compiled
 * `dist/memoryd` (embedded, fresh data dir). The suite sends no Authorization header, so it talks
 * to a tiny loopback proxy that forwards every request to /v1/mcp with the bootstrap key added,
 * passing Host and Origin through unchanged (the DNS-rebinding scenario depends on them).
 *
 * The suite needs Node >= 22 APIs; it runs under Bun. Only the scenarios that apply to a server
 * without the suite's fixture tools, resources and prompts are run, so no baseline of expected
 * failures is needed: every check must be SUCCESS.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { cleanup, ensureBinary, REPO_ROOT, startServer, tempDir, waitReady, type ServerHandle } from "./binary";

setDefaultTimeout(120_000);

const CONFORMANCE = join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

interface Check {
  id: string;
  name: string;
  status: string;
  errorMessage?: string;
}

interface SuiteRun {
  code: number;
  stdout: string;
  stderr: string;
  checks: Check[];
}

/** Runs one server scenario of the suite and collects its checks from the output directory. */
async function runScenario(url: string, scenario: string): Promise<SuiteRun> {
  const outDir = tempDir("memoryd-conformance-");
  const proc = Bun.spawn([process.execPath, CONFORMANCE, "server", "--url", url, "--scenario", scenario, "-o", outDir], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const checks: Check[] = [];
    for (const file of new Bun.Glob("**/checks.json").scanSync({ cwd: outDir })) {
      checks.push(...(JSON.parse(readFileSync(join(outDir, file), "utf8")) as Check[]));
    }
    return { code, stdout, stderr, checks };
  } finally {
    clearTimeout(timer);
  }
}

describe("MCP conformance suite against dist/memoryd [embedded]", () => {
  let server: ServerHandle;
  let proxy: Server<undefined>;
  let proxyUrl: string;
  /** What reached the proxy, to show the suite really went through it. */
  const seen: { method: string; host: string | null; origin: string | null; status: number }[] = [];

  beforeAll(async () => {
    await ensureBinary();
    server = await startServer({ dataDir: join(tempDir("memoryd-e2e-conformance-"), "data"), env: { MEMORYD_LOG_LEVEL: "warn" } });
    await waitReady(server.url);
    const secret = server.secret;
    if (!secret) throw new Error(`no bootstrap key printed:\n${server.stdout()}`);
    const target = `${server.url}/v1/mcp`;
    proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const headers = new Headers(req.headers);
        headers.set("authorization", `Bearer ${secret}`);
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
        const res = await fetch(target, { method: req.method, headers, body, redirect: "manual" });
        seen.push({ method: req.method, host: req.headers.get("host"), origin: req.headers.get("origin"), status: res.status });
        const out = new Headers(res.headers);
        // fetch already decoded the body; don't let the client decode it twice
        out.delete("content-encoding");
        out.delete("content-length");
        return new Response(res.body, { status: res.status, headers: out });
      },
    });
    proxyUrl = `http://127.0.0.1:${proxy.port}/mcp`;
  }, 300_000);

  afterAll(async () => {
    proxy?.stop(true);
    await server?.stop();
    await cleanup();
  });

  for (const scenario of SCENARIOS) {
    test(`scenario ${scenario}: exit 0, every check SUCCESS`, async () => {
      const run = await runScenario(proxyUrl, scenario);
      const summary = run.checks.map((c) => ({ id: c.id, status: c.status, ...(c.errorMessage ? { error: c.errorMessage } : {}) }));
      if (run.code !== 0 || run.checks.some((c) => c.status !== "SUCCESS")) {
        console.error(`conformance ${scenario} (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
      }
      expect(summary.length).toBeGreaterThan(0);
      expect(summary.filter((c) => c.status !== "SUCCESS")).toEqual([]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("0 failed");
    });
  }

  test("the suite went through the proxy: the rebinding attempt was refused, loopback requests served", () => {
    expect(seen.some((r) => r.host === "evil.example.com" && r.status === 403)).toBe(true);
    expect(seen.some((r) => r.method === "POST" && r.status === 200)).toBe(true);
    expect(seen.filter((r) => r.status >= 500)).toEqual([]);
  });
});
