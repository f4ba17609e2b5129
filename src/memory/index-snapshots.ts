import type { Db, Queryable } from "../db/types";

/**
 * Stored index snapshots (migrations 013, 018): one row per workspace, as zstd frames. SQL for them,
 * one named function per statement.
 */

export interface StoredSnapshot {
  /** The change sequence the snapshot reflects. */
  seq: number;
  /** The snapshot bytes, decompressed. */
  bytes: Uint8Array;
}

/** Snapshot bytes per zstd frame: small enough that a 40 MB row is read in dozens of groups at once. */
const FRAME_BYTES = 2 * 1024 * 1024;
/** Compressed bytes read per statement, at least: whole frames, grouped up to this size. */
const READ_BYTES = 2 * 1024 * 1024;

/**
 * The workspace's snapshot written in `format`, or null (none, another tokeniser's, or one
 * rewritten while it was being read). The row's frames (migration 018) are read in groups of
 * about `readBytes`, all at once over the pool, and each group is unpacked as it arrives, on
 * zstd's threads: a 40 MB row read whole took 0.3-0.4 s through the text protocol, then 0.2 s to
 * unpack; read and unpacked in groups, 0.25-0.35 s in all. Trade-off: on the embedded database
 * (one connection) the groups are read one after another; unpacking still overlaps the reads.
 * Each group names the version it came from, so a snapshot replaced between two groups is not
 * pieced together from both.
 */
export async function readIndexSnapshot(db: Queryable, workspaceId: string, format: string, readBytes = READ_BYTES): Promise<StoredSnapshot | null> {
  const heads = await db.sql<{ seq: number; version: string; frame_bytes: number; frame_ends: number[] }>`
    SELECT seq::float8 AS seq, written_at::text AS version, frame_bytes, frame_ends
      FROM index_snapshots WHERE workspace_id = ${workspaceId} AND format = ${format}`;
  const head = heads[0];
  if (!head || head.frame_ends.length === 0) return null;
  const ends = head.frame_ends;
  const out = new Uint8Array(ends.length * head.frame_bytes);
  let length = 0;
  const groups: { first: number; last: number }[] = [];
  for (let first = 0; first < ends.length; ) {
    const from = first === 0 ? 0 : ends[first - 1]!;
    let last = first;
    while (last + 1 < ends.length && ends[last + 1]! - from <= readBytes) last++;
    groups.push({ first, last });
    first = last + 1;
  }
  const unpacked = await Promise.all(
    groups.map(async ({ first, last }): Promise<boolean> => {
      const from = first === 0 ? 0 : ends[first - 1]!;
      const rows = await db.sql<{ part: Uint8Array; version: string }>`
        SELECT substring(data FROM ${from + 1} FOR ${ends[last]! - from}) AS part, written_at::text AS version
          FROM index_snapshots WHERE workspace_id = ${workspaceId} AND format = ${format}`;
      const row = rows[0];
      if (row === undefined || row.version !== head.version || row.part.length !== ends[last]! - from) return false;
      // Damaged bytes are no snapshot: the caller builds from the facts and writes a new one.
      const bytes = await Bun.zstdDecompress(row.part).catch(() => null);
      const at = first * head.frame_bytes;
      const whole = (last - first + 1) * head.frame_bytes;
      // Every frame but the row's last holds exactly `frame_bytes`.
      if (bytes === null || bytes.length > whole || (last < ends.length - 1 && bytes.length !== whole)) return false;
      out.set(bytes, at);
      length = Math.max(length, at + bytes.length);
      return true;
    }),
  );
  return unpacked.every(Boolean) ? { seq: head.seq, bytes: out.subarray(0, length) } : null;
}

/** The snapshot as zstd frames of `frameBytes` each, compressed at once on zstd's threads, back to back. */
async function compressFrames(bytes: Uint8Array, frameBytes: number): Promise<{ data: Uint8Array; ends: number[] }> {
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; at += frameBytes) starts.push(at);
  const frames = await Promise.all(starts.map((at) => Bun.zstdCompress(bytes.subarray(at, at + frameBytes), { level: 1 })));
  const ends: number[] = [];
  let total = 0;
  for (const frame of frames) {
    total += frame.length;
    ends.push(total);
  }
  const data = new Uint8Array(total);
  for (let i = 0; i < frames.length; i++) data.set(frames[i]!, i === 0 ? 0 : ends[i - 1]!);
  return { data, ends };
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
export async function writeIndexSnapshot(
  db: Db,
  workspaceId: string,
  seq: number,
  format: string,
  facts: number,
  bytes: Uint8Array,
  frameBytes = FRAME_BYTES,
): Promise<boolean> {
  const { data, ends } = await compressFrames(bytes, frameBytes);
  return db.transaction(async (tx) => {
    const head = await tx.sql<{ floor: number }>`
      SELECT floor::float8 AS floor FROM fact_sequences WHERE workspace_id = ${workspaceId} FOR SHARE`;
    if (!head[0] || head[0].floor > seq) return false;
    // A separate statement: under READ COMMITTED it sees every delete that committed before the lock was granted.
    const deleted = await tx.sql`SELECT 1 FROM fact_tombstones WHERE workspace_id = ${workspaceId} AND seq > ${seq} LIMIT 1`;
    if (deleted.length > 0) return false;
    const written = await tx.sql`
      INSERT INTO index_snapshots (workspace_id, seq, format, facts, data, frame_bytes, frame_ends)
      VALUES (${workspaceId}, ${seq}, ${format}, ${facts}, ${data}, ${frameBytes}, ${ends}::integer[])
      ON CONFLICT (workspace_id) DO UPDATE
        SET seq = excluded.seq, format = excluded.format, facts = excluded.facts, data = excluded.data,
            frame_bytes = excluded.frame_bytes, frame_ends = excluded.frame_ends, written_at = now()
        WHERE index_snapshots.seq <= excluded.seq OR index_snapshots.format <> excluded.format
      RETURNING 1`;
    return written.length > 0;
  });
}

/** Drops the workspace's snapshot; in every transaction that deletes facts (see `writeIndexSnapshot`). */
export async function dropIndexSnapshot(tx: Queryable, workspaceId: string): Promise<void> {
  await tx.sql`DELETE FROM index_snapshots WHERE workspace_id = ${workspaceId}`;
}
