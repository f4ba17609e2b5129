/**
 * EXPLAIN (ANALYZE, BUFFERS) of the product's search SQL: the query is analysed with
 * `analyseQuery` (src/memory/rank.ts), and both that statement and `rankFacts` run unchanged
 * against a Queryable that prefixes the statement they build with EXPLAIN, so the plans are of
 * exactly the SQL (and bind values) the server sends.
 */
import type { Db, Queryable } from "../../src/db/types";
import { analyseQuery, rankFacts, type RankOptions } from "../../src/memory/rank";
import type { Visibility } from "../../src/memory/visibility";

const EXPLAIN = "EXPLAIN (ANALYZE, BUFFERS, SETTINGS)";

function explaining(db: Db, captured: string[]): Queryable {
  return {
    sql: (async (strings: TemplateStringsArray, ...values: unknown[]) => {
      const text = [...strings];
      text[0] = `${EXPLAIN} ${text[0] ?? ""}`;
      const rows = await db.sql<Record<string, string>>(Object.assign(text, { raw: [...text] }) as unknown as TemplateStringsArray, ...values);
      captured.push(rows.map((r) => r["QUERY PLAN"] ?? Object.values(r)[0]).join("\n"));
      return [];
    }) as Queryable["sql"],
    exec: (text) => db.exec(text),
  };
}

/** The plans of the search's statements: analyseQuery, then rankFacts. */
export async function explainSearch(db: Db, v: Visibility, options: RankOptions): Promise<string> {
  const analysePlan: string[] = [];
  await analyseQuery(explaining(db, analysePlan), v.workspaceId, options.query).catch(() => undefined);
  const analysed = await analyseQuery(db, v.workspaceId, options.query);
  const rankPlan: string[] = [];
  await rankFacts(explaining(db, rankPlan), v, analysed, options);
  const terms = analysed.terms.map((t) => `${t.lexeme} (df ${t.df})`).join(", ");
  return [
    `-- 1. analyseQuery: terms ${terms || "(none)"}`,
    ...analysePlan,
    "",
    "-- 2. rankFacts",
    ...rankPlan,
  ].join("\n");
}
