/**
 * EXPLAIN (ANALYZE, BUFFERS) of the SQL left on the hot paths now that search runs in process,
 * on the bench databases (1M+ facts): the product's own functions are called with a recording
 * Queryable that captures their exact statement and bind values, which then run under EXPLAIN
 * inside a transaction that is rolled back (the writes among them change nothing).
 *
 *   bun bench/explain.ts [--admin-url postgres://postgres@127.0.0.1:5432/postgres] [--dbs main,big]
 *
 * Statements: authenticate (src/auth/authenticate.ts), liveClaims (src/capture/store.ts) with
 * five claim keys of the workspace, claimNextRun (src/answers/store.ts) beside 20,000 completed
 * and 100 queued answers inserted in the rolled-back transaction, loadFactChanges
 * (src/memory/changes.ts) with an empty delta and with 20 changed facts (stamped inside the
 * rolled-back transaction), loadLiveFacts (first and a middle page of 10,000), and
 * forgetEndUser's DELETE of the facts about the end user with the fewest facts (its per-row
 * ON DELETE SET NULL lookup on `superseded_by` shows as a trigger). Each runs twice and the second (warm) plan is
 * printed, except the DELETE (once). Then the round trip of authenticate() (300 calls, one
 * connection) with the session's synchronous_commit on (the server default) and off, beside
 * `select 1`: its rate-limit upsert makes every request a write transaction that waits for the
 * WAL flush.
 */
import { claimNextRun } from "../src/answers/store";
import { authenticate } from "../src/auth/authenticate";
import { liveClaims } from "../src/capture/store";
import { forgetEndUser } from "../src/memory/admin";
import { flatten } from "../src/db/fragment";
import { openPostgres } from "../src/db/postgres";
import type { Db, Queryable } from "../src/db/types";
import { loadFactChanges, loadLiveFacts, nextFactSeq, readFactHead } from "../src/memory/changes";
import { DATABASES, prepareDatabase } from "./support/layout";
import { percentiles } from "./support/loadgen";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";

const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dbs = (argValue("--dbs") ?? "main,big").split(",");
const TARGETS: Record<string, string> = { main: "m100k", big: "one1m" };
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

interface Statement {
  strings: string[];
  values: unknown[];
}

class Captured extends Error {
  constructor(readonly statement: Statement) {
    super("captured");
  }
}
class Rollback extends Error {
  constructor(readonly plan: string) {
    super("rollback");
  }
}

/**
 * The `nth` statement `fn` sends (0: the first), without running it; earlier ones answer one
 * row `{seq: 1}` (what nextFactSeq reads).
 */
async function capture(fn: (q: Queryable) => Promise<unknown>, nth = 0): Promise<Statement> {
  let sent = 0;
  const recorder: Queryable = {
    sql: (async (strings: TemplateStringsArray, ...values: unknown[]) => {
      if (sent++ < nth) return [{ seq: 1 }];
      const flat = flatten(strings, values);
      throw new Captured({ strings: [...flat.strings], values: flat.values });
    }) as Queryable["sql"],
    exec: async () => {
      throw new Error("exec is not captured");
    },
  };
  try {
    await fn(recorder);
  } catch (error) {
    if (error instanceof Captured) return error.statement;
    throw error;
  }
  throw new Error("no statement was sent");
}

const text = (s: Statement) => s.strings.reduce((acc, part, i) => acc + (i === 0 ? "" : `$${i}`) + part, "");
const dedent = (sql: string) => {
  const lines = sql.replace(/^\n+/, "").trimEnd().split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)![0].length));
  return lines.map((l) => l.slice(indent)).join("\n");
};

