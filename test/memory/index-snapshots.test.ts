/**
 * Stored index snapshots over a real database: a cold instance starts from one and serves what a
 * build from the facts serves; deleting a fact drops it; a snapshot older than a delete, the
 * tombstone floor, or another tokeniser is never used.
 */
import { expect, test } from "bun:test";
import { createWorkspace, type Workspace } from "../../src/auth/workspaces";
import { captureFacts, type CaptureItem } from "../../src/capture/pipeline";
import type { Db } from "../../src/db/types";
import { forgetEndUser } from "../../src/memory/admin";
import { deleteFact } from "../../src/memory/browse";
import { readFactHead } from "../../src/memory/changes";
import type { FactIndex } from "../../src/memory/index/fact-index";
import { planQuery } from "../../src/memory/index/plan";
import { rankFacts } from "../../src/memory/index/ranking";
import { readFilter } from "../../src/memory/index/filter";
import { recentFacts } from "../../src/memory/index/listing";
import { FactIndexes } from "../../src/memory/index/registry";
import { encodeIndex, SNAPSHOT_FORMAT } from "../../src/memory/index/snapshot";
import { readIndexSnapshot, writeIndexSnapshot } from "../../src/memory/index-snapshots";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { NOW } from "./index/support";

const BIG = 256 * 1024 * 1024;
/** Snapshots for any workspace, so small test workspaces exercise them. */
const SNAPSHOTS = { snapshotMinFacts: 1 } as const;
/** No snapshots at all: the reference every snapshot-built index is compared with. */
const NO_SNAPSHOTS = { snapshotMinFacts: Number.POSITIVE_INFINITY } as const;

function served(index: FactIndex): string[][] {
  const out: string[][] = [];
  const ids = (ords: number[]): string[] => ords.map((ord) => index.ids[ord]!);
  for (const endUserId of [null, "cust-1"]) {
    const filter = readFilter(index, { endUserId, audience: "internal", kinds: null });
    out.push(ids(recentFacts(index, filter, { limit: 1000, now: NOW })));
    for (const q of ["depot", "north crate", "coffee", "Ana manager", "kubern"])
      out.push(ids(rankFacts(index, planQuery(index, q), filter, { limit: 1000, now: NOW })));
  }
  return out;
}

function items(texts: string[], endUser?: string): CaptureItem[] {
  return texts.map((text) => ({ text, origin: "user_stated", ...(endUser ? { endUser: { id: endUser } } : {}) }));
}

async function workspaceWith(db: Db, n: number): Promise<Workspace> {
  const ws = await createWorkspace(db, uniqueSlug("snap"), 0);
  const texts = Array.from({ length: n }, (_, i) => `Crate ${i} waits at the ${i % 2 === 0 ? "north" : "south"} depot.`);
  expect((await captureFacts(db, ws.id, items([...texts, "Ana's manager is Bo."]))).created).toBe(n + 1);
  expect((await captureFacts(db, ws.id, items(["Mara loves coffee.", "Mara lives in Lyon."], "cust-1"))).created).toBe(2);
  return ws;
}

/** What a cold instance serves for the workspace, and whether it started from a snapshot. */
async function coldRead(db: Db, workspaceId: string): Promise<{ served: string[][]; fromSnapshot: boolean; indexes: FactIndexes }> {
  const indexes = new FactIndexes(db, BIG, SNAPSHOTS);
  const index = await indexes.read(workspaceId, null);
  await indexes.settle();
  return { served: served(index), fromSnapshot: indexes.stats().snapshotBuilds === 1, indexes };
}

async function reference(db: Db, workspaceId: string): Promise<string[][]> {
  return served(await new FactIndexes(db, BIG, NO_SNAPSHOTS).read(workspaceId, null));
}

const storedSeq = async (db: Db, workspaceId: string): Promise<number | null> => (await readIndexSnapshot(db, workspaceId, SNAPSHOT_FORMAT))?.seq ?? null;

