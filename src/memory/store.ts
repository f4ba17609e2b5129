import { fragment, type Fragment } from "../db/fragment";
import type { Queryable } from "../db/types";
import type { Fact, FactKind, Origin } from "../schema/memory";
import { visibleFacts, type Visibility } from "./visibility";

/** A fact row as reads select it (FACT_COLUMNS). */
export interface FactRow {
  id: string;
  text: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  confidence: number;
  recorded_at: Date;
  end_user_id: string | null;
  pinned: boolean;
}

export const FACT_COLUMNS: Fragment = fragment`f.id, f.text, f.kind, f.origin, f.subject, f.confidence, f.recorded_at, f.end_user_id, f.pinned`;

export function toFact(row: FactRow): Fact {
  return {
    fact_id: row.id,
    fact_text: row.text,
    kind: row.kind,
    origin: row.origin,
    subject: row.subject,
    confidence_level: Math.round(Number(row.confidence) * 1000) / 1000,
    recorded_time: new Date(row.recorded_at).toISOString(),
  };
}

/** Latest visible facts: what a query with no searchable words gets, and the about_actor fill. */
export async function recentFacts(
  db: Queryable,
  v: Visibility,
  options: { limit: number; onlyEndUser?: boolean; excludeIds?: readonly string[] },
): Promise<FactRow[]> {
  const onlyEndUser = options.onlyEndUser === true;
  const exclude = [...(options.excludeIds ?? [])];
  return db.sql<FactRow>`
    SELECT ${FACT_COLUMNS} FROM facts f
     WHERE ${visibleFacts(v)}
       AND (NOT ${onlyEndUser}::boolean OR f.end_user_id IS NOT NULL)
       AND f.id <> ALL(${exclude}::text[])
     ORDER BY f.recorded_at DESC, f.id DESC
     LIMIT ${options.limit}`;
}

/** Pinned facts: the packet's always-present core. */
export async function pinnedFacts(db: Queryable, v: Visibility, limit: number): Promise<FactRow[]> {
  return db.sql<FactRow>`
    SELECT ${FACT_COLUMNS} FROM facts f
     WHERE ${visibleFacts(v)} AND f.pinned
     ORDER BY f.recorded_at DESC, f.id DESC
     LIMIT ${limit}`;
}
