import type { FactIndex } from "./fact-index";
import { isVisible, type ReadFilter } from "./filter";
import type { RankOptions } from "./ranking";
import { TopK } from "./top-k";
import { factLift } from "../time/fact-lift";
import type { TimeWindow } from "../time/query-time";

/**
 * The latest visible facts (recorded time, then id): for queries without terms and the about_actor
 * fill. When the query names a time (`windows`: "what happened last week?"), the facts observed
 * nearest it come first.
 */
export function recentFacts(index: FactIndex, filter: ReadFilter, options: RankOptions, windows: readonly TimeWindow[] = []): number[] {
  // Each considered fact's lift, by ordinal (only allocated when the query names a time).
  const lift = windows.length === 0 ? null : new Float64Array(index.count);
  const liftOf = (ord: number): number => (lift === null ? 0 : lift[ord]!);
  const top = new TopK(
    options.limit,
    (a, b) =>
      liftOf(a) > liftOf(b) ||
      (liftOf(a) === liftOf(b) &&
        (index.recordedAt[a]! > index.recordedAt[b]! || (index.recordedAt[a] === index.recordedAt[b] && index.ids[a]! > index.ids[b]!))),
  );
  const consider = (ord: number): void => {
    if (!isVisible(index, ord, filter)) return;
    if (options.onlyEndUser === true && index.endUserOf[ord]! < 0) return;
    if (options.exclude?.has(ord)) return;
    if (lift !== null) lift[ord] = factLift(index, windows, ord);
    top.offer(ord);
  };
  if (options.onlyEndUser === true) {
    for (const ord of filter.endUser >= 0 ? (index.endUserFacts[filter.endUser] ?? []) : []) consider(ord);
  } else if (lift === null) {
    // Newest first until the limit is reached: the cost follows the limit, not the workspace.
    const order = index.byRecency();
    for (let i = order.length - 1; i >= 0 && top.items.length < options.limit; i--) consider(order[i]!);
  } else {
    for (let ord = 0; ord < index.count; ord++) consider(ord);
  }
  return top.sorted();
}

/** Pinned visible facts, latest first: the packet's always-present core. */
export function pinnedFacts(index: FactIndex, filter: ReadFilter, limit: number): number[] {
  const top = new TopK(
    limit,
    (a, b) => index.recordedAt[a]! > index.recordedAt[b]! || (index.recordedAt[a] === index.recordedAt[b] && index.ids[a]! > index.ids[b]!),
  );
  for (const ord of index.pinned) if (isVisible(index, ord, filter)) top.offer(ord);
  return top.sorted();
}
