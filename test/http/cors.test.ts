/** CORS for the REST API: allowed origins get preflights and readable headers; others get nothing. */
import { expect, test } from "bun:test";
import { call, makeKey, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

const ALLOWED = "https://app.example.com";

describeEachDb("CORS", (get) => {
  const app = () => testApp(get().db, { allowedOrigins: [ALLOWED] });

  test("a preflight from an allowed origin lists the methods and headers; from another origin it allows nothing", async () => {
    const ok = await call(app(), "OPTIONS", "/v1/memory/search", {
      headers: { origin: ALLOWED, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(ok.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE");
    expect(ok.headers.get("access-control-allow-headers")).toBe("authorization, x-api-key, content-type, idempotency-key, x-request-id");
    const other = await call(app(), "OPTIONS", "/v1/memory/search", { headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("access-control-allow-methods")).toBeNull();
    // The admin API and the tool server are not opened to other origins.
    expect((await call(app(), "OPTIONS", "/v1/admin/workspaces", { headers: { origin: ALLOWED } })).headers.get("access-control-allow-origin")).toBeNull();
  });

  test("responses to an allowed origin expose the request-id and rate-limit headers, errors included; others carry no CORS header", async () => {
    const key = await makeKey(get().db, { audience: "external", scopes: ["memory.read"] });
    const res = await call(app(), "POST", "/v1/memory/search", { key: key.secret, headers: { origin: ALLOWED }, body: { query: "x" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(res.headers.get("access-control-expose-headers")).toContain("x-ratelimit-remaining");
    expect(res.headers.get("vary")).toContain("Origin");
    const denied = await call(app(), "POST", "/v1/memory/search", {
      key: "ak_test_wrongwrongwrongwrongwrongwrong12",
      headers: { origin: ALLOWED },
      body: { query: "x" },
    });
    expect([denied.status, denied.headers.get("access-control-allow-origin")]).toEqual([401, ALLOWED]);
    const other = await call(app(), "POST", "/v1/memory/search", { key: key.secret, headers: { origin: "https://evil.example" }, body: { query: "x" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
