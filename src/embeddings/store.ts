/**
 * The SQL of fact vectors (migration 016): the queue (live facts without a vector of the current
 * model, leased so that instances share it), the vectors themselves, and what status reports.
 */
import type { Db, Queryable } from "../db/types";

/** A fact leased for embedding. */
export interface FactToEmbed {
  id: string;
  workspace_id: string;
  text: string;
  attempts: number;
}

/**
 * Leases up to `limit` live facts that have no vector of `model` and no lease running, oldest
 * first from `afterId` (exclusive; "" from the start), workspace `workspaceId` only when given.
 *
 * Trade-off: the queue is the facts table itself, so teach writes nothing for embeddings and
 * nothing can be lost between a teach and its vector. The scan reads live facts in id order past
 * a watermark the worker keeps (ids sort by creation), so an idle poll reads only new rows. Two
 * instances leasing at once: the lease upsert only takes a row whose lease has ended, so one wins.
 *
 * Instances lease one at a time (an advisory lock, then the scan under a snapshot taken after it):
 * a scan that began before another instance's lease committed could otherwise insert its lease
 * after that instance stored the vector and deleted its lease row, and embed the fact again.
 */
export async function leaseFactsToEmbed(
  db: Db,
  model: string,
  options: { limit: number; afterId: string; leaseSeconds: number; workspaceId?: string },
): Promise<FactToEmbed[]> {
  const workspace = options.workspaceId ?? null;
  return db.transaction(async (tx) => {
    await tx.sql`SELECT pg_advisory_xact_lock(hashtext('memoryd:embedding_leases'))`;
    return leaseStatement(tx, model, options, workspace);
  });
}

function leaseStatement(
  db: Queryable,
  model: string,
  options: { limit: number; afterId: string; leaseSeconds: number },
  workspace: string | null,
): Promise<FactToEmbed[]> {
  return db.sql<FactToEmbed>`
    WITH wanted AS (
      SELECT f.id, f.workspace_id, f.text FROM facts f
       WHERE f.superseded_by IS NULL AND f.id > ${options.afterId}
         AND (${workspace}::text IS NULL OR f.workspace_id = ${workspace})
         AND NOT EXISTS (SELECT 1 FROM fact_vectors v WHERE v.fact_id = f.id AND v.model = ${model})
         AND NOT EXISTS (SELECT 1 FROM embedding_leases l WHERE l.fact_id = f.id AND l.lease_until > now())
       ORDER BY f.id
       LIMIT ${options.limit}
    ),
    leased AS (
      INSERT INTO embedding_leases (fact_id, model, lease_until)
      SELECT id, ${model}, now() + make_interval(secs => ${options.leaseSeconds}) FROM wanted
      ON CONFLICT (fact_id) DO UPDATE SET lease_until = excluded.lease_until, model = excluded.model,
        attempts = CASE WHEN embedding_leases.model = excluded.model THEN embedding_leases.attempts ELSE 0 END
        WHERE embedding_leases.lease_until <= now()
      RETURNING fact_id, attempts
    )
    SELECT w.id, w.workspace_id, w.text, l.attempts FROM wanted w JOIN leased l ON l.fact_id = w.id ORDER BY w.id`;
}

/** Vectors as stored: float32, little-endian. */
export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

export function decodeVector(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/**
 * Stores the vectors of leased facts (null: the endpoint refused that fact's text, and it is not
 * asked again) and ends their leases. A fact deleted meanwhile is skipped; another model's vector
 * of the same fact goes.
 */
export async function storeVectors(
  db: Queryable,
  model: string,
  rows: readonly { factId: string; workspaceId: string; vector: Float32Array | null }[],
): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((r) => r.factId);
  await db.sql`
    WITH added AS (
      INSERT INTO fact_vectors (fact_id, model, workspace_id, dimensions, vector)
      SELECT r.fact_id, ${model}, r.workspace_id, r.dimensions, decode(r.vector, 'base64')
        FROM unnest(${ids}::text[], ${rows.map((r) => r.workspaceId)}::text[],
                    ${rows.map((r) => String(r.vector?.length ?? 0))}::text[]::integer[],
                    ${rows.map((r) => (r.vector === null ? null : encodeVector(r.vector)))}::text[])
             AS r(fact_id, workspace_id, dimensions, vector)
       WHERE EXISTS (SELECT 1 FROM facts f WHERE f.id = r.fact_id)
      ON CONFLICT (fact_id, model) DO NOTHING
      RETURNING fact_id
    ),
    old AS (DELETE FROM fact_vectors WHERE fact_id = ANY(${ids}::text[]) AND model <> ${model} RETURNING 1)
    DELETE FROM embedding_leases WHERE fact_id = ANY(${ids}::text[])`;
}

