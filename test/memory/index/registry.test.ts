/**
 * FactIndexes over a real database: eviction under the memory budget and identical rebuilds, the
 * tombstone floor, and concurrent writers and readers on two instances.
 */
import { expect, test } from "bun:test";
import { createWorkspace, type Workspace } from "../../../src/auth/workspaces";
import { captureFacts, type CaptureItem } from "../../../src/capture/pipeline";
import { openPostgres } from "../../../src/db/postgres";
import type { Db, Sql } from "../../../src/db/types";
import { forgetEndUser, setPinned } from "../../../src/memory/admin";
import { pruneTombstones, readFactHead } from "../../../src/memory/changes";
import type { FactIndex } from "../../../src/memory/index/fact-index";
import { pinnedFacts, recentFacts } from "../../../src/memory/index/listing";
import { planQuery } from "../../../src/memory/index/plan";
import { rankFacts } from "../../../src/memory/index/ranking";
import { readFilter } from "../../../src/memory/index/filter";
import { FactIndexes, snapshotWorkspace } from "../../../src/memory/index/registry";
import { SNAPSHOT_FORMAT } from "../../../src/memory/index/snapshot";
import { readIndexSnapshot } from "../../../src/memory/index-snapshots";
import { searchFacts } from "../../../src/memory/search";
import { visibleFacts, type Visibility } from "../../../src/memory/visibility";
import { uniqueSlug } from "../../helpers/app";
import { describeEachDb } from "../../helpers/databases";
import { NOW, serviceContext } from "./support";

const BIG = 256 * 1024 * 1024;
const QUERIES = ["depot", "north crate", "Ana manager", "coffee", "kubern", "the"];

/** Everything a read serves from one index, for the given end user (internal key). */
interface Snapshot {
  recent: string[];
  pinned: string[];
  actor: string[];
  /** Ranked results per query of QUERIES. */
  [query: string]: string[];
}

function snapshot(index: FactIndex, endUserId: string | null = null): Snapshot {
  const filter = readFilter(index, { endUserId, audience: "internal", kinds: null });
  const ids = (ords: number[]) => ords.map((ord) => index.ids[ord]!);
  const out: Snapshot = {
    recent: ids(recentFacts(index, filter, { limit: 1000 })),
    pinned: ids(pinnedFacts(index, filter, 1000)),
    actor: ids(recentFacts(index, filter, { limit: 1000, onlyEndUser: true })),
  };
  for (const q of QUERIES) out[q] = ids(rankFacts(index, planQuery(index, q), filter, { limit: 1000, now: NOW }));
  return out;
}

function items(texts: string[], endUser?: string): CaptureItem[] {
  return texts.map((text) => ({ text, origin: "ingested", ...(endUser ? { endUser: { id: endUser } } : {}) }));
}

async function workspaceWith(db: Db, n: number, label: string): Promise<Workspace> {
  const ws = await createWorkspace(db, uniqueSlug("reg"), 0);
  const texts = Array.from({ length: n }, (_, i) => `Crate ${label}${i} waits at the ${i % 2 === 0 ? "north" : "south"} depot.`);
  const taught = await captureFacts(db, ws.id, items(texts));
  expect(taught.created).toBe(n);
  await captureFacts(db, ws.id, items([`${label} loves coffee.`, `${label} lives in Lyon.`], "cust-1"));
  const pinned = await captureFacts(db, ws.id, [{ text: `The ${label} cluster runs Kubernetes.`, origin: "system", pinned: true }]);
  expect(pinned.created).toBe(1);
  return ws;
}

async function sqlVisible(db: Db, v: Visibility): Promise<string[]> {
  const rows = await db.sql<{ id: string }>`SELECT f.id FROM facts f WHERE ${visibleFacts(v)} ORDER BY f.id`;
  return rows.map((r) => r.id).sort();
}

/**
 * The same database, with the answers of its queries held back on demand (after the query ran):
 * a deterministic way to have a sync read the database, then a write commit, then the sync finish.
 */
