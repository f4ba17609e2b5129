/**
 * Which live facts update which (capture/links.ts), both ways, as a FactIndex holds them: by id,
 * not ordinal, so compaction leaves them be; a snapshot stores them as pairs.
 */
export class UpdateLinks {
  /** Older -> newer facts, and newer -> older. */
  private readonly newerOf = new Map<string, string[]>();
  private readonly olderOf = new Map<string, readonly string[]>();

  /** The live facts that update the fact with this id (capture/links.ts), in the order they were linked. */
  newerThan(id: string): readonly string[] {
    return this.newerOf.get(id) ?? [];
  }

  /** Records that `newer` updates each of `olders`. */
  link(newer: string, olders: readonly string[]): void {
    this.olderOf.set(newer, [...(this.olderOf.get(newer) ?? []), ...olders]);
    for (const older of olders) {
      const list = this.newerOf.get(older);
      if (list === undefined) this.newerOf.set(older, [newer]);
      else if (!list.includes(newer)) list.push(newer);
    }
  }

  /** Forgets the links a fact made (it left the index, or is about to be re-added). */
  unlink(newer: string): void {
    const olders = this.olderOf.get(newer);
    if (olders === undefined) return;
    this.olderOf.delete(newer);
    for (const older of olders) {
      const list = this.newerOf.get(older)?.filter((id) => id !== newer) ?? [];
      if (list.length === 0) this.newerOf.delete(older);
      else this.newerOf.set(older, list);
    }
  }

  /** The links as [newer id, older id] pairs, flattened (`IndexParts.links`). */
  pairs(): string[] {
    return [...this.olderOf].flatMap(([newer, olders]) => olders.flatMap((older) => [newer, older]));
  }
}