/** EXPLAIN ANALYZE of the statement in a rolled-back transaction, after `before` ran in it. */
async function explain(db: Db, statement: Statement, before?: (tx: Queryable) => Promise<void>): Promise<string> {
  const strings = [`EXPLAIN (ANALYZE, BUFFERS) ${statement.strings[0]}`, ...statement.strings.slice(1)];
  const template = Object.assign([...strings], { raw: [...strings] }) as unknown as TemplateStringsArray;
  try {
    await db.transaction(async (tx) => {
      if (before) await before(tx);
      const rows = await tx.sql<{ "QUERY PLAN": string }>(template, ...statement.values);
      throw new Rollback(rows.map((r) => r["QUERY PLAN"]).join("\n"));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.plan;
    throw error;
  }
  throw new Error("unreachable");
}

const out: string[] = [`# memoryd EXPLAIN of the remaining SQL, ${new Date().toISOString()}`, ...provenance()];
for (const name of dbs) {
  const slug = TARGETS[name];
  if (!slug) throw new Error(`unknown database "${name}" (${Object.keys(TARGETS).join(", ")})`);
  const prepared = await prepareDatabase(adminUrl, DATABASES[name]!, { log });
  const file = prepared.files.get(slug)!;
  const db = openPostgres({ url: prepared.url, maxConnections: 2 });
  try {
    const ws = file.workspaceId;
    const [{ facts, workspaces, answers, queued }] = (await db.sql<{ facts: number; workspaces: number; answers: number; queued: number }>`
      SELECT (SELECT count(*) FROM facts)::int AS facts, (SELECT count(*) FROM workspaces)::int AS workspaces,
             (SELECT count(*) FROM answers)::int AS answers,
             (SELECT count(*) FROM answers WHERE status = 'queued' OR status = 'in_progress')::int AS queued`) as [
      { facts: number; workspaces: number; answers: number; queued: number },
    ];
    const mine = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM facts WHERE workspace_id = ${ws}`;
    const claimed = await db.sql<{ claim_key: string; claim_subject: string }>`
        SELECT claim_key, claim_subject FROM facts WHERE workspace_id = ${ws} AND claim_key IS NOT NULL AND superseded_by IS NULL
         ORDER BY md5(id) LIMIT 5`;
    const claimKeys = claimed.map((r) => r.claim_key);
    const head = (await readFactHead(db, ws))!;
    const middle =
      (
        await db.sql<{ id: string }>`
      SELECT id FROM facts WHERE workspace_id = ${ws} AND superseded_by IS NULL ORDER BY id OFFSET ${Math.floor(mine[0]!.n / 2)} LIMIT 1`
      )[0]?.id ?? "";
    out.push(
      "",
      `## ${prepared.spec.name}: ${facts.toLocaleString("en")} facts in ${workspaces} workspaces; workspace ${slug} holds ${mine[0]!.n.toLocaleString("en")}; ` +
        `answers ${answers.toLocaleString("en")} (${queued} queued or in progress)`,
    );
    // A queue with history: most answers finished, a few waiting (rolled back with the EXPLAIN).
    const queue = async (tx: Queryable) => {
      await tx.sql`INSERT INTO conversations (workspace_id, id) SELECT ${ws}, 'bench-conv-' || g FROM generate_series(1, 100) g`;
      await tx.sql`
        INSERT INTO answers (id, workspace_id, key_id, audience, conversation_id, agent_slug, input, streamed, status, created_at)
        SELECT 'bench-ans-' || g, ${ws}, (SELECT id FROM api_keys WHERE workspace_id = ${ws} LIMIT 1), 'internal',
               'bench-conv-' || (g % 100 + 1), (SELECT slug FROM agents LIMIT 1), 'question', true,
               CASE WHEN g > 20000 THEN 'queued' ELSE 'completed' END, now() - make_interval(secs => 30000 - g)
          FROM generate_series(1, 20100) g`;
      await tx.exec("ANALYZE answers");
    };
    const touch20 = async (tx: Queryable) => {
      const seq = await nextFactSeq(tx, ws);
      await tx.sql`
        UPDATE facts SET changed_seq = ${seq}
         WHERE id IN (SELECT id FROM facts WHERE workspace_id = ${ws} AND superseded_by IS NULL ORDER BY id DESC LIMIT 20)`;
    };
    const cases: [string, Statement, ((tx: Queryable) => Promise<void>)?][] = [
      ["authenticate (key lookup, rate-limit upsert, last_used touch, fact sequence)", await capture((q) => authenticate(q, file.keys[0], "127.0.0.1"))],
      [
        `liveClaims, ${claimKeys.length} claim keys and one subject`,
        await capture((q) =>
          liveClaims(
            q,
            ws,
            claimKeys,
            claimed.slice(0, 1).map((r) => r.claim_subject),
            [""],
            new Date(),
          ),
        ),
      ],
      [
        "claimNextRun, beside 20,000 completed and 100 queued answers (inserted in the rolled-back transaction)",
        await capture((q) => claimNextRun(q, "bench-explain", 30)),
        queue,
      ],
      ["loadFactChanges, empty delta (since = head)", await capture((q) => loadFactChanges(q, ws, head.seq, 20_000))],
      [
        "loadFactChanges, 20 changed facts (stamped in the same rolled-back transaction)",
        await capture((q) => loadFactChanges(q, ws, head.seq, 20_000)),
        touch20,
      ],
      ["loadLiveFacts, first page of 10,000", await capture((q) => loadLiveFacts(q, ws, "", 10_000))],
      ["loadLiveFacts, a middle page of 10,000", await capture((q) => loadLiveFacts(q, ws, middle, 10_000))],
    ];
    const [fewest] = await db.sql<{ end_user_id: string; n: number }>`
      SELECT end_user_id, count(*)::int AS n FROM facts WHERE workspace_id = ${ws} AND end_user_id IS NOT NULL
       GROUP BY end_user_id ORDER BY count(*), end_user_id LIMIT 1`;
    const forget = fewest ? await capture((q) => forgetEndUser(q, { id: ws, slug }, fewest.end_user_id), 1) : undefined;
    const shown = new Set<string>();
    const all: [string, Statement, ((tx: Queryable) => Promise<void>)?, boolean?][] = [...cases];
    if (forget) all.push([`forgetEndUser: DELETE FROM facts of one end user (${fewest!.n} facts; src/memory/admin.ts)`, forget, undefined, true]);
    for (const [title, statement, before, once] of all) {
      if (!once) await explain(db, statement, before);
      const plan = await explain(db, statement, before);
      const sql = dedent(text(statement));
      out.push("", `### ${title}`, "");
      if (!shown.has(sql)) {
        shown.add(sql);
        out.push("```sql", sql, "```", "");
      }
      out.push("```", plan, "```");
      log(`${prepared.spec.name} ${title}: ${plan.split("\n").find((l) => l.startsWith("Execution Time")) ?? ""}`);
    }
    out.push(
      "",
      "### authenticate() round trip (300 sequential calls, one connection)",
      "",
      "| synchronous_commit | authenticate p50 ms | p95 ms | select 1 p50 ms |",
      "|---|---|---|---|",
    );
    for (const mode of ["on", "off", "on", "off"]) {
      const url = new URL(prepared.url);
      url.searchParams.set("options", `-c synchronous_commit=${mode}`);
      const one = openPostgres({ url: url.toString(), maxConnections: 1 });
      try {
        await one.sql`SELECT 1`;
        const auth: number[] = [];
        const select: number[] = [];
        for (let i = 0; i < 300; i++) {
          let t = performance.now();
          await authenticate(one, file.keys[i % file.keys.length], "127.0.0.1");
          auth.push(performance.now() - t);
          t = performance.now();
          await one.sql`SELECT 1`;
          select.push(performance.now() - t);
        }
        const a = percentiles(auth);
        out.push(`| ${mode} | ${a.p50.toFixed(3)} | ${a.p95.toFixed(3)} | ${percentiles(select).p50.toFixed(3)} |`);
      } finally {
        await one.close();
      }
    }
  } finally {
    await db.close();
  }
}
console.log(out.join("\n"));
