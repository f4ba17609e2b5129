/**
 * `importFacts` on both databases: it analyses each batch while the one before it is stored, and
 * must still store exactly what capturing its batches one after another stores (counts, live
 * facts, supersession across batch boundaries), report bad lines by number, and stop at the first
 * batch that fails to store.
 */
import { expect, test } from "bun:test";
import { createWorkspace, type Workspace } from "../../src/auth/workspaces";
import { IMPORT_BATCH as BATCH, importFacts } from "../../src/capture/import";
import { captureFacts, type CaptureItem } from "../../src/capture/pipeline";
import type { Db, Sql } from "../../src/db/types";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

/** Lines over three batches (two full ones and a part). */
const LINES = 2 * BATCH + 120;

/**
 * Fillers, a claim replaced within a batch and across batches, a duplicate of an earlier batch's
 * line, a change statement about an earlier batch's fact, an older observation in the last batch,
 * and a blank line, an unparseable one and one the schema refuses (lines 5 and LINES - 115).
 */
function corpus(): string[] {
  const lines = Array.from({ length: LINES }, (_, i) => JSON.stringify({ text: `Release note ${i}: build ${i} shipped to staging bucket ${i}.` }));
  lines[10] = JSON.stringify({ text: "Ana's manager is Bo." });
  lines[BATCH - 50] = JSON.stringify({ text: "Priya prefers tea." });
  lines[BATCH - 40] = JSON.stringify({ text: "Ana's manager is Cy." });
  lines[BATCH + 30] = JSON.stringify({ text: "Ana's manager is Di." });
  lines[BATCH + 40] = JSON.stringify({ text: "Priya prefers tea." });
  lines[BATCH + 50] = JSON.stringify({ text: "Priya now prefers coffee instead." });
  lines[3] = "";
  lines[4] = "{not json";
  lines[2 * BATCH + 4] = JSON.stringify({ text: "" });
  lines[2 * BATCH + 50] = JSON.stringify({ text: "Ana's manager is Ed.", observed_at: "2020-01-01T00:00:00Z" });
  return lines;
}

async function* linesOf(lines: readonly string[], onRead: (n: number) => void = () => {}): AsyncGenerator<string> {
  for (const [i, line] of lines.entries()) {
    onRead(i + 1);
    yield line;
  }
}

/** The good lines as capture items, in batches as the import forms them. */
function batchesOf(lines: readonly string[]): CaptureItem[][] {
  const items: CaptureItem[] = [];
  for (const line of lines) {
    if (line.trim() === "" || line.startsWith("{not")) continue;
    const parsed = JSON.parse(line) as { text: string; observed_at?: string };
    if (parsed.text === "") continue;
    items.push({ text: parsed.text, origin: "ingested", ...(parsed.observed_at ? { recordedAt: new Date(parsed.observed_at) } : {}) });
  }
  return Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));
}

/** Every fact's text with the text of the fact that replaced it (null while live). */
async function supersession(db: Db, ws: Workspace): Promise<Record<string, string | null>> {
  const rows = await db.sql<{ text: string; by: string | null }>`
    SELECT f.text, s.text AS by FROM facts f LEFT JOIN facts s ON s.id = f.superseded_by WHERE f.workspace_id = ${ws.id} ORDER BY f.text`;
  return Object.fromEntries(rows.map((r) => [r.text, r.by]));
}

/** `db` with its transactions passed through `around`: the tests hold or fail a batch's transaction. */
function withTransactions(db: Db, around: <T>(call: number, run: () => Promise<T>) => Promise<T>): Db {
  let calls = 0;
  const sql = ((strings, ...values) => db.sql(strings, ...values)) as Sql;
  return {
    kind: db.kind,
    sql,
    exec: (text) => db.exec(text),
    transaction: (fn) => {
      calls += 1;
      return around(calls, () => db.transaction(fn));
    },
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    notify: (channel, payload) => db.notify(channel, payload),
    close: () => db.close(),
  };
}

describeEachDb("fact import", (get) => {
  test("stores what capturing its batches one after another stores, and reports bad lines by number", async () => {
    const { db } = get();
    const lines = corpus();
    const imported = await createWorkspace(db, uniqueSlug("import"), 0);
    const progress = await importFacts(db, imported.id, linesOf(lines));

    const reference = await createWorkspace(db, uniqueSlug("import-ref"), 0);
    const expected = { created: 0, superseded: 0, skipped: 0 };
    for (const batch of batchesOf(lines)) {
      const result = await captureFacts(db, reference.id, batch);
      expected.created += result.created;
      expected.superseded += result.superseded;
      expected.skipped += result.skipped;
    }

    expect(progress.lines).toBe(LINES);
    expect(progress.rejected.map((r) => r.line)).toEqual([5, 2 * BATCH + 5]);
    expect(progress.rejected[0]?.reason).toBe("not valid JSON");
    expect({ created: progress.created, superseded: progress.superseded, skipped: progress.skipped }).toEqual(expected);
    // The batches met: a claim replaced across them, a duplicate of an earlier batch skipped, an older observation kept as history.
    expect(expected.superseded).toBeGreaterThanOrEqual(2);
    expect(expected.skipped).toBeGreaterThanOrEqual(1);
    const stored = await supersession(db, imported);
    expect(stored).toEqual(await supersession(db, reference));
    expect(stored["Ana's manager is Bo."]).toBe("Ana's manager is Cy.");
    expect(stored["Ana's manager is Cy."]).toBe("Ana's manager is Di.");
    expect(stored["Ana's manager is Ed."]).toBe("Ana's manager is Di.");
    // The first capture of a process loads the rules and the tagger's model.
  }, 60_000);

  test("analyses the next batch while a batch is stored", async () => {
    const { db } = get();
    const lines = corpus();
    let read = 0;
    let secondBatchRead: () => void = () => {};
    const secondBatch = new Promise<void>((resolve) => {
      secondBatchRead = resolve;
    });
    // The first transaction commits only once the lines of the second batch have been read (and
    // so analysed): an import that stored before reading on would wait here forever.
    const held = withTransactions(db, async (call, run) => {
      if (call === 1) await secondBatch;
      return run();
    });
    const ws = await createWorkspace(db, uniqueSlug("import-overlap"), 0);
    const progress = await importFacts(
      held,
      ws.id,
      linesOf(lines, (n) => {
        read = n;
        if (read >= 2 * BATCH + 2) secondBatchRead();
      }),
    );
    expect(progress.rejected.map((r) => r.line)).toEqual([5, 2 * BATCH + 5]);
    expect(Object.keys(await supersession(db, ws)).length).toBe(progress.created + progress.superseded);
  }, 60_000);

  test("a batch that fails to store fails the import, and no later batch is stored", async () => {
    const { db } = get();
    const failing = withTransactions(db, (call, run) => (call === 2 ? Promise.reject(new Error("the second batch failed")) : run()));
    const ws = await createWorkspace(db, uniqueSlug("import-fail"), 0);
    await expect(importFacts(failing, ws.id, linesOf(corpus()))).rejects.toThrow("the second batch failed");
    const [count] = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM facts WHERE workspace_id = ${ws.id}`;
    expect(count?.n).toBe(BATCH);
  }, 60_000);
});
