import { afterAll, describe, expect, test } from "bun:test";
import { createPostgresDatabase, dropPostgresDatabase } from "../helpers/databases";
import { cleanup, request, startServer, tempDir, type StartOptions } from "./binary";

afterAll(cleanup, 30_000);

const modes = process.env.TEST_DATABASE_URL ? (["embedded", "postgres"] as const) : (["embedded"] as const);
const post = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const metric = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);

/** Teaches 300 facts, searches (the build writes a snapshot), restarts, searches again from it. */
async function restartFromSnapshot(target: StartOptions): Promise<void> {
  const first = await startServer(target);
  const key = first.secret!;
  for (let call = 0; call < 15; call++) {
    const facts = Array.from({ length: 20 }, (_, i) => ({ text: `Crate ${call * 20 + i} waits at the ${i % 2 === 0 ? "north" : "south"} depot.` }));
    expect((await request(first.url, "/v1/memory/facts", { key, ...post({ facts }) })).status).toBe(202);
  }
  const query = { query: "crate 117 north depot", limit: 5 };
  const before = await request(first.url, "/v1/memory/search", { key, ...post(query) });
  expect(before.json.data.facts[0].fact_text).toBe("Crate 117 waits at the south depot.");
  expect(metric((await request(first.url, "/metrics")).text, "memoryd_index_snapshot_builds_total")).toBe(0);
  // Shutdown waits for the snapshot written after that first build.
  expect(await first.stop("SIGTERM")).toBe(0);

  const second = await startServer(target);
  const after = await request(second.url, "/v1/memory/search", { key, ...post(query) });
  expect(after.json.data).toEqual(before.json.data);
  const metrics = (await request(second.url, "/metrics")).text;
  expect(metric(metrics, "memoryd_index_builds_total")).toBe(1);
  expect(metric(metrics, "memoryd_index_snapshot_builds_total")).toBe(1);
  expect(await second.stop("SIGTERM")).toBe(0);
}

/** The shipped binary writes a workspace's index snapshot and a restarted one starts from it. */
describe("index snapshots (binary)", () => {
  for (const mode of modes) {
    test(`[${mode}] a restart serves the same search from the stored snapshot`, async () => {
      const target: StartOptions = mode === "postgres" ? { databaseUrl: await createPostgresDatabase() } : { dataDir: tempDir() };
      try {
        await restartFromSnapshot(target);
      } finally {
        if (target.databaseUrl) await dropPostgresDatabase(target.databaseUrl);
      }
    });
  }
});
