/**
 * PostgreSQL stopped and started under two running instances of the built binary: while it is
 * away every request answers 503 `database_unavailable` with Retry-After (REST and MCP, the tool
 * server as a JSON-RPC error), `/readyz` is not ready, a metric counts the refusals, the log has
 * one line for the outage and one for its end; afterwards both instances serve again without a
 * restart and see each other's writes.
 */
import { afterAll, expect, test } from "bun:test";
import { privatePostgres, type PrivatePostgres } from "../helpers/private-postgres";
import { cleanup, request, startServer, type ServerHandle } from "./binary";

afterAll(cleanup, 30_000);

const ADMIN = "outage-admin-token-0123456789";
// A fresh connection per request: a kept-alive one the server closed while idle (a slow machine
// between two requests) would fail the next request with ECONNRESET, which is not what is tested.
const CLOSE = { connection: "close" };
const json = (body: unknown, key: string) => ({ method: "POST", key, headers: { "content-type": "application/json", ...CLOSE }, body: JSON.stringify(body) });
const mcp = (body: unknown, key: string) => ({
  method: "POST",
  key,
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...CLOSE },
  body: JSON.stringify(body),
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

const logLines = (server: ServerHandle, message: string): number =>
  server
    .stderr()
    .split("\n")
    .filter((line) => line.includes(`"${message}"`)).length;

test("a PostgreSQL restart under two instances: 503 with Retry-After on REST and MCP while it is away, recovery without a restart", async () => {
  let pg: PrivatePostgres | undefined;
  try {
    pg = await privatePostgres();
    const env = { MEMORYD_ADMIN_TOKEN: ADMIN };
    const a = await startServer({ databaseUrl: pg.url, env });
    const b = await startServer({ databaseUrl: pg.url, env });
    const key = a.secret ?? b.secret;
    expect(key).toBeDefined();
    const search = (server: ServerHandle, query: string) => request(server.url, "/v1/memory/search", json({ query }, key!));
    expect((await request(a.url, "/v1/memory/facts", json({ facts: [{ text: "The outage drill runs on Tuesdays." }] }, key!))).status).toBe(202);
    expect((await search(b, "outage drill")).status).toBe(200);

    await pg.stop();
    for (const server of [a, b]) {
      for (let i = 0; i < 3; i += 1) {
        const res = await search(server, "outage drill");
        expect(res.status).toBe(503);
        expect(res.headers.get("retry-after")).toBe("5");
        expect(JSON.parse(res.text).error.code).toBe("database_unavailable");
      }
      const taught = await request(server.url, "/v1/memory/facts", json({ facts: [{ text: "Lost while the database is away?" }] }, key!));
      expect(taught.status).toBe(503);
      const ready = await request(server.url, "/readyz", { headers: CLOSE });
      expect(ready.status).toBe(503);
      const tool = await request(server.url, "/v1/mcp", mcp({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "whoami", arguments: {} } }, key!));
      expect(tool.status).toBe(503);
      expect(tool.headers.get("retry-after")).toBe("5");
      expect(JSON.parse(tool.text)).toMatchObject({ jsonrpc: "2.0", error: { data: { error: "database_unavailable", http_status: 503 } } });
    }
    const metrics = await request(a.url, "/metrics", { headers: CLOSE });
    const refused = /^memoryd_database_unavailable_total (\d+)/m.exec(metrics.text);
    expect(metrics.status).toBe(200);
    expect(Number(refused?.[1])).toBeGreaterThanOrEqual(6);
    expect(metrics.text).toMatch(/^memoryd_database_up 0$/m);

    await pg.start();
    await until(
      "both instances to serve again",
      async () => (await search(a, "outage drill")).status === 200 && (await search(b, "outage drill")).status === 200,
    );
    expect((await request(b.url, "/v1/memory/facts", json({ facts: [{ text: "The drill report goes to Dana." }] }, key!))).status).toBe(202);
    const found = JSON.parse((await search(a, "drill report Dana")).text).data.facts.map((f: { fact_text: string }) => f.fact_text);
    expect(found).toContain("The drill report goes to Dana.");
    expect((await request(a.url, "/readyz", { headers: CLOSE })).status).toBe(200);
    for (const server of [a, b]) {
      expect(logLines(server, "database unavailable: requests answer 503 until it is back")).toBe(1);
      expect(logLines(server, "database reachable again")).toBe(1);
      expect(server.stderr()).not.toContain('"level":"error"');
    }
    await Promise.all([a.stop(), b.stop()]);
  } finally {
    await pg?.remove();
  }
}, 120_000);
