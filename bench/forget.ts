/**
 * Forgetting 100,000 facts by filter while searches keep answering (issue 46: within 10 s on
 * PostgreSQL), beside the same searches before the run, in one process.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/forget.ts [--facts 100000] [--others 50000] [--search-rate 20]
 *
 * Method: a fresh database; one workspace with `--facts` facts about end user "leaving" and
 * `--others` workspace facts, stored with the capture pipeline's insert (`insertFacts`, 5,000 a
 * transaction: the bench measures forgetting, not teaching). The workspace's index is built, then
 * `searchFacts` (limit 10) runs back to back over a few queries for 3 s: the baseline. Then
 * `forgetByFilter({end_user: "leaving"})` runs while searches go on beside it on the same database
 * pool and the same thread: `--search-rate` a second (0: back to back, which leaves the forget
 * only the moments between searches). The forget's wall time and the searches' latencies during it
 * are recorded. Last, a check that no forgotten fact is served and the others are.
 */
import { createWorkspace } from "../src/auth/workspaces";
import { refreshStatistics } from "../src/db/maintenance";
import { insertFacts, type NewFactRow } from "../src/capture/store";
import { sortableId } from "../src/ids";
import { nextFactSeq } from "../src/memory/changes";
import { forgetByFilter, previewForget } from "../src/memory/forget";
import { FactIndexes } from "../src/memory/index/registry";
import { searchFacts } from "../src/memory/search";
import type { ServiceContext } from "../src/service";
import { openBenchDatabase } from "./lib/database";
import { percentile } from "./lib/metrics";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";

const forgotten = Number(argValue("--facts") ?? 100_000);
const others = Number(argValue("--others") ?? 50_000);
const searchRate = Number(argValue("--search-rate") ?? 20);
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const DOCKS = ["north", "south", "east", "west", "harbour", "rail"];
const QUERIES = ["which dock does crate 4711 wait at", "crates at the harbour dock", "rail dock shipments", "what waits at the north dock"];

function row(i: number, endUserId: string | null): NewFactRow {
  const text = `Crate ${i} waits at the ${DOCKS[i % DOCKS.length]} dock with ${i % 7} pallets.`;
  return {
    id: sortableId("fact"),
    text,
    normalized: text.toLowerCase(),
    kind: "observation",
    origin: "ingested",
    subject: endUserId ?? "workspace",
    subjectType: endUserId === null ? "workspace" : "end_user",
    endUserId,
    agent: null,
    confidence: 0.8,
    recordedAt: new Date(Date.now() - i * 1000),
    expiresAt: null,
    sensitive: false,
    pinned: false,
    claimKey: null,
    claimSubject: null,
    claimValue: null,
    claimNegated: false,
  };
}

const p = (xs: number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );

const bench = await openBenchDatabase({ maxConnections: 8 });
try {
  const ws = await createWorkspace(bench.db, "forget-bench", 0);
  await bench.db.sql`INSERT INTO end_users (workspace_id, id) VALUES (${ws.id}, 'leaving')`;
  log(`storing ${forgotten} facts to forget and ${others} to keep (${bench.label})`);
  for (let at = 0; at < forgotten + others; at += 5_000) {
    const rows = Array.from({ length: Math.min(5_000, forgotten + others - at) }, (_, k) => row(at + k, at + k < forgotten ? "leaving" : null));
    await bench.db.transaction(async (tx) => {
      await insertFacts(tx, ws.id, await nextFactSeq(tx, ws.id), rows);
    });
  }
  // Statistics, as the server's maintenance and `facts import` leave them after a bulk load.
  await refreshStatistics(bench.db, ["facts"]);
  const index = new FactIndexes(bench.db, 1024 * 1024 * 1024);
  const ctx: ServiceContext = {
    db: bench.db,
    index,
    caller: { workspaceId: ws.id, keyId: "bench", audience: "internal", channel: "rest", agent: null, boundAgent: null, factSeq: null },
  };
  const asLeaving = { ...ctx, caller: { ...ctx.caller } };
  await index.read(ws.id, null);
  let n = 0;
  const searchOnce = async (): Promise<number> => {
    const started = performance.now();
    await searchFacts(ctx, { query: QUERIES[n++ % QUERIES.length]!, limit: 10 });
    return performance.now() - started;
  };
  const before: number[] = [];
  for (const until = performance.now() + 3_000; performance.now() < until; ) before.push(await searchOnce());

  const { count } = await previewForget(bench.db, ws.id, { end_user: "leaving" });
  log(`forgetting ${count} facts while searching`);
  const during: number[] = [];
  let running = true;
  const started = performance.now();
  const run = forgetByFilter(bench.db, ws.id, { filter: { end_user: "leaving" }, expected_count: count }).finally(() => {
    running = false;
  });
  const searching = (async () => {
    for (let next = performance.now(); running; ) {
      during.push(await searchOnce());
      if (searchRate > 0) {
        next += 1000 / searchRate;
        await Bun.sleep(Math.max(0, next - performance.now()));
      }
    }
  })();
  const result = await run;
  const forgetMs = performance.now() - started;
  await searching;

  const served = await searchFacts(asLeaving, { query: "crate dock", limit: 100, end_user: { id: "leaving" } });
  const leftover = served.facts.filter((f) => f.subject === "leaving").length;
  const kept = (await index.read(ws.id, null)).live;
  console.log(
    [
      `# Bulk forget, ${new Date().toISOString()}`,
      "",
      `${forgotten.toLocaleString("en")} facts about one end user forgotten by filter, beside ${others.toLocaleString("en")} kept, one workspace (${bench.label}).`,
      "",
      "| what | measured | target |",
      "|---|---|---|",
      `| forget ${result.deleted.toLocaleString("en")} facts (${result.status}) | ${(forgetMs / 1000).toFixed(2)} s | <= 10 s |`,
      `| search p50 / p95 before (${before.length} searches) | ${p(before, 50).toFixed(2)} / ${p(before, 95).toFixed(2)} ms | - |`,
      `| search p50 / p95 during the forget (${during.length} searches, ${searchRate > 0 ? `${searchRate} a second` : "back to back"}, every one answered) | ${p(during, 50).toFixed(2)} / ${p(during, 95).toFixed(2)} ms | - |`,
      `| search max during the forget | ${Math.max(...during).toFixed(2)} ms | - |`,
      `| forgotten facts still served afterwards | ${leftover} | 0 |`,
      `| live facts afterwards | ${kept.toLocaleString("en")} | ${others.toLocaleString("en")} |`,
      "",
      ...provenance(),
    ].join("\n"),
  );
} finally {
  await bench.close();
}
