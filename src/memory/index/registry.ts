import type { Db } from "../../db/types";
import { loadFactChanges, loadLiveFacts, readFactHead, type FactChanges } from "../changes";
import { FactIndex } from "./fact-index";

/** Facts read per statement while building an index. */
const BUILD_PAGE = 10_000;
/** A delta larger than this is not worth applying row by row: the index is rebuilt instead. */
const MAX_DELTA = 20_000;

export interface IndexStats {
  workspaces: number;
  facts: number;
  bytes: number;
  budgetBytes: number;
  builds: number;
  evictions: number;
  reads: number;
  /** Reads answered by an index already current, without a database round trip. */
  hits: number;
}

interface Entry {
  index: FactIndex | null;
  /** The sync under way, if any: one at a time per workspace. */
  syncing: { promise: Promise<FactIndex>; startedAt: number } | null;
  bytes: number;
}

/**
 * The process's search indexes, one per workspace, built on first use and evicted least recently
 * used once their estimated size passes the budget (MEMORYD_INDEX_MEMORY_MB). A read first brings
 * the workspace's index up to date with the database's change log, so every instance serves what
 * any instance wrote before the read began.
 */
export class FactIndexes {
  /** Map order is the LRU order: a read moves its workspace to the end. */
  private readonly entries = new Map<string, Entry>();
  private builds = 0;
  /** Orders reads and syncs: a sync that started after a read began has seen its caller's writes. */
  private clock = 0;
  private evictions = 0;
  /** Reads, and reads the index in memory answered without asking the database (the cache's hits). */
  private reads = 0;
  private hits = 0;

  constructor(
    private readonly db: Db,
    private readonly budgetBytes: number,
  ) {}

  /**
   * The workspace's index, reflecting at least change `knownSeq` (from the caller's
   * authentication, which read it in the same statement as the key). With `null` the database is
   * asked for its current sequence. Either way the index never goes back in time.
   */
  async read(workspaceId: string, knownSeq: number | null): Promise<FactIndex> {
    const calledAt = ++this.clock;
    this.reads += 1;
    for (;;) {
      const entry = this.touch(workspaceId);
      if (entry.index && knownSeq !== null && entry.index.seq >= knownSeq) {
        this.hits += 1;
        return entry.index;
      }
      const syncing = entry.syncing;
      if (syncing === null) return this.sync(workspaceId, entry).promise;
      // A sync under way that began before this call may have read the database before the
      // caller's own write committed: wait for it, then look again.
      const index = await syncing.promise.catch(() => null);
      if (index && (syncing.startedAt > calledAt || (knownSeq !== null && index.seq >= knownSeq))) return index;
    }
  }

  /** Drops a workspace's index (the next read rebuilds it). */
  evict(workspaceId: string): void {
    if (this.entries.delete(workspaceId)) this.evictions += 1;
  }

  stats(): IndexStats {
    let facts = 0;
    let bytes = 0;
    for (const entry of this.entries.values()) {
      facts += entry.index?.live ?? 0;
      bytes += entry.bytes;
    }
    return { workspaces: this.entries.size, facts, bytes, budgetBytes: this.budgetBytes, builds: this.builds, evictions: this.evictions, reads: this.reads, hits: this.hits };
  }

  private touch(workspaceId: string): Entry {
    let entry = this.entries.get(workspaceId);
    if (entry) this.entries.delete(workspaceId);
    else entry = { index: null, syncing: null, bytes: 0 };
    this.entries.set(workspaceId, entry);
    return entry;
  }

  private sync(workspaceId: string, entry: Entry): { promise: Promise<FactIndex>; startedAt: number } {
    const promise = (async () => {
      const current = entry.index;
      const changes = current === null ? null : await loadFactChanges(this.db, workspaceId, current.seq, MAX_DELTA);
      let index: FactIndex;
      if (current !== null && changes !== null && !changes.truncated && changes.head.floor <= current.seq) {
        index = current;
        applyChanges(index, changes);
      } else {
        index = await this.build(workspaceId);
      }
      entry.index = index;
      entry.bytes = index.bytes();
      this.enforceBudget(workspaceId);
      return index;
    })();
    const syncing = { promise, startedAt: ++this.clock };
    entry.syncing = syncing;
    const settle = (): void => {
      if (entry.syncing === syncing) entry.syncing = null;
    };
    promise.then(settle, settle);
    return syncing;
  }

  /**
   * Reads the head, then the live facts page by page, then every change after that head: pages
   * may have seen later writes (or missed facts superseded meanwhile), and the delta settles both.
   */
  private async build(workspaceId: string): Promise<FactIndex> {
    this.builds += 1;
    const index = new FactIndex();
    const head = await readFactHead(this.db, workspaceId);
    if (head === null) return index;
    // The next page is read while this one is indexed: the database and the tokeniser work at once.
    let pending = loadLiveFacts(this.db, workspaceId, "", BUILD_PAGE);
    for (;;) {
      const page = await pending;
      const full = page.length === BUILD_PAGE;
      if (full) pending = loadLiveFacts(this.db, workspaceId, page[page.length - 1]!.id, BUILD_PAGE);
      for (const fact of page) index.add(fact);
      if (!full) break;
    }
    index.seq = head.seq;
    // Only what was written while the pages were read: applied whole, however much it is.
    const changes = await loadFactChanges(this.db, workspaceId, head.seq, Number.MAX_SAFE_INTEGER - 1);
    if (changes === null) return new FactIndex();
    applyChanges(index, changes);
    return index;
  }

  /** Evicts least recently used indexes (never the one just read) until the total fits. */
  private enforceBudget(keep: string): void {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.bytes;
    for (const [workspaceId, entry] of this.entries) {
      if (total <= this.budgetBytes) return;
      if (workspaceId === keep || entry.syncing !== null) continue;
      this.entries.delete(workspaceId);
      this.evictions += 1;
      total -= entry.bytes;
    }
  }
}

function applyChanges(index: FactIndex, changes: FactChanges): void {
  for (const fact of changes.upserts) index.add(fact);
  for (const id of changes.removals) index.remove(id);
  index.seq = changes.head.seq;
}
