/**
 * The bare baseline: a minimal `Bun.serve` that answers every POST with one postgres.js round
 * trip (`select 1`, through the product's own driver wrapper and its 10-connection pool) and a
 * small JSON body. No framework, no auth, no validation, no search: the ceiling any route that
 * talks to the database once per request can approach on this machine.
 *
 *   bun bench/baseline.ts --database-url URL [--port 0]
 *
 * Routes:
 *   POST /search  -> {data: {facts: []}} after `select 1`   the baseline
 *   GET  /healthz
 * Prints "baseline listening on http://127.0.0.1:PORT" when ready.
 */
import { openPostgres } from "../src/db/postgres";
import { argValue } from "./support/args";

const databaseUrl = argValue("--database-url") ?? process.env.BENCH_DATABASE_URL;
if (!databaseUrl) {
  console.error("usage: bun bench/baseline.ts --database-url URL [--port 0]");
  process.exit(2);
}

const db = openPostgres({ url: databaseUrl, maxConnections: 10 });

const server = Bun.serve({
  port: Number(argValue("--port") ?? 0),
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/healthz") return Response.json({ ok: true });
    if (req.method !== "POST" || path !== "/search") return new Response("not found", { status: 404 });
    await req.arrayBuffer();
    await db.sql`select 1`;
    return Response.json({ data: { facts: [] } });
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