function withHeldAnswers(db: Db): { db: Db; hold(): { reached: Promise<void>; release(): void } } {
  let held: { gate: Promise<void>; arrived(): void } | null = null;
  const sql: Sql = async <Row>(strings: TemplateStringsArray, ...values: unknown[]): Promise<Row[]> => {
    const rows = await db.sql<Row>(strings, ...values);
    const current = held;
    if (current) {
      current.arrived();
      await current.gate;
    }
    return rows;
  };
  const wrapped: Db = {
    kind: db.kind,
    sql,
    exec: (text) => db.exec(text),
    transaction: (fn) => db.transaction(fn),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    notify: (channel, payload) => db.notify(channel, payload),
    close: async () => {},
  };
  return {
    db: wrapped,
    hold() {
      let release = (): void => {};
      let arrived = (): void => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      held = { gate, arrived };
      return {
        reached,
        release: () => {
          held = null;
          release();
        },
      };
    },
  };
}

describeEachDb("FactIndexes", (get, kind) => {
  test("snapshotWorkspace stores the index a bulk load made, and the next cold read starts from it", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 300, "bulk");
    const small = await workspaceWith(db, 10, "few");
    expect(await snapshotWorkspace(db, ws.id)).toEqual({ facts: 303, written: true });
    // Below the snapshot threshold, nothing is stored: reading its facts is as quick.
    expect(await snapshotWorkspace(db, small.id)).toEqual({ facts: 13, written: false });
    const head = await readFactHead(db, ws.id);
    const stored = await readIndexSnapshot(db, ws.id, SNAPSHOT_FORMAT);
    expect(stored?.seq).toBe(head!.seq);
    const cold = new FactIndexes(db, BIG);
    const fromSnapshot = await cold.read(ws.id, null);
    expect(cold.stats()).toMatchObject({ builds: 1, snapshotBuilds: 1 });
    expect(snapshot(fromSnapshot)).toEqual(snapshot(await new FactIndexes(db, BIG, { snapshotMinFacts: Number.POSITIVE_INFINITY }).read(ws.id, null)));
  });

  test("a 1-byte budget keeps only the index just read; reading an evicted workspace rebuilds it identically", async () => {
    const { db } = get();
    const wss = [await workspaceWith(db, 30, "alpha"), await workspaceWith(db, 12, "bravo"), await workspaceWith(db, 20, "charlie")];
    const reference = new FactIndexes(db, BIG);
    const expected = [];
    for (const ws of wss) expected.push({ none: snapshot(await reference.read(ws.id, null)), user: snapshot(await reference.read(ws.id, null), "cust-1") });
    expect(reference.stats()).toMatchObject({ workspaces: 3, builds: 3, evictions: 0, facts: 30 + 12 + 20 + 3 * 3 });
    expect(expected[0]!.none.depot).toHaveLength(30);
    expect(expected[0]!.user.actor).toHaveLength(2);

    const tiny = new FactIndexes(db, 1);
    const first = await tiny.read(wss[0]!.id, null);
    expect(snapshot(first)).toEqual(expected[0]!.none);
    expect(tiny.stats()).toMatchObject({ workspaces: 1, builds: 1, evictions: 0, facts: 33, budgetBytes: 1 });
    // The one index just read stays even over budget.
    expect(tiny.stats().bytes).toBe(first.bytes());
    expect(tiny.stats().bytes).toBeGreaterThan(1);

    expect(snapshot(await tiny.read(wss[1]!.id, null))).toEqual(expected[1]!.none);
    expect(tiny.stats()).toMatchObject({ workspaces: 1, builds: 2, evictions: 1, facts: 15 });
    expect(snapshot(await tiny.read(wss[2]!.id, null), "cust-1")).toEqual(expected[2]!.user);
    expect(tiny.stats()).toMatchObject({ workspaces: 1, builds: 3, evictions: 2 });

    // Back to the first workspace: rebuilt, not the old object, same results.
    const again = await tiny.read(wss[0]!.id, null);
    expect(again).not.toBe(first);
    expect(tiny.stats()).toMatchObject({ workspaces: 1, builds: 4, evictions: 3, facts: 33 });
    expect(snapshot(again)).toEqual(expected[0]!.none);
    expect(snapshot(again, "cust-1")).toEqual(expected[0]!.user);
    // Reading the resident one again is no build, with or without a known sequence.
    const head = (await readFactHead(db, wss[0]!.id))!;
    expect(await tiny.read(wss[0]!.id, head.seq)).toBe(again);
    expect(await tiny.read(wss[0]!.id, null)).toBe(again);
    expect(tiny.stats().builds).toBe(4);

    // An explicit eviction counts, and the next read rebuilds.
    tiny.evict(wss[0]!.id);
    expect(tiny.stats()).toMatchObject({ workspaces: 0, evictions: 4, facts: 0, bytes: 0 });
    tiny.evict(wss[0]!.id);
    expect(tiny.stats().evictions).toBe(4);
    expect(snapshot(await tiny.read(wss[0]!.id, head.seq))).toEqual(expected[0]!.none);
    expect(tiny.stats().builds).toBe(5);
    expect(reference.stats()).toMatchObject({ workspaces: 3, builds: 3, evictions: 0 });
  }, 30_000);

  test("under a budget for two indexes, the least recently read one is evicted first", async () => {
    const { db } = get();
    const [w1, w2, w3] = [await workspaceWith(db, 40, "delta"), await workspaceWith(db, 40, "echo"), await workspaceWith(db, 3, "fox")];
    const probe = new FactIndexes(db, BIG);
    const bytes = [];
    for (const ws of [w1!, w2!, w3!]) bytes.push((await probe.read(ws.id, null)).bytes());
    const [b1, b2, b3] = bytes as [number, number, number];
    expect(b3).toBeLessThanOrEqual(b2);
    const lru = new FactIndexes(db, b1 + b2);
    await lru.read(w1!.id, null);
    await lru.read(w2!.id, null);
    expect(lru.stats()).toMatchObject({ workspaces: 2, builds: 2, evictions: 0, bytes: b1 + b2 });
    await lru.read(w1!.id, null); // w2 is now the least recently read
    await lru.read(w3!.id, null);
    expect(lru.stats()).toMatchObject({ workspaces: 2, builds: 3, evictions: 1, bytes: b1 + b3 });
    await lru.read(w1!.id, null);
    expect(lru.stats().builds).toBe(3);
    await lru.read(w2!.id, null); // evicts w3, the least recently read
    expect(lru.stats()).toMatchObject({ workspaces: 2, builds: 4, evictions: 2, bytes: b1 + b2 });
    await lru.read(w1!.id, null);
    expect(lru.stats().builds).toBe(4);
    await lru.read(w3!.id, null);
    expect(lru.stats().builds).toBe(5);
  }, 30_000);

  test("pruned tombstones: an index behind the floor rebuilds and stays exact; one at the floor takes the delta", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 10, "golf");
    const forgotten = (await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${ws.id} AND end_user_id = 'cust-1'`).map((r) => r.id);
    expect(forgotten).toHaveLength(2);

    const lagging = new FactIndexes(db, BIG);
    const before = await lagging.read(ws.id, null);
    expect(snapshot(before, "cust-1").actor.sort()).toEqual([...forgotten].sort());

    await db.transaction((tx) => forgetEndUser(tx, ws, "cust-1"));
    const atForget = (await readFactHead(db, ws.id))!;
    const tombstones = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM fact_tombstones WHERE workspace_id = ${ws.id}`;
    expect(tombstones[0]!.n).toBe(2);
    // This index sees the forget through its tombstones, before they are pruned.
    const current = new FactIndexes(db, BIG);
    expect((await current.read(ws.id, atForget.seq)).seq).toBe(atForget.seq);
    expect(current.stats().builds).toBe(1);

    await captureFacts(db, ws.id, items(["Crate golf99 waits at the north depot."]));
    // Young tombstones are kept; a zero age prunes them all and raises the floor past them.
    await pruneTombstones(db, 3600);
    expect((await readFactHead(db, ws.id))!.floor).toBe(0);
    await Bun.sleep(5);
    await pruneTombstones(db, 0);
    const head = (await readFactHead(db, ws.id))!;
    expect(head.floor).toBe(atForget.seq);
    expect(head.seq).toBe(atForget.seq + 1);
    expect((await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM fact_tombstones WHERE workspace_id = ${ws.id}`)[0]!.n).toBe(0);

    const reference = snapshot(await new FactIndexes(db, BIG).read(ws.id, null), "cust-1");
    expect(reference.actor).toEqual([]);
    expect(reference.depot).toHaveLength(11);

    // Behind the floor: the deletions can no longer be read as a delta, so it rebuilds.
    const rebuilt = await lagging.read(ws.id, head.seq);
    expect(lagging.stats().builds).toBe(2);
    expect(rebuilt.seq).toBe(head.seq);
    expect(snapshot(rebuilt, "cust-1")).toEqual(reference);
    for (const id of forgotten) expect(rebuilt.ordinal(id)).toBeUndefined();

    // At the floor: the delta is complete, no rebuild.
    const caughtUp = await current.read(ws.id, head.seq);
    expect(current.stats().builds).toBe(1);
    expect(snapshot(caughtUp, "cust-1")).toEqual(reference);
  }, 30_000);

  test("a read never settles for a sync that began before it and read the database before its caller's write", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 5, "hotel");
    for (const knownSeq of ["from authentication", "unknown"] as const) {
      const held = withHeldAnswers(db);
      const indexes = new FactIndexes(held.db, BIG);
      const built = await indexes.read(ws.id, null);
      const before = built.seq;

      // A sync starts (an earlier request's read) and reads the database...
      const gate = held.hold();
      const earlier = indexes.read(ws.id, null);
      await gate.reached;
      // ...then this request's caller writes, and its read begins while that sync is unfinished.
      const written = await captureFacts(db, ws.id, items([`Crate hotel-${knownSeq === "unknown" ? "b" : "a"} waits at the west depot.`]));
      const head = (await readFactHead(db, ws.id))!;
      expect(head.seq).toBeGreaterThan(before);
      const mine = indexes.read(ws.id, knownSeq === "unknown" ? null : head.seq);
      gate.release();
      const index = await mine;
      expect([knownSeq, index.seq]).toEqual([knownSeq, head.seq]);
      expect(index.ordinal(written.factIds[0]!)).toBeDefined();
      await earlier;
    }
  }, 30_000);

  test("concurrent teaches, pins and searches on two instances: nothing lost, both equal the SQL predicate", async () => {
    const { db } = get();
    const otherDb = kind === "postgres" ? openPostgres({ url: get().config.databaseUrl ?? "", maxConnections: 6 }) : db;
    try {
      const ws = await createWorkspace(db, uniqueSlug("conc"), 0);
      await captureFacts(db, ws.id, items(["Crate seed0 waits at the east depot."]));
      const instances = [
        { db, index: new FactIndexes(db, BIG) },
        { db: otherDb, index: new FactIndexes(otherDb, BIG) },
      ];
      // Both indexes exist before the writes: the run exercises deltas under concurrency.
      for (const i of instances) await i.index.read(ws.id, null);

      const taught: string[] = [];
      const managers = ["Bo", "Cy", "Di", "Ed", "Flo", "Gil", "Hal", "Ivo"];
      const errors: unknown[] = [];
      const search = async (n: number, query: string, endUser?: string) => {
        const inst = instances[n % 2]!;
        // As a request would: the sequence read at authentication, or none (ask the database).
        const factSeq = n % 3 === 0 ? null : (await readFactHead(inst.db, ws.id))!.seq;
        const ctx = serviceContext(inst.db, inst.index, ws.id, { factSeq });
        return (await searchFacts(ctx, { query, limit: 100, ...(endUser ? { end_user: { id: endUser } } : {}) })).facts.map((f) => f.fact_id);
      };

      const teachTasks = Array.from({ length: 40 }, async (_, i) => {
        const writer = instances[i % 2]!;
        const result = await captureFacts(writer.db, ws.id, [
          ...items([`Crate batch${i} waits at the north depot.`, `Crate batch${i} spare waits at the south depot.`]),
          ...(i % 4 === 0 ? items([`Customer batch${i} prefers the south depot.`], `cust-${i % 3}`) : []),
        ]);
        expect(result.created).toBe(i % 4 === 0 ? 3 : 2);
        taught.push(...result.factIds);
        // Read-your-writes while everything else runs: this teach is visible on both instances.
        for (const n of [0, 1, 2, 3]) {
          const found = await search(n, `batch${i}`, i % 4 === 0 ? `cust-${i % 3}` : undefined);
          expect(found.sort()).toEqual([...result.factIds].sort());
        }
        if (i % 5 === 0) await setPinned(writer.db, result.factIds[0]!, true);
        if (i % 10 === 0) await setPinned(writer.db, result.factIds[0]!, false);
      });
      const claimTasks = managers.map(async (name, i) => {
        await Bun.sleep(i % 3);
        await captureFacts(instances[i % 2]!.db, ws.id, items([`Ana's manager is ${name}.`]));
      });
      const searchTasks = Array.from({ length: 120 }, async (_, n) => {
        const found = await search(n, ["depot", "north crate", "Ana manager", "batch7 spare", "the"][n % 5]!, n % 7 === 0 ? "cust-1" : undefined);
        expect(new Set(found).size).toBe(found.length);
      });
      await Promise.all([...teachTasks, ...claimTasks, ...searchTasks].map((p) => p.catch((e: unknown) => errors.push(e))));
      expect(errors).toEqual([]);

      const live = new Set((await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${ws.id} AND superseded_by IS NULL`).map((r) => r.id));
      expect(taught).toHaveLength(40 * 2 + 10);
      for (const id of taught) expect(live.has(id)).toBe(true);
      const head = (await readFactHead(db, ws.id))!;
      for (const inst of instances) {
        const ctx = serviceContext(inst.db, inst.index, ws.id, { factSeq: head.seq });
        for (const endUser of [null, "cust-0", "cust-1", "cust-2"]) {
          const v: Visibility = { workspaceId: ws.id, audience: "internal", endUserId: endUser, agent: null, kinds: null };
          const expected = await sqlVisible(db, v);
          const index = await inst.index.read(ws.id, head.seq);
          expect(index.seq).toBe(head.seq);
          const everything = (await searchFacts(ctx, { query: "the", limit: 10_000, ...(endUser ? { end_user: { id: endUser } } : {}) })).facts;
          expect(everything.map((f) => f.fact_id).sort()).toEqual(expected);
          const depot = (await searchFacts(ctx, { query: "depot", limit: 10_000, ...(endUser ? { end_user: { id: endUser } } : {}) })).facts;
          expect(depot.map((f) => f.fact_id).sort()).toEqual(expected.filter((id) => everything.find((f) => f.fact_id === id)!.fact_text.includes("depot")));
          const pinnedSql = await db.sql<{ id: string }>`SELECT f.id FROM facts f WHERE ${visibleFacts(v)} AND f.pinned ORDER BY f.id`;
          const filter = readFilter(index, v);
          expect(
            pinnedFacts(index, filter, 1000)
              .map((ord) => index.ids[ord]!)
              .sort(),
          ).toEqual(pinnedSql.map((r) => r.id).sort());
        }
        // One value of the claim survives the race, the same on both instances as in SQL.
        const manager = (await searchFacts(ctx, { query: "Ana manager", limit: 100 })).facts.filter((f) => f.fact_text.startsWith("Ana's manager"));
        const liveManager = await db.sql<{
          id: string;
        }>`SELECT id FROM facts WHERE workspace_id = ${ws.id} AND superseded_by IS NULL AND text LIKE 'Ana''s manager%'`;
        expect(liveManager).toHaveLength(1);
        expect(manager.map((f) => f.fact_id)).toEqual([liveManager[0]!.id]);
      }
      // Nothing fell back to a rebuild: every change arrived as a delta.
      expect(instances.map((i) => i.index.stats().builds)).toEqual([1, 1]);
      // Counted the other way: the index's live facts are the database's.
      for (const inst of instances) expect((await inst.index.read(ws.id, head.seq)).live).toBe(live.size);
    } finally {
      if (otherDb !== db) await otherDb.close();
    }
  }, 60_000);
});
