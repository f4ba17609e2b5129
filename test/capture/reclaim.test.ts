import { expect, test } from "bun:test";
import { createWorkspace } from "../../src/auth/workspaces";
import { captureFacts } from "../../src/capture/pipeline";
import { reclaimFacts } from "../../src/capture/reclaim";
import { readFactHead } from "../../src/memory/changes";
import { FactIndexes } from "../../src/memory/index/registry";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("facts reclaim", (get) => {
  test("restores facts the old rules superseded wrongly, keeps right supersessions, and every index sees it", async () => {
    const db = get().db;
    const ws = await createWorkspace(db, uniqueSlug(), 0);
    const taught = await captureFacts(db, ws.id, [
      { text: "Maya prefers email to phone calls.", origin: "user_stated" },
      { text: "Maya prefers dark mode in the app.", origin: "user_stated" },
      { text: "Ana's manager is Bo.", origin: "user_stated" },
      { text: "Ana's manager is Cy.", origin: "user_stated" },
      { text: "Tom speaks French.", origin: "user_stated" },
      { text: "Tom speaks German.", origin: "user_stated" },
    ]);
    const [email, darkMode, bo, cy, french, german] = taught.factIds as [string, string, string, string, string, string];
    expect(taught.superseded).toBe(1);

    // What the old rules did: one "prefers" claim per person, so dark mode replaced email, under old-style keys.
    await db.sql`UPDATE facts SET superseded_by = ${darkMode} WHERE id = ${email}`;
    await db.sql`UPDATE facts SET superseded_by = ${german} WHERE id = ${french}`;
    await db.sql`UPDATE facts SET claim_key = 'maya|prefers', claim_value = 'email to phone calls' WHERE id = ${email}`;
    // A wrongly superseded fact that a live fact now repeats word for word stays history.
    await captureFacts(db, ws.id, [{ text: "Tom speaks French", origin: "ingested" }]);

    const indexes = new FactIndexes(db, 64 * 1024 * 1024);
    const before = await indexes.read(ws.id, null);
    expect(before.ordinal(email)).toBeUndefined();

    const dry = await reclaimFacts(db, ws.id, { dryRun: true });
    expect(dry).toEqual({ facts: 7, rekeyed: 1, restored: 1, keptAsDuplicates: 1 });
    const [stillHidden] = await db.sql<{ superseded_by: string | null }>`SELECT superseded_by FROM facts WHERE id = ${email}`;
    expect(stillHidden?.superseded_by).toBe(darkMode);

    const head = await readFactHead(db, ws.id);
    expect(await reclaimFacts(db, ws.id)).toEqual(dry);
    const rows = await db.sql<{ id: string; superseded_by: string | null }>`SELECT id, superseded_by FROM facts WHERE workspace_id = ${ws.id}`;
    const state = new Map(rows.map((r) => [r.id, r.superseded_by]));
    expect(state.get(email)).toBeNull();
    expect(state.get(bo)).toBe(cy);
    expect(state.get(french)).toBe(german);
    expect((await readFactHead(db, ws.id))?.seq ?? 0).toBeGreaterThan(head?.seq ?? 0);

    // The index built before the reclaim catches up through its delta.
    const after = await indexes.read(ws.id, null);
    expect(after.ordinal(email)).toBeDefined();
    expect(after.ordinal(bo)).toBeUndefined();
    // Running it again changes nothing.
    expect(await reclaimFacts(db, ws.id)).toEqual({ facts: 7, rekeyed: 0, restored: 0, keptAsDuplicates: 1 });
  });

  test("a database written before the second reading gets it, and a later fact relates to it", async () => {
    const db = get().db;
    const ws = await createWorkspace(db, uniqueSlug(), 0);
    const taught = await captureFacts(db, ws.id, [{ text: "Eva lives in Oslo.", origin: "user_stated" }]);
    const [oslo] = taught.factIds as [string];
    const [stored] = await db.sql<{ alt_claim_key: string | null }>`SELECT alt_claim_key FROM facts WHERE id = ${oslo}`;
    expect(stored?.alt_claim_key).not.toBeNull();
    // As an earlier version stored it: one reading only.
    await db.sql`UPDATE facts SET alt_claim_key = NULL, alt_claim_subject = NULL, alt_claim_value = NULL WHERE id = ${oslo}`;
    expect(await reclaimFacts(db, ws.id)).toMatchObject({ facts: 1, rekeyed: 1, restored: 0 });
    const [again] = await db.sql<{ alt_claim_key: string | null }>`SELECT alt_claim_key FROM facts WHERE id = ${oslo}`;
    expect(again?.alt_claim_key).toBe(stored?.alt_claim_key ?? "missing");
    // "home city" is related through the sentence rules' reading, now stored again.
    expect(await captureFacts(db, ws.id, [{ text: "Eva's home city is Bergen now.", origin: "user_stated" }])).toMatchObject({ superseded: 1 });
  });

  test("keeps a supersession made by a change statement", async () => {
    const db = get().db;
    const ws = await createWorkspace(db, uniqueSlug(), 0);
    const taught = await captureFacts(db, ws.id, [
      { text: "Phoenix is in the design phase.", origin: "user_stated" },
      { text: "Phoenix has moved into development.", origin: "user_stated" },
    ]);
    const [design, development] = taught.factIds as [string, string];
    expect(taught.superseded).toBe(1);
    expect(await reclaimFacts(db, ws.id)).toMatchObject({ restored: 0 });
    const [row] = await db.sql<{ superseded_by: string | null }>`SELECT superseded_by FROM facts WHERE id = ${design}`;
    expect(row?.superseded_by).toBe(development);
  });
});
