/**
 * The bare baseline for the search route: a minimal `Bun.serve` that runs the product's own
 * search SQL through the product's own driver wrapper (`openPostgres`, the same 10-connection
 * pool the server opens), with a fixed workspace and an internal visibility (no end user unless
 * the body names one). The SQL is the statements `searchFacts` (src/memory/search.ts) sends, called
 * directly: `analyseQuery` then `rankFacts` from src/memory/rank.ts (or `recentFacts` when the
 * query has no searchable word). No framework, no auth, no schema validation, no rate limiting.
 *
 *   bun bench/baseline.ts --database-url URL --workspace SLUG [--port 0]
 *
 * Routes:
 *   POST /search       {query, limit?, end_user?: {id}} -> {data: {facts}}   the baseline
 *   POST /auth-search  the same, after the product's `authenticate()` (one statement: key lookup
 *                      + rate-limit counter upsert) on the Bearer key: isolates what auth costs
 *   GET  /healthz
 * Prints "baseline listening on http://127.0.0.1:PORT" when ready.
 */
import { authenticate } from "../src/auth/authenticate";
import { openPostgres } from "../src/db/postgres";
import { ApiError } from "../src/errors";
import { analyseQuery, rankFacts } from "../src/memory/rank";
import { recentFacts, toFact } from "../src/memory/store";
import type { Visibility } from "../src/memory/visibility";
import { argValue } from "./support/args";


const databaseUrl = argValue("--database-url") ?? process.env.BENCH_DATABASE_URL;
const slug = argValue("--workspace");
if (!databaseUrl || !slug) {
  console.error("usage: bun bench/baseline.ts --database-url URL --workspace SLUG [--port 0]");
  process.exit(2);
}

const db = openPostgres({ url: databaseUrl, maxConnections: 10 });
const rows = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${slug}`;
const workspaceId = rows[0]?.id;
if (workspaceId === undefined) {
  console.error(`baseline: no workspace "${slug}"`);
  process.exit(1);
}

interface Body {
  query: string;
  limit?: number;
  end_user?: { id: string };
}

async function search(body: Body): Promise<Response> {
  const v: Visibility = { workspaceId: workspaceId!, audience: "internal", endUserId: body.end_user?.id ?? null, kinds: null };
  const limit = body.limit ?? 20;
  const analysed = await analyseQuery(db, v.workspaceId, body.query);
  const found = analysed.hasTerms ? await rankFacts(db, v, analysed, { query: body.query, limit }) : await recentFacts(db, v, { limit });
  return Response.json({ data: { facts: found.map(toFact) } });
}

const server = Bun.serve({
  port: Number(argValue("--port") ?? 0),
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/healthz") return Response.json({ ok: true });
    if (req.method !== "POST") return new Response("not found", { status: 404 });
    if (path === "/search") return search((await req.json()) as Body);
    if (path === "/auth-search") {
      const header = req.headers.get("authorization") ?? "";
      try {
        await authenticate(db, header.replace(/^Bearer\s+/i, ""), server.requestIP(req)?.address ?? "local");
      } catch (error) {
        return Response.json({ error: String(error) }, { status: error instanceof ApiError ? error.status : 500 });
      }
      return search((await req.json()) as Body);
    }
    return new Response("not found", { status: 404 });
  },
  error(error) {
    return Response.json({ error: error.message }, { status: 500 });
  },
});

console.log(`baseline listening on http://127.0.0.1:${server.port}`);

const shutdown = async () => {
  await server.stop(true);
  await db.close();
  process.exit(0);
};
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