/** Ends leases early (the endpoint failed): the facts are free for the next attempt. */
export async function releaseLeases(db: Queryable, factIds: readonly string[], failedAlone: boolean): Promise<void> {
  if (factIds.length === 0) return;
  await db.sql`
    UPDATE embedding_leases SET lease_until = now(), attempts = attempts + ${failedAlone ? 1 : 0}
     WHERE fact_id = ANY(${[...factIds]}::text[])`;
}

/** Vectors of another model: they go once the current model is configured (a few thousand at a time). */
export async function dropOtherModels(db: Queryable, model: string): Promise<number> {
  const rows = await db.sql`
    DELETE FROM fact_vectors WHERE (fact_id, model) IN (SELECT fact_id, model FROM fact_vectors WHERE model <> ${model} LIMIT 5000)
    RETURNING 1`;
  return rows.length;
}

export interface StoredVector {
  fact_id: string;
  seq: number;
  vector: Uint8Array | null;
}

/** Up to `limit` of a workspace's vectors of `model` written after `afterSeq`, in order. */
export function vectorsSince(db: Queryable, workspaceId: string, model: string, afterSeq: number, limit: number): Promise<StoredVector[]> {
  return db.sql<StoredVector>`
    SELECT fact_id, seq::float8 AS seq, vector FROM fact_vectors
     WHERE workspace_id = ${workspaceId} AND model = ${model} AND seq > ${afterSeq}
     ORDER BY seq
     LIMIT ${limit}`;
}

export interface VectorCounts {
  live_facts: number;
  with_vectors: number;
  refused: number;
  other_models: number;
}

/** How far the queue has come, for status and `memoryd doctor`. */
export async function vectorCounts(db: Queryable, model: string, workspaceId?: string): Promise<VectorCounts> {
  const workspace = workspaceId ?? null;
  const [row] = await db.sql<VectorCounts>`
    SELECT
      (SELECT count(*) FROM facts f WHERE f.superseded_by IS NULL AND (${workspace}::text IS NULL OR f.workspace_id = ${workspace}))::int AS live_facts,
      (SELECT count(*) FROM fact_vectors v JOIN facts f ON f.id = v.fact_id
        WHERE v.model = ${model} AND v.vector IS NOT NULL AND f.superseded_by IS NULL
          AND (${workspace}::text IS NULL OR f.workspace_id = ${workspace}))::int AS with_vectors,
      (SELECT count(*) FROM fact_vectors v JOIN facts f ON f.id = v.fact_id
        WHERE v.model = ${model} AND v.vector IS NULL AND f.superseded_by IS NULL
          AND (${workspace}::text IS NULL OR f.workspace_id = ${workspace}))::int AS refused,
      (SELECT count(*) FROM fact_vectors v
        WHERE v.model <> ${model} AND (${workspace}::text IS NULL OR v.workspace_id = ${workspace}))::int AS other_models`;
  return row ?? { live_facts: 0, with_vectors: 0, refused: 0, other_models: 0 };
}

/** The dimension of the model's stored vectors, or null before the first. */
export async function storedDimensions(db: Queryable, model: string): Promise<number | null> {
  const [row] = await db.sql<{ dimensions: number }>`
    SELECT dimensions FROM fact_vectors WHERE model = ${model} AND vector IS NOT NULL LIMIT 1`;
  return row?.dimensions ?? null;
}

/** Forgets every lease: on the embedded database one process holds the data, so no lease is anyone else's. */
export async function clearLeases(db: Queryable): Promise<void> {
  await db.sql`DELETE FROM embedding_leases`;
}