describeEachDb("index snapshots", (get) => {
  test("a first build writes the snapshot; a cold instance starts from it, changes after it applied", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 40);
    const first = await coldRead(db, ws.id);
    expect(first.fromSnapshot).toBe(false);
    expect(first.indexes.stats().snapshotWrites).toBe(1);
    expect(await storedSeq(db, ws.id)).toBe((await readFactHead(db, ws.id))!.seq);

    const second = await coldRead(db, ws.id);
    expect(second.fromSnapshot).toBe(true);
    expect(second.served).toEqual(await reference(db, ws.id));
    expect(second.served[1]).toHaveLength(40);

    // Taught after the snapshot: a cold instance applies the change log on top of it.
    expect((await captureFacts(db, ws.id, items(["Crate 900 waits at the north depot."]))).created).toBe(1);
    const moved = await captureFacts(db, ws.id, items(["Ana's manager is Cy."]));
    expect(moved).toMatchObject({ created: 0, superseded: 1 });
    const third = await coldRead(db, ws.id);
    expect(third.fromSnapshot).toBe(true);
    expect(third.served).toEqual(await reference(db, ws.id));
    expect(third.served[1]).toHaveLength(41);
  });

  test("a snapshot stored in frames and read in groups of them is the snapshot, whatever the grouping", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 40);
    const index = await new FactIndexes(db, BIG, NO_SNAPSHOTS).read(ws.id, null);
    const bytes = encodeIndex(index)!;
    // Frames that do not divide the snapshot evenly, the last one short.
    const frameBytes = Math.ceil(bytes.length / 7) + 3;
    expect(await writeIndexSnapshot(db, ws.id, index.seq, SNAPSHOT_FORMAT, index.live, bytes, frameBytes)).toBe(true);
    const [row] = await db.sql<{ frames: number; size: number }>`
      SELECT cardinality(frame_ends) AS frames, length(data) AS size FROM index_snapshots WHERE workspace_id = ${ws.id}`;
    expect(row!.frames).toBe(7);
    for (const readBytes of [1, Math.ceil(row!.size / 3), 2 ** 30]) {
      const read = await readIndexSnapshot(db, ws.id, SNAPSHOT_FORMAT, readBytes);
      expect(read?.seq).toBe(index.seq);
      expect(Buffer.compare(Buffer.from(read!.bytes), Buffer.from(bytes))).toBe(0);
    }
    expect(await readIndexSnapshot(db, ws.id, "another-format", 64)).toBeNull();
    // A damaged frame is no snapshot: the reader builds from the facts instead.
    await db.sql`UPDATE index_snapshots SET data = overlay(data PLACING '\\x00000000'::bytea FROM 20) WHERE workspace_id = ${ws.id}`;
    expect(await readIndexSnapshot(db, ws.id, SNAPSHOT_FORMAT, 1)).toBeNull();
    const rebuilt = await coldRead(db, ws.id);
    expect(rebuilt.fromSnapshot).toBe(false);
    expect(rebuilt.served).toEqual(await reference(db, ws.id));
  });

  test("forgetting an end user or deleting a fact drops the snapshot in the same transaction", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 10);
    await coldRead(db, ws.id);
    expect(await storedSeq(db, ws.id)).not.toBeNull();
    await db.transaction((tx) => forgetEndUser(tx, ws, "cust-1"));
    expect(await storedSeq(db, ws.id)).toBeNull();
    const rows = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM index_snapshots WHERE workspace_id = ${ws.id}`;
    expect(rows[0]!.n).toBe(0);

    const rebuilt = await coldRead(db, ws.id);
    expect(rebuilt.fromSnapshot).toBe(false);
    expect(rebuilt.served).toEqual(await reference(db, ws.id));
    expect(rebuilt.served.flat().length).toBeGreaterThan(0);
    expect(await storedSeq(db, ws.id)).not.toBeNull();

    const [victim] = await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${ws.id} AND superseded_by IS NULL LIMIT 1`;
    await deleteFact(db, victim!.id);
    expect(await storedSeq(db, ws.id)).toBeNull();
  });

  test("a snapshot taken before a delete is refused, so the deleted text is never stored", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 6);
    const before = await new FactIndexes(db, BIG, NO_SNAPSHOTS).read(ws.id, null);
    const bytes = encodeIndex(before)!;
    await db.transaction((tx) => forgetEndUser(tx, ws, "cust-1"));
    expect(await writeIndexSnapshot(db, ws.id, before.seq, SNAPSHOT_FORMAT, before.live, bytes)).toBe(false);
    expect(await storedSeq(db, ws.id)).toBeNull();
    // Taken after it: stored.
    const after = await new FactIndexes(db, BIG, NO_SNAPSHOTS).read(ws.id, null);
    expect(await writeIndexSnapshot(db, ws.id, after.seq, SNAPSHOT_FORMAT, after.live, encodeIndex(after)!)).toBe(true);
    // An older one never replaces a newer one.
    expect(await writeIndexSnapshot(db, ws.id, after.seq - 1, SNAPSHOT_FORMAT, after.live, encodeIndex(after)!)).toBe(false);
    expect(await storedSeq(db, ws.id)).toBe(after.seq);
  });

  test("a snapshot below the tombstone floor, of another format, or damaged is not used", async () => {
    const { db } = get();
    const ws = await workspaceWith(db, 8);
    await coldRead(db, ws.id);
    const expected = await reference(db, ws.id);

    await db.sql`UPDATE index_snapshots SET format = 'older-tokeniser' WHERE workspace_id = ${ws.id}`;
    const otherFormat = await coldRead(db, ws.id);
    expect([otherFormat.fromSnapshot, otherFormat.served]).toEqual([false, expected]);
    // ...and the build replaced it with one of this format.
    expect(await storedSeq(db, ws.id)).not.toBeNull();

    await db.sql`UPDATE index_snapshots SET data = ${new Uint8Array([40, 181, 47, 253, 0, 88, 1, 0, 0])} WHERE workspace_id = ${ws.id}`;
    const damaged = await coldRead(db, ws.id);
    expect([damaged.fromSnapshot, damaged.served]).toEqual([false, expected]);
    expect((await coldRead(db, ws.id)).fromSnapshot).toBe(true);

    await db.sql`UPDATE fact_sequences SET floor = seq + 1 WHERE workspace_id = ${ws.id}`;
    const belowFloor = await coldRead(db, ws.id);
    expect([belowFloor.fromSnapshot, belowFloor.served]).toEqual([false, expected]);
  });
});
