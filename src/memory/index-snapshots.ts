import type { Db, Queryable } from "../db/types";

/**
 * Stored index snapshots (migration 013): one row per workspace, zstd-compressed. SQL for them,
 * one named function per statement.
 */

export interface StoredSnapshot {
  /** The change sequence the snapshot reflects. */
  seq: number;
  /** The snapshot bytes, decompressed. */
  bytes: Uint8Array;
}

/** Bytes read per statement: a snapshot is read in slices of this size at once. */
const READ_SLICE = 4 * 1024 * 1024;

/**
 * The workspace's snapshot written in `format`, or null (none, another tokeniser's, or one
 * rewritten while it was being read). Read in slices, all at once: a 40 MB row read whole took
 * 0.3-0.4 s through the text protocol (PostgreSQL reading the stored value one piece after another,
 * then one 80 MB hex string), in 4 MiB slices over the pool about half that, and no string is more
 * than 8 MB. Trade-off: on the embedded database (one connection) the slices are read one after
 * another, as fast as the whole. Each slice names the version it came from, so a snapshot
 * replaced between two slices is not pieced together from both.
 */
export async function readIndexSnapshot(db: Queryable, workspaceId: string, format: string, slice = READ_SLICE): Promise<StoredSnapshot | null> {
  const heads = await db.sql<{ seq: number; version: string; size: number }>`
    SELECT seq::float8 AS seq, written_at::text AS version, length(data) AS size
      FROM index_snapshots WHERE workspace_id = ${workspaceId} AND format = ${format}`;
  const head = heads[0];
  if (!head) return null;
  const step = Math.max(1, Math.min(slice, head.size));
  const starts: number[] = [];
  for (let at = 0; at < head.size; at += step) starts.push(at);
  const slices = await Promise.all(
    starts.map(
      (at) => db.sql<{ part: Uint8Array; version: string }>`
        SELECT substring(data FROM ${at + 1} FOR ${step}) AS part, written_at::text AS version
          FROM index_snapshots WHERE workspace_id = ${workspaceId} AND format = ${format}`,
    ),
  );
  const compressed = new Uint8Array(head.size);
  for (let i = 0; i < slices.length; i++) {
    const row = slices[i]![0];
    if (row === undefined || row.version !== head.version || starts[i]! + row.part.length > head.size) return null;
    compressed.set(row.part, starts[i]!);
  }
  // Damaged bytes are no snapshot: the caller builds from the facts and writes a new one.
  const bytes = await Bun.zstdDecompress(compressed).catch(() => null);
  return bytes === null ? null : { seq: head.seq, bytes };
}

/**
 * Stores a snapshot of the workspace's index at `seq` unless a newer one is there (one as old is
 * replaced: it may be the damaged one the caller could not read). Refused (false)
 * when a fact was deleted after `seq`: the snapshot would still hold its text, and a forgotten
 * text must not outlive its row. Trade-off: the sequence row is locked (FOR SHARE) for the
 * write, so a delete either committed before the check (and is seen by it) or waits and then
 * drops this snapshot (`dropIndexSnapshot`); teach in the workspace waits as long, which is one
 * row write, rarely.
 */
export async function writeIndexSnapshot(db: Db, workspaceId: string, seq: number, format: string, facts: number, bytes: Uint8Array): Promise<boolean> {
  const data = await Bun.zstdCompress(bytes, { level: 1 });
  return db.transaction(async (tx) => {
    const head = await tx.sql<{ floor: number }>`
      SELECT floor::float8 AS floor FROM fact_sequences WHERE workspace_id = ${workspaceId} FOR SHARE`;
    if (!head[0] || head[0].floor > seq) return false;
    // A separate statement: under READ COMMITTED it sees every delete that committed before the lock was granted.
    const deleted = await tx.sql`SELECT 1 FROM fact_tombstones WHERE workspace_id = ${workspaceId} AND seq > ${seq} LIMIT 1`;
    if (deleted.length > 0) return false;
    const written = await tx.sql`
      INSERT INTO index_snapshots (workspace_id, seq, format, facts, data)
      VALUES (${workspaceId}, ${seq}, ${format}, ${facts}, ${data})
      ON CONFLICT (workspace_id) DO UPDATE
        SET seq = excluded.seq, format = excluded.format, facts = excluded.facts, data = excluded.data, written_at = now()
        WHERE index_snapshots.seq <= excluded.seq OR index_snapshots.format <> excluded.format
      RETURNING 1`;
    return written.length > 0;
  });
}

/** Drops the workspace's snapshot; in every transaction that deletes facts (see `writeIndexSnapshot`). */
export async function dropIndexSnapshot(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.sql`DELETE FROM index_snapshots WHERE workspace_id = ${workspaceId}`;
}
