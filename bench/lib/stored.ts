/**
 * Which stored facts stand for which taught items: capture keeps a fact's text as written, but a
 * duplicate is skipped (its duplicate key names the fact it repeats) and a superseded fact is no
 * longer searchable (its items map to nothing).
 */
import { normalizeForDuplicates } from "../../src/capture/analyze";
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
