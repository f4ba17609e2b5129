import { expect, test } from "bun:test";
import { createWorkspace } from "../../src/auth/workspaces";
import { captureFacts } from "../../src/capture/pipeline";
import { forgetEndUser, setPinned } from "../../src/memory/admin";
import { loadFactChanges, loadLiveFacts, nextFactSeq, pruneTombstones, readFactHead } from "../../src/memory/changes";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("fact change log", (get) => {
  test("writes advance the sequence and stamp what they changed; loadFactChanges returns exactly that", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("chg"), 0);
    expect(await readFactHead(db, ws.id)).toEqual({ seq: 0, floor: 0 });
    expect(await readFactHead(db, "ws_missing")).toBeNull();
    expect(await loadFactChanges(db, "ws_missing", 0, 100)).toBeNull();
    expect(await loadFactChanges(db, ws.id, 0, 100)).toEqual({ head: { seq: 0, floor: 0 }, upserts: [], removals: [], truncated: false });

    const first = await captureFacts(db, ws.id, [
      { text: "Ana's manager is Bo.", origin: "ingested" },
      { text: "The deploy window is Tuesday.", origin: "ingested" },
    ]);
    expect((await readFactHead(db, ws.id))!.seq).toBe(1);
    const all = await loadFactChanges(db, ws.id, 0, 100);
    expect(all!.upserts.map((f) => f.id).sort()).toEqual([...first.factIds].sort());
    expect(all!.upserts.find((f) => f.text === "Ana's manager is Bo.")).toMatchObject({
      kind: expect.any(String),
      subject: expect.any(String),
      pinned: false,
      endUserId: null,
    });

    // Nothing new after the head: an empty delta.
    expect(await loadFactChanges(db, ws.id, 1, 100)).toEqual({ head: { seq: 1, floor: 0 }, upserts: [], removals: [], truncated: false });

    // A replay of a stored fact changes nothing a reader could see (the duplicate is refused by the
    // unique index inside the transaction, which may still have taken a sequence value).
    const replay = await captureFacts(db, ws.id, [{ text: "The deploy window is Tuesday.", origin: "ingested" }]);
    expect(replay.factIds).toEqual([]);
    const afterReplay = (await readFactHead(db, ws.id))!.seq;
    expect(await loadFactChanges(db, ws.id, 1, 100)).toEqual({ head: { seq: afterReplay, floor: 0 }, upserts: [], removals: [], truncated: false });

    // Supersession: the new fact is an upsert, the old one a removal, at one new sequence value.
    const next = await captureFacts(db, ws.id, [{ text: "Ana's manager is Cy.", origin: "ingested" }]);
    const bo = first.factIds[0]!;
    const delta = (await loadFactChanges(db, ws.id, afterReplay, 100))!;
    expect(delta.head.seq).toBe(afterReplay + 1);
    expect(delta.upserts.map((f) => f.id)).toEqual(next.factIds);
    expect(delta.removals).toEqual([bo]);

    // A pin is an upsert of the fact in its new state.
    await setPinned(db, next.factIds[0]!, true);
    const pinned = (await loadFactChanges(db, ws.id, afterReplay + 1, 100))!;
    expect(pinned.head.seq).toBe(afterReplay + 2);
    expect(pinned.upserts.map((f) => [f.id, f.pinned])).toEqual([[next.factIds[0]!, true]]);

    // The live facts page by id and leave superseded ones out.
    const live = await loadLiveFacts(db, ws.id, "", 100);
    expect(live.map((f) => f.id)).toEqual([first.factIds[1]!, next.factIds[0]!].sort());
    expect((await loadLiveFacts(db, ws.id, live[0]!.id, 100)).map((f) => f.id)).toEqual([live[1]!.id]);

    // More changes than asked for: truncated, so the reader rebuilds instead.
    expect((await loadFactChanges(db, ws.id, 0, 2))!.truncated).toBe(true);
    expect((await loadFactChanges(db, ws.id, 0, 3))!.truncated).toBe(false);
  });

  test("forgetting leaves tombstones at its sequence; pruning raises the floor past them", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("chg"), 0);
    const about = await captureFacts(db, ws.id, [
      { text: "Loves dark roast coffee.", origin: "ingested", endUser: { id: "cust-1" } },
      { text: "Lives in Porto.", origin: "ingested", endUser: { id: "cust-1" } },
    ]);
    expect(about.factIds).toHaveLength(2);
    await db.transaction((tx) => forgetEndUser(tx, ws, "cust-1"));
    const head = (await readFactHead(db, ws.id))!;
    expect(head).toEqual({ seq: 2, floor: 0 });
    const delta = (await loadFactChanges(db, ws.id, 1, 100))!;
    expect(delta.upserts).toEqual([]);
    expect(delta.removals.sort()).toEqual([...about.factIds].sort());
    // Another workspace's sequence is its own.
    const other = await createWorkspace(db, uniqueSlug("chg"), 0);
    await db.transaction(async (tx) => expect(await nextFactSeq(tx, other.id)).toBe(1));
    expect((await readFactHead(db, ws.id))!.seq).toBe(2);

    await Bun.sleep(5);
    await pruneTombstones(db, 0);
    expect(await readFactHead(db, ws.id)).toEqual({ seq: 2, floor: 2 });
    expect((await loadFactChanges(db, ws.id, 1, 100))!.removals).toEqual([]);
    expect((await readFactHead(db, other.id))!.floor).toBe(0);
  });
});
