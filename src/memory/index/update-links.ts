/**
 * Which live facts update which (capture/links.ts, capture/updates.ts), both ways, as a FactIndex
 * holds them: by id, not ordinal, so compaction leaves them be; a snapshot stores them as pairs.
 * A weak link (read on thin evidence) only reorders facts a question found.
 */
export interface NewerFact {
  id: string;
  weak: boolean;
}

export class UpdateLinks {
  /** Older -> newer facts, and newer -> older. */
  private readonly newerOf = new Map<string, NewerFact[]>();
  private readonly olderOf = new Map<string, readonly string[]>();

  /** The live facts that update the fact with this id, in the order they were linked. */
  newerThan(id: string): readonly NewerFact[] {
    return this.newerOf.get(id) ?? [];
  }

  /** Records that `newer` updates each of `olders` (weakly: it only reorders). */
  link(newer: string, olders: readonly string[], weak = false): void {
    this.olderOf.set(newer, [...(this.olderOf.get(newer) ?? []), ...olders]);
    for (const older of olders) {
      const list = this.newerOf.get(older);
      if (list === undefined) this.newerOf.set(older, [{ id: newer, weak }]);
      else if (!list.some((n) => n.id === newer)) list.push({ id: newer, weak });
    }
  }

  /** Forgets the links a fact made (it left the index, or is about to be re-added). */
  unlink(newer: string): void {
    const olders = this.olderOf.get(newer);
    if (olders === undefined) return;
    this.olderOf.delete(newer);
    for (const older of olders) {
      const list = this.newerOf.get(older)?.filter((n) => n.id !== newer) ?? [];
      if (list.length === 0) this.newerOf.delete(older);
      else this.newerOf.set(older, list);
    }
  }

  /** The links as [newer id, older id] pairs, flattened, strong ones and weak ones apart (`IndexParts.links`, `weakLinks`). */
  pairs(weak: boolean): string[] {
    return [...this.newerOf].flatMap(([older, newer]) => newer.filter((n) => n.weak === weak).flatMap((n) => [n.id, older]));
  }
}
