/**
 * Fact times through the capture pipeline on both databases: supersession follows the observed
 * time (out-of-order imports keep the newest observation live), and expiry hides a fact on every
 * instance at the moment it expires while history and export keep it; teaching it again revives it.
 */
import { afterEach, expect, setSystemTime, test } from "bun:test";
import { createWorkspace, type Workspace } from "../../src/auth/workspaces";
import { importFacts } from "../../src/capture/import";
import { captureFacts, type CaptureItem } from "../../src/capture/pipeline";
import type { Db } from "../../src/db/types";
import { exportFacts } from "../../src/memory/admin";
import { deleteFact } from "../../src/memory/browse";
import { getFact, listFacts } from "../../src/memory/facts";
import { FactIndexes } from "../../src/memory/index/registry";
import { searchFacts } from "../../src/memory/search";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { serviceContext } from "../memory/index/support";

afterEach(() => setSystemTime());

const BIG = 64 * 1024 * 1024;
const day = (d: number): Date => new Date(Date.UTC(2026, 5, d, 9));

async function* linesOf(values: unknown[]): AsyncGenerator<string> {
  for (const value of values) yield JSON.stringify(value);
}

async function liveTexts(db: Db, ws: Workspace): Promise<string[]> {
  const rows = await db.sql<{ text: string }>`SELECT text FROM facts WHERE workspace_id = ${ws.id} AND superseded_by IS NULL ORDER BY text`;
  return rows.map((r) => r.text);
}

async function supersededBy(db: Db, ws: Workspace): Promise<Record<string, string | null>> {
  const rows = await db.sql<{ text: string; by: string | null }>`
    SELECT f.text, s.text AS by FROM facts f LEFT JOIN facts s ON s.id = f.superseded_by WHERE f.workspace_id = ${ws.id}`;
  return Object.fromEntries(rows.map((r) => [r.text, r.by]));
}

