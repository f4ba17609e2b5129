import type { FactIndex } from "./fact-index";

/** Higher score first, then the more recent fact, then the larger id: a total, stable order. */
export function better(index: FactIndex, scores: Float64Array | Map<number, number>, a: number, b: number): boolean {
  const sa = scores instanceof Map ? scores.get(a)! : scores[a]!;
  const sb = scores instanceof Map ? scores.get(b)! : scores[b]!;
  if (sa !== sb) return sa > sb;
  const ra = index.recordedAt[a]!;
  const rb = index.recordedAt[b]!;
  if (ra !== rb) return ra > rb;
  return index.ids[a]! > index.ids[b]!;
}

/** Keeps the best `size` ordinals seen: a binary min-heap whose root is the worst kept. */
export class TopK {
  readonly items: number[] = [];
  constructor(
    readonly size: number,
    private readonly isBetter: (a: number, b: number) => boolean,
  ) {}

  offer(ord: number): void {
    const items = this.items;
    if (items.length < this.size) {
      items.push(ord);
      let i = items.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.isBetter(items[parent]!, items[i]!)) break;
        [items[parent], items[i]] = [items[i]!, items[parent]!];
        i = parent;
      }
      return;
    }
    if (this.size === 0 || !this.isBetter(ord, items[0]!)) return;
    items[0] = ord;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < items.length && this.isBetter(items[worst]!, items[l]!)) worst = l;
      if (r < items.length && this.isBetter(items[worst]!, items[r]!)) worst = r;
      if (worst === i) return;
      [items[worst], items[i]] = [items[i]!, items[worst]!];
      i = worst;
    }
  }

  sorted(): number[] {
    return [...this.items].sort((a, b) => (this.isBetter(a, b) ? -1 : 1));
  }
}
