/**
 * Which stored facts stand for which taught items: capture keeps a fact's text as written, but a
 * duplicate is skipped (its duplicate key names the fact it repeats) and a superseded fact is no
 * longer searchable (its items map to nothing). `fatesOfItems` says what became of each item:
 * stored and live, stored and superseded, or skipped.
 */
import { normalizeForDuplicates } from "../../src/capture/analyze";
import type { Db } from "../../src/db/types";
import { loadLiveFacts } from "../../src/memory/changes";
import type { IndexedFact } from "../../src/memory/index/fact-index";

/** Stored fact id → the items it stands for: the same text, else the same duplicate key. */
export function itemsOfFacts<T extends { text: string }>(facts: readonly IndexedFact[], items: readonly T[]): Map<string, T[]> {
  const byText = new Map<string, string>();
  const byNormalized = new Map<string, string>();
  for (const f of facts) {
    byText.set(f.text, f.id);
    byNormalized.set(normalizeForDuplicates(f.text), f.id);
  }
  const out = new Map<string, T[]>();
  for (const item of items) {
    const id = byText.get(item.text) ?? byNormalized.get(normalizeForDuplicates(item.text));
    if (id === undefined) continue;
    const list = out.get(id);
    if (list) list.push(item);
    else out.set(id, [item]);
  }
  return out;
}

/** Every live fact of a workspace as the index receives it, read a page of 10,000 at a time. */
export async function liveFacts(db: Db, workspaceId: string): Promise<IndexedFact[]> {
  const all: IndexedFact[] = [];
  for (;;) {
    const page = await loadLiveFacts(db, workspaceId, all.at(-1)?.id ?? "", 10_000);
    all.push(...page);
    if (page.length < 10_000) return all;
  }
}

/** What capture did with a taught item. */
export type ItemFate = "live" | "superseded" | "skipped";

/**
 * What became of each item of a workspace taught in this order (and nothing else taught there),
 * from every stored fact, live or not: items and facts are paired in teach order (fact ids sort by
 * creation) by duplicate key, each fact to the first unpaired item with its key; an item left
 * without a fact was skipped (the same text as a live fact, or a restatement of a live claim with
 * the same value). An item skipped as a restatement whose text a later item stores is counted as
 * the stored one and the later one as skipped: the counts are right, which of the two is not.
 */
export async function fatesOfItems<T extends { text: string }>(db: Db, workspaceId: string, items: readonly T[]): Promise<ItemFate[]> {
  const rows = await db.sql<{ normalized: string; superseded: boolean }>`
    SELECT normalized, superseded_by IS NOT NULL AS superseded FROM facts WHERE workspace_id = ${workspaceId} ORDER BY id`;
  const byKey = new Map<string, boolean[]>();
  for (const r of rows) {
    const list = byKey.get(r.normalized);
    if (list) list.push(r.superseded);
    else byKey.set(r.normalized, [r.superseded]);
  }
  return items.map((item) => {
    const superseded = byKey.get(normalizeForDuplicates(item.text))?.shift();
    return superseded === undefined ? "skipped" : superseded ? "superseded" : "live";
  });
}
