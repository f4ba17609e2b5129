/**
 * `as_of` over random histories on both databases: the facts a read returns as of an instant are
 * exactly those a reference SQL query says were memory then (observed by then, not superseded by
 * a fact observed by then, not expired by then), under the same visibility rules.
 */
import { expect, test } from "bun:test";
import { createWorkspace } from "../../src/auth/workspaces";
import { captureFacts, type CaptureItem } from "../../src/capture/pipeline";
import type { Db } from "../../src/db/types";
import { deleteFact } from "../../src/memory/browse";
import { buildContext } from "../../src/memory/context";
import { listFacts } from "../../src/memory/facts";
import { FactIndexes } from "../../src/memory/index/registry";
import { searchFacts } from "../../src/memory/search";
import type { Audience } from "../../src/schema/auth";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { serviceContext } from "./index/support";
import { seededRandom as random } from "../helpers/random";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 4, 1);
const NAMES = ["Al", "Bo", "Cy", "Di", "Ed", "Flo"];
const CITIES = ["Lyon", "Oslo", "Lima", "Rome", "Kyiv"];

/** Random facts with random observed times and expiries, taught in random order and batches. */
async function randomHistory(db: Db, workspaceId: string, next: () => number): Promise<number[]> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const instants: number[] = [];
  const items: CaptureItem[] = Array.from({ length: 40 }, (_, i) => {
    const observed = START + Math.floor(next() * 30 * 24) * HOUR;
    const expires = next() < 0.3 ? observed + (1 + Math.floor(next() * 10 * 24)) * HOUR : null;
    instants.push(observed, ...(expires === null ? [] : [expires]));
    const roll = next();
    const item: CaptureItem =
      roll < 0.4
        ? { text: `${pick(["Ana", "Raj"])}'s manager is ${pick(NAMES)}.`, origin: "user_stated" }
        : roll < 0.7
          ? { text: `I live in ${pick(CITIES)}.`, origin: "user_stated", endUser: { id: "cust-1" } }
          : {
              text: `Note ${i}: the ${pick(["north", "south"])} depot ships ${pick(["crates", "pallets"])}.`,
              origin: next() < 0.3 ? "agent_inferred" : "ingested",
            };
    return { ...item, recordedAt: new Date(observed), ...(expires === null ? {} : { expiresAt: new Date(expires) }) };
  });
  for (let at = 0; at < items.length; ) {
    const size = 1 + Math.floor(next() * 5);
    await captureFacts(db, workspaceId, items.slice(at, at + size));
    at += size;
  }
  const ids = await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${workspaceId} ORDER BY id`;
  for (const { id } of ids) if (next() < 0.05) await deleteFact(db, id);
  return instants;
}

/** The reference: what was memory at `at` for this reader, as one plain SQL statement. */
async function memoryAt(db: Db, workspaceId: string, at: number, endUserId: string | null, audience: Audience): Promise<{ all: string[]; endUsers: string[] }> {
  const instant = new Date(at);
  const rows = await db.sql<{ id: string; end_user_id: string | null }>`
    SELECT f.id, f.end_user_id FROM facts f
     WHERE f.workspace_id = ${workspaceId}
       AND NOT (f.recorded_at > ${instant})
       AND NOT (f.expires_at IS NOT NULL AND f.expires_at <= ${instant})
       AND NOT EXISTS (SELECT 1 FROM facts later WHERE later.id = f.superseded_by AND later.recorded_at <= ${instant})
       AND (f.end_user_id IS NULL OR f.end_user_id = ${endUserId}::text)
       AND (${audience} = 'internal' OR NOT (f.sensitive OR f.subject_type = 'team' OR f.origin = 'agent_inferred'))
     ORDER BY f.id`;
  return { all: rows.map((r) => r.id), endUsers: rows.filter((r) => r.end_user_id !== null).map((r) => r.id) };
}

describeEachDb("as_of", (get) => {
  for (const seed of [11, 12, 13]) {
    test(`reads as of random instants return exactly the reference's facts (seed ${seed})`, async () => {
      const { db } = get();
      const next = random(seed);
      const ws = await createWorkspace(db, uniqueSlug("asof"), 0);
      const instants = await randomHistory(db, ws.id, next);
      const indexes = new FactIndexes(db, 64 * 1024 * 1024);
      // Boundaries (the very instant of an observation or expiry, and a millisecond either side) and random moments.
      const probes = [START - HOUR, START + 40 * 24 * HOUR, ...Array.from({ length: 12 }, () => START + Math.floor(next() * 40 * 24 * HOUR))];
      for (const instant of instants.slice(0, 12)) probes.push(instant - 1, instant, instant + 1);
      for (const at of probes) {
        for (const [endUserId, audience] of [
          [null, "internal"],
          ["cust-1", "internal"],
          ["cust-1", "external"],
        ] as const) {
          const ctx = serviceContext(db, indexes, ws.id, { audience });
          const as_of = new Date(at).toISOString();
          const listed = await listFacts(ctx, { limit: 200, as_of, ...(endUserId ? { end_user: endUserId } : {}) });
          const reference = await memoryAt(db, ws.id, at, endUserId, audience);
          const expected = reference.all;
          // Naming an end user lists only their facts.
          expect([as_of, listed.facts.map((f) => f.fact_id).sort()]).toEqual([as_of, endUserId === null ? expected : reference.endUsers]);
          const found = await searchFacts(ctx, { query: "manager live depot ships", limit: 100, as_of, ...(endUserId ? { end_user: { id: endUserId } } : {}) });
          const ids = found.facts.map((f) => f.fact_id);
          expect(ids.every((id) => expected.includes(id))).toBe(true);
          for (const fact of found.facts) expect(Date.parse(fact.recorded_time)).toBeLessThanOrEqual(at);
          const packet = await buildContext(ctx, { query: "manager", token_budget: 2000, as_of, ...(endUserId ? { end_user: { id: endUserId } } : {}) });
          expect(packet.facts.every((f) => expected.includes(f.fact_id))).toBe(true);
        }
      }
    });
  }

  test("as of now is the live memory; as of before the first observation, nothing", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("asof"), 0);
    await captureFacts(db, ws.id, [{ text: "Ana's manager is Bo.", origin: "user_stated", recordedAt: new Date(START) }]);
    await captureFacts(db, ws.id, [{ text: "Ana's manager is Cy.", origin: "user_stated", recordedAt: new Date(START + 24 * HOUR) }]);
    const ctx = serviceContext(db, new FactIndexes(db, 64 * 1024 * 1024), ws.id);
    const at = async (instant: number): Promise<string[]> =>
      (await searchFacts(ctx, { query: "Ana manager", limit: 10, as_of: new Date(instant).toISOString() })).facts.map((f) => f.fact_text);
    expect(await at(START - 1)).toEqual([]);
    expect(await at(START)).toEqual(["Ana's manager is Bo."]);
    expect(await at(START + 24 * HOUR - 1)).toEqual(["Ana's manager is Bo."]);
    expect(await at(START + 24 * HOUR)).toEqual(["Ana's manager is Cy."]);
    expect((await searchFacts(ctx, { query: "Ana manager", limit: 10 })).facts.map((f) => f.fact_text)).toEqual(["Ana's manager is Cy."]);
  });
});
