/**
 * Which stored facts stand for which taught items: capture keeps a fact's text as written, but a
 * duplicate is skipped (its duplicate key names the fact it repeats) and a superseded fact is no
 * longer searchable (its items map to nothing).
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
