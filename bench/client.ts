/**
 * What memoryd/client adds over a bare fetch (issue 44's target: at most 5 % of search p50), in
 * one run against the compiled binary on the embedded database.
 *
 *   bun bench/client.ts [--requests 1000] [--facts 5000]
 *
 * Method: a fresh data directory; `facts import` of `--facts` short synthetic facts; enough keys
 * created up front to stay under the rate limit (120 requests a minute a key; 100 requests each);
 * then `memoryd serve`. The same search requests (limit 10, a rotating set of queries) are sent
 * one at a time, alternating between a bare `fetch` (the request built and the envelope's data read
 * by hand) and `client.search`, so load on the machine hits both alike. Prints p50/p95 of each and
 * the client's extra at p50 as a share of the bare p50. The client is the one the npm package
 * ships (dist/pkg, built here by scripts/pack.ts). Needs dist/memoryd (`bun run build`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPackage, PACKAGE_DIR } from "../scripts/pack";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { spawnUntil } from "./support/procs";
import { provenance } from "./support/provenance";

const BINARY = join(import.meta.dir, "..", "dist", "memoryd");
await buildPackage();
const { Memoryd } = (await import(join(PACKAGE_DIR, "client", "index.js"))) as typeof import("../src/client");
const requests = Number(argValue("--requests") ?? 1000);
const factCount = Number(argValue("--facts") ?? 5000);
const REQUESTS_PER_KEY = 100;
const QUERIES = ["who manages billing", "where is the staging server", "what does Lena prefer", "when are invoices due", "which team owns search"];
const TEAMS = ["billing", "search", "payments", "growth", "platform", "support"];
const PEOPLE = ["Ana", "Bo", "Cy", "Dana", "Eli", "Lena", "Marco", "Priya"];

function facts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const team = TEAMS[i % TEAMS.length]!;
    const person = PEOPLE[(i * 7) % PEOPLE.length]!;
    return `Ticket ${i}: ${person} from the ${team} team asked about the staging server in region ${i % 13}.`;
  });
}

async function cli(dataDir: string, args: string[]): Promise<string> {
  const proc = Bun.spawn([BINARY, ...args, "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe", env: { ...process.env, MEMORYD_LOG_LEVEL: "warn" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`memoryd ${args.join(" ")} exited ${code}: ${err}`);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "memoryd-client-bench-"));
const dataDir = join(dir, "data");
try {
  await cli(dataDir, ["migrate"]);
  await cli(dataDir, ["workspaces", "create", "bench"]);
  const file = join(dir, "facts.jsonl");
  writeFileSync(
    file,
    `${facts(factCount)
      .map((text) => JSON.stringify({ text }))
      .join("\n")}\n`,
  );
  await cli(dataDir, ["facts", "import", file, "--workspace", "bench", "--json"]);
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil((2 * requests + 20) / REQUESTS_PER_KEY); i++) {
    const out = await cli(dataDir, ["keys", "create", "--workspace", "bench", "--name", `bench-${i}`, "--scopes", "memory.read", "--json"]);
    keys.push(String((JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { secret?: string }).secret));
  }
  const server = await spawnUntil([BINARY, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], /memoryd listening on (http:\/\/\S+)/, {
    env: { MEMORYD_LOG_LEVEL: "warn" },
    cwd: dir,
  });
  try {
    let sent = 0;
    const nextKey = (): string => keys[Math.floor(sent++ / REQUESTS_PER_KEY)]!;
    const bare = async (query: string): Promise<number> => {
      const started = performance.now();
      const res = await fetch(`${server.url}/v1/memory/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${nextKey()}`, "content-type": "application/json" },
        body: JSON.stringify({ query, limit: 10 }),
      });
      const json = (await res.json()) as { data?: { facts: unknown[] } };
      if (!res.ok || json.data === undefined) throw new Error(`bare search: HTTP ${res.status}`);
      return performance.now() - started;
    };
    const clients = keys.map((apiKey) => new Memoryd({ baseUrl: server.url, apiKey }));
    const viaClient = async (query: string): Promise<number> => {
      const client = clients[Math.floor(sent++ / REQUESTS_PER_KEY)]!;
      const started = performance.now();
      await client.search({ query, limit: 10 });
      return performance.now() - started;
    };
    for (let i = 0; i < 10; i++) {
      await bare(QUERIES[i % QUERIES.length]!);
      await viaClient(QUERIES[i % QUERIES.length]!);
    }
    const bareMs: number[] = [];
    const clientMs: number[] = [];
    for (let i = 0; i < requests; i++) {
      const query = QUERIES[i % QUERIES.length]!;
      bareMs.push(await bare(query));
      clientMs.push(await viaClient(query));
    }
    const p = (xs: number[], q: number): number =>
      percentile(
        [...xs].sort((a, b) => a - b),
        q,
      );
    const extra = p(clientMs, 50) - p(bareMs, 50);
    const out = [
      `# memoryd/client over a bare fetch, ${new Date().toISOString()}`,
      `search (limit 10) on ${factCount.toLocaleString("en")} facts, embedded database, ${requests} requests each, alternating`,
      "",
      "| | p50 | p95 |",
      "|---|---|---|",
      `| bare fetch | ${p(bareMs, 50).toFixed(3)} ms | ${p(bareMs, 95).toFixed(3)} ms |`,
      `| client.search | ${p(clientMs, 50).toFixed(3)} ms | ${p(clientMs, 95).toFixed(3)} ms |`,
      `| client's extra at p50 | ${extra.toFixed(3)} ms (${((extra / p(bareMs, 50)) * 100).toFixed(1)} % of bare; goal <= 5 %) | |`,
      "",
      ...provenance(BINARY),
    ];
    console.log(out.join("\n"));
  } finally {
    await server.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
