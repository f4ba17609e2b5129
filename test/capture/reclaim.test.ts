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

  test("restores what the deleted second reading replaced; the restored fact is still replaced by the lexicon's reading", async () => {
    const db = get().db;
    const ws = await createWorkspace(db, uniqueSlug(), 0);
    // The second reading's columns went with it (migration 023).
    const columns = await db.sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns WHERE table_name = 'facts' AND column_name LIKE 'alt_claim%'`;
    expect(columns).toEqual([]);
    const taught = await captureFacts(db, ws.id, [
      { text: "Eva lives in Oslo.", origin: "user_stated" },
      { text: "Eva's home city changed from Oslo to Bergen.", origin: "user_stated" },
    ]);
    const [oslo, bergen] = taught.factIds as [string, string];
    // The lexicon has no claim for "home city": the newer fact only updates the older.
    expect(taught).toMatchObject({ created: 2, superseded: 0 });
    const [linked] = await db.sql<{ updates: string[] | null }>`SELECT updates FROM facts WHERE id = ${bergen}`;
    expect(linked?.updates).toEqual([oslo]);
    // As the sentence rules' reading stored it: "home city" was where Eva lives, so Oslo was hidden.
    await db.sql`UPDATE facts SET superseded_by = ${bergen} WHERE id = ${oslo}`;
    expect(await reclaimFacts(db, ws.id)).toEqual({ facts: 2, rekeyed: 0, restored: 1, keptAsDuplicates: 0 });
    const [restored] = await db.sql<{ superseded_by: string | null }>`SELECT superseded_by FROM facts WHERE id = ${oslo}`;
    expect(restored?.superseded_by).toBeNull();
    // The restored fact keeps its claim: a move said in the lexicon's words replaces it.
    const moved = await captureFacts(db, ws.id, [{ text: "Eva moved to Bergen.", origin: "user_stated" }]);
    expect(moved).toMatchObject({ created: 0, superseded: 1 });
    const [hidden] = await db.sql<{ superseded_by: string | null }>`SELECT superseded_by FROM facts WHERE id = ${oslo}`;
    expect(hidden?.superseded_by).toBe(moved.factIds[0] ?? "missing");
    // That replacement is one the current gate makes, so running reclaim again keeps it.
    expect(await reclaimFacts(db, ws.id)).toMatchObject({ restored: 0 });
  });

  test("restores what a change statement hid; the statement still updates it", async () => {
    const db = get().db;
    const ws = await createWorkspace(db, uniqueSlug(), 0);
    const taught = await captureFacts(db, ws.id, [
      { text: "The Phoenix project is in the design phase.", origin: "user_stated" },
      { text: "The Phoenix project has moved into development.", origin: "user_stated" },
    ]);
    const [design, development] = taught.factIds as [string, string];
    // A change word ("moved") and two shared words: an update, nothing hidden.
    expect(taught).toMatchObject({ created: 2, superseded: 0 });
    const [link] = await db.sql<{ updates: string[] | null; link_reason: string | null }>`SELECT updates, link_reason FROM facts WHERE id = ${development}`;
    expect(link?.updates).toEqual([design]);
    expect(link?.link_reason).toContain('change word "move"');
    // What the deleted change-statement rules did: the older fact hidden.
    await db.sql`UPDATE facts SET superseded_by = ${development} WHERE id = ${design}`;
    expect(await reclaimFacts(db, ws.id)).toMatchObject({ restored: 1 });
    const rows = await db.sql<{ id: string; superseded_by: string | null; updates: string[] | null }>`
      SELECT id, superseded_by, updates FROM facts WHERE workspace_id = ${ws.id} ORDER BY id`;
    expect(rows).toEqual([
      { id: design, superseded_by: null, updates: null },
      { id: development, superseded_by: null, updates: [design] },
    ]);
  });
});
