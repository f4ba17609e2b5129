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

/** The workspace's snapshot written in `format`, or null (none, or another tokeniser's). */
export async function readIndexSnapshot(db: Queryable, workspaceId: string, format: string): Promise<StoredSnapshot | null> {
  const rows = await db.sql<{ seq: number; data: Uint8Array }>`
    SELECT seq::float8 AS seq, data FROM index_snapshots WHERE workspace_id = ${workspaceId} AND format = ${format}`;
  const row = rows[0];
  if (!row) return null;
  // Damaged bytes are no snapshot: the caller builds from the facts and writes a new one.
  const bytes = await Bun.zstdDecompress(row.data).catch(() => null);
  return bytes === null ? null : { seq: row.seq, bytes };
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
