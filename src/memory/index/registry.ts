import type { Db } from "../../db/types";
import type { SemanticSearch } from "../../embeddings/semantic";
import type { Logger } from "../../log";
import { loadFactChanges, loadLiveFacts, readFactHead, type FactChanges } from "../changes";
import { readIndexSnapshot, writeIndexSnapshot } from "../index-snapshots";
import { RecallLog } from "../recalls";
import { FactIndex } from "./fact-index";
import { decodeIndex, encodeIndex, SNAPSHOT_FORMAT } from "./snapshot";

/** Facts read per statement while building an index. */
const BUILD_PAGE = 10_000;
/** A delta larger than this is not worth applying row by row: the index is rebuilt instead. */
const MAX_DELTA = 20_000;

export interface FactIndexOptions {
  /** Workspaces with fewer live facts get no snapshot: reading their facts is as quick. */
  snapshotMinFacts: number;
  /** A snapshot is rewritten once the changes since it pass this share of the live facts. */
  snapshotRefreshShare: number;
  log: Logger | null;
  /** The operator's embeddings endpoint, when one is configured: searches also rank by its vectors. */
  semantic: SemanticSearch | null;
}

const DEFAULTS: FactIndexOptions = { snapshotMinFacts: 256, snapshotRefreshShare: 0.25, log: null, semantic: null };

export interface IndexStats {
  workspaces: number;
  facts: number;
  bytes: number;
  budgetBytes: number;
  builds: number;
  /** Builds that started from a stored snapshot. */
  snapshotBuilds: number;
  snapshotWrites: number;
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
  /** Changes applied since the stored snapshot (Infinity: none is known to be stored). */
  sinceSnapshot: number;
  writing: boolean;
}

/**
 * The process's search indexes, one per workspace, built on first use and evicted least recently
 * used once their estimated size passes the budget (MEMORYD_INDEX_MEMORY_MB). A read first brings
 * the workspace's index up to date with the database's change log, so every instance serves what
 * any instance wrote before the read began. A build starts from the workspace's stored snapshot
 * when there is a usable one, and a build or sync that leaves the snapshot far behind writes a
 * new one in the background.
 */
export class FactIndexes {
  /** Map order is the LRU order: a read moves its workspace to the end. */
  private readonly entries = new Map<string, Entry>();
  private builds = 0;
  private snapshotBuilds = 0;
  private snapshotWrites = 0;
  /** Snapshot writes under way, awaited by `settle`. */
  private readonly writes = new Set<Promise<void>>();
  private readonly options: FactIndexOptions;
  /** Orders reads and syncs: a sync that started after a read began has seen its caller's writes. */
  private clock = 0;
  private evictions = 0;
  /** Reads, and reads the index in memory answered without asking the database (the cache's hits). */
  private reads = 0;
  private hits = 0;
  /** The facts the process's searches and packets returned, counted and written in batches. */
  readonly recalls: RecallLog;

  constructor(
    private readonly db: Db,
    private readonly budgetBytes: number,
    options: Partial<FactIndexOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.recalls = new RecallLog(db, this.options.log);
  }