describeEachDb("fact times", (get) => {
  test("an out-of-order import keeps the newest observation live; the older one becomes its history", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("time"), 0);
    const imported = await importFacts(
      db,
      ws.id,
      linesOf([
        { text: "Ana's manager is Cy.", observed_at: day(20).toISOString() },
        { text: "Ana's manager is Bo.", observed_at: day(10).toISOString() },
        { text: "Ana's manager is Al.", recorded_time: day(1).toISOString() },
      ]),
    );
    expect(imported.rejected).toEqual([]);
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Cy."]);
    expect(await supersededBy(db, ws)).toEqual({
      "Ana's manager is Cy.": null,
      "Ana's manager is Bo.": "Ana's manager is Cy.",
      "Ana's manager is Al.": "Ana's manager is Cy.",
    });

    // A later call with an older observation does not replace it either; a newer one does.
    await captureFacts(db, ws.id, [{ text: "Ana's manager is Di.", origin: "ingested", recordedAt: day(15) }]);
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Cy."]);
    await captureFacts(db, ws.id, [{ text: "Ana's manager is Ed.", origin: "ingested", recordedAt: day(21) }]);
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Ed."]);
    expect((await supersededBy(db, ws))["Ana's manager is Cy."]).toBe("Ana's manager is Ed.");

    // Deleting the live value brings back the latest observation before it, alone; the rest is its history.
    const [ed] = await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${ws.id} AND text = 'Ana''s manager is Ed.'`;
    const deleted = await deleteFact(db, ed!.id);
    expect(deleted.restored).toHaveLength(1);
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Cy."]);
    const [cy] = await db.sql<{ id: string }>`SELECT id FROM facts WHERE workspace_id = ${ws.id} AND text = 'Ana''s manager is Cy.'`;
    expect(deleted.restored).toEqual([cy!.id]);
    expect(await supersededBy(db, ws)).toEqual({
      "Ana's manager is Al.": "Ana's manager is Cy.",
      "Ana's manager is Bo.": "Ana's manager is Cy.",
      "Ana's manager is Cy.": null,
      "Ana's manager is Di.": "Ana's manager is Cy.",
    });
    // ...and deleting that one brings back the latest before it (Di, observed on the 15th).
    await deleteFact(db, cy!.id);
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Di."]);
    expect((await supersededBy(db, ws))["Ana's manager is Bo."]).toBe("Ana's manager is Di.");
  });

  test("the same import in order supersedes step by step: the last observation is live either way", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("time"), 0);
    const lines = [1, 10, 20].map((d, i) => ({ text: `Ana's manager is ${["Al", "Bo", "Cy"][i]}.`, observed_at: day(d).toISOString() }));
    await importFacts(db, ws.id, linesOf(lines));
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Cy."]);
    expect(await supersededBy(db, ws)).toEqual({
      "Ana's manager is Al.": "Ana's manager is Bo.",
      "Ana's manager is Bo.": "Ana's manager is Cy.",
      "Ana's manager is Cy.": null,
    });
  });

  test("expiry hides a fact on a second instance at the moment it expires; history and export keep it; teaching it again revives it", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("time"), 0);
    const start = Date.now();
    setSystemTime(new Date(start));
    const expiresAt = new Date(start + 60_000);
    const taught = await captureFacts(db, ws.id, [
      { text: "Mara is on vacation until Friday.", origin: "ingested", expiresAt },
      { text: "Mara runs the billing team.", origin: "ingested" },
    ]);
    expect(taught.created).toBe(2);
    const [first, second] = [new FactIndexes(db, BIG), new FactIndexes(db, BIG)];
    const search = async (indexes: FactIndexes): Promise<string[]> =>
      (await searchFacts(serviceContext(db, indexes, ws.id), { query: "Mara vacation billing", limit: 10 })).facts.map((f) => f.fact_text);
    expect(await search(first)).toContain("Mara is on vacation until Friday.");
    expect(await search(second)).toContain("Mara is on vacation until Friday.");
    const listed = await listFacts(serviceContext(db, second, ws.id), { limit: 50 });
    expect(listed.facts.find((f) => f.fact_text.includes("vacation"))?.expires_at).toBe(expiresAt.toISOString());

    setSystemTime(expiresAt);
    // No write happened: each instance's index applies the expiry by itself.
    expect(await search(first)).toEqual(["Mara runs the billing team."]);
    expect(await search(second)).toEqual(["Mara runs the billing team."]);
    expect((await listFacts(serviceContext(db, second, ws.id), { limit: 50 })).facts.map((f) => f.fact_text)).toEqual(["Mara runs the billing team."]);
    const vacation = taught.factIds[0]!;
    await expect(getFact(serviceContext(db, first, ws.id), vacation, {})).rejects.toMatchObject({ code: "not_found" });
    const exported = [];
    for await (const fact of exportFacts(db, ws.id)) exported.push(fact);
    expect(exported.find((f) => f.fact_id === vacation)).toMatchObject({ expires_at: expiresAt.toISOString(), superseded_by: null });

    // The same words again: the expired fact comes back (no copy), with the new expiry (none).
    const again = await captureFacts(db, ws.id, [{ text: "Mara is on vacation until Friday.", origin: "ingested" }]);
    expect(again).toMatchObject({ created: 1, skipped: 0, factIds: [vacation] });
    expect(await search(second)).toContain("Mara is on vacation until Friday.");
    expect(await search(first)).toContain("Mara is on vacation until Friday.");
    const [row] = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM facts WHERE workspace_id = ${ws.id}`;
    expect(row!.n).toBe(2);
  });

  test("a call that revives an expired value keeps it as the claim's value: an older observation in the same call becomes its history", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("time"), 0);
    const start = Date.now();
    setSystemTime(new Date(start));
    const first = await captureFacts(db, ws.id, [{ text: "Ana's manager is Cy.", origin: "user_stated", expiresAt: new Date(start + 1000) }]);
    setSystemTime(new Date(start + 2000));
    const again = await captureFacts(db, ws.id, [
      { text: "Ana's manager is Cy.", origin: "user_stated" },
      { text: "Ana's manager is Bo.", origin: "user_stated", recordedAt: new Date(start - 86_400_000) },
    ]);
    expect(again.factIds).toContain(first.factIds[0]!);
    expect(await liveTexts(db, ws)).toEqual(["Ana's manager is Cy."]);
    expect((await supersededBy(db, ws))["Ana's manager is Bo."]).toBe("Ana's manager is Cy.");
  });

  test("an expired value is no claim any more: a new value neither supersedes nor repeats it", async () => {
    const { db } = get();
    const ws = await createWorkspace(db, uniqueSlug("time"), 0);
    const start = Date.now();
    setSystemTime(new Date(start));
    const items = (text: string, expiresAt?: Date): CaptureItem[] => [{ text, origin: "user_stated", ...(expiresAt ? { expiresAt } : {}) }];
    await captureFacts(db, ws.id, items("Ana's manager is Bo.", new Date(start + 1000)));
    setSystemTime(new Date(start + 1000));
    const next = await captureFacts(db, ws.id, items("Ana's manager is Cy."));
    expect(next).toMatchObject({ created: 1, superseded: 0 });
    expect((await supersededBy(db, ws))["Ana's manager is Bo."]).toBeNull();
  });
});