  /** Vectors from the operator's embeddings endpoint, or null when none is configured. */
  get semantic(): SemanticSearch | null {
    return this.options.semantic;
  }

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
    return {
      workspaces: this.entries.size,
      facts,
      bytes,
      budgetBytes: this.budgetBytes,
      builds: this.builds,
      snapshotBuilds: this.snapshotBuilds,
      snapshotWrites: this.snapshotWrites,
      evictions: this.evictions,
      reads: this.reads,
      hits: this.hits,
    };
  }

  /** Writes the recalls counted so far and waits for the snapshot writes under way (before the database closes). */
  async settle(): Promise<void> {
    await this.recalls.flush();
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  private touch(workspaceId: string): Entry {
    let entry = this.entries.get(workspaceId);
    if (entry) this.entries.delete(workspaceId);
    else entry = { index: null, syncing: null, bytes: 0, sinceSnapshot: Number.POSITIVE_INFINITY, writing: false };
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
        entry.sinceSnapshot += changes.upserts.length + changes.removals.length;
      } else {
        const built = await this.build(workspaceId);
        index = built.index;
        entry.sinceSnapshot = built.sinceSnapshot;
      }
      entry.index = index;
      this.maybeWriteSnapshot(workspaceId, entry, index);
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
   * Reads the head and the stored snapshot; from a usable snapshot, only the changes after it.
   * Otherwise the live facts page by page, then every change after that head: pages may have
   * seen later writes (or missed facts superseded meanwhile), and the delta settles both.
   */
  private async build(workspaceId: string): Promise<{ index: FactIndex; sinceSnapshot: number }> {
    this.builds += 1;
    const [head, stored] = await Promise.all([readFactHead(this.db, workspaceId), readIndexSnapshot(this.db, workspaceId, SNAPSHOT_FORMAT)]);
    if (head === null) return { index: new FactIndex(), sinceSnapshot: Number.POSITIVE_INFINITY };
    if (stored !== null && stored.seq >= head.floor && stored.seq <= head.seq) {
      const index = decodeIndex(stored.bytes);
      const changes = index === null ? null : await loadFactChanges(this.db, workspaceId, stored.seq, MAX_DELTA);
      if (index !== null && changes !== null && !changes.truncated && changes.head.floor <= stored.seq) {
        index.seq = stored.seq;
        applyChanges(index, changes);
        this.snapshotBuilds += 1;
        return { index, sinceSnapshot: changes.upserts.length + changes.removals.length };
      }
    }
    const index = new FactIndex();
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
    if (changes === null) return { index: new FactIndex(), sinceSnapshot: Number.POSITIVE_INFINITY };
    applyChanges(index, changes);
    return { index, sinceSnapshot: Number.POSITIVE_INFINITY };
  }

  /**
   * Writes the index as the workspace's snapshot when none is stored or the one stored is far
   * behind. In the background: the read that built the index does not wait for it. One write at
   * a time per workspace; a failed one is logged and tried again after the next change.
   */
  private maybeWriteSnapshot(workspaceId: string, entry: Entry, index: FactIndex): void {
    const { snapshotMinFacts, snapshotRefreshShare, log } = this.options;
    if (entry.writing || index.live < snapshotMinFacts) return;
    if (entry.sinceSnapshot <= Math.max(snapshotMinFacts, index.live * snapshotRefreshShare)) return;
    const bytes = encodeIndex(index);
    if (bytes === null) return;
    const seq = index.seq;
    const facts = index.live;
    entry.writing = true;
    entry.sinceSnapshot = 0;
    const write = writeIndexSnapshot(this.db, workspaceId, seq, SNAPSHOT_FORMAT, facts, bytes)
      .then((written) => {
        if (written) this.snapshotWrites += 1;
      })
      .catch((error: unknown) => {
        entry.sinceSnapshot = Number.POSITIVE_INFINITY;
        log?.warn("index snapshot write failed", { workspace_id: workspaceId, error: String(error) });
      })
      .finally(() => {
        entry.writing = false;
        this.writes.delete(write);
      });
    this.writes.add(write);
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

/**
 * Builds a workspace's index from its facts and stores it as the workspace's snapshot, waiting for
 * the write: the end of a bulk load (`facts import`), so that the first search of any instance
 * afterwards reads one row instead of tokenising every fact (68,000 chat turns: seconds). A
 * workspace too small for a snapshot (`snapshotMinFacts`) gets none. Returns the facts indexed and
 * whether a snapshot was stored (a concurrent delete refuses it; the next read builds and writes one).
 */
export async function snapshotWorkspace(db: Db, workspaceId: string, log: Logger | null = null): Promise<{ facts: number; written: boolean }> {
  const indexes = new FactIndexes(db, Number.POSITIVE_INFINITY, { log });
  const index = await indexes.read(workspaceId, null);
  await indexes.settle();
  return { facts: index.live, written: indexes.stats().snapshotWrites > 0 };
}
