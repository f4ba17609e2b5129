import { expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { input } from "../src/schema/validate";
import { awayFromWindowEdge, call, makeKey, testApp } from "./helpers/app";
import { describeEachDb } from "./helpers/databases";

const Probe = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 10 }),
  limit: Type.Integer({ minimum: 1, maximum: 5, default: 2 }),
  items: Type.Optional(Type.Array(Type.Object({ text: Type.String({ minLength: 1 }) }), { maxItems: 2 })),
});

describeEachDb("request pipeline", (get) => {
  /** The real app plus one probe route written exactly like a feature route. */
  const app = () =>
    testApp(get().db)
      .post("/v1/probe", ({ body }) => body, { auth: "memory.read", json: true, body: input(Probe), returns: { status: 202 } })
      .get("/v1/probe", ({ query }) => query, { auth: "memory.read", query: input(Probe, "query"), returns: {} })
      .get("/v1/boom", () => {
        throw new Error("secret internals: password=hunter2");
      });

  test("success: {data} envelope, status, rate-limit and request-id headers", async () => {
    const key = await makeKey(get().db);
    const sent = Date.now();
    const res = await call(app(), "POST", "/v1/probe", { key: key.secret, body: { query: "hi", extra: 1 } });
    const received = Date.now();
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ data: { query: "hi", limit: 2 } });
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("119");
    // The end of the 60 s window the request fell in, in whole seconds: after the request was sent
    // (a request at the window's last instant may be answered once it has ended), within a window.
    const reset = Number(res.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThanOrEqual(Math.floor(sent / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(received / 1000) + 60);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("X-Api-Key works as well as Bearer", async () => {
    const key = await makeKey(get().db);
    const res = await call(app(), "POST", "/v1/probe", { headers: { "x-api-key": key.secret }, body: { query: "x" } });
    expect(res.status).toBe(202);
  });

  test("401 before anything else, in the error envelope", async () => {
    const res = await call(app(), "POST", "/v1/probe", { rawBody: "{not json" });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: { code: "api_key_invalid", message: expect.any(String) } });
    const wrong = await call(app(), "POST", "/v1/probe", { key: "ak_test_0000000000000000000000000000000000", body: {} });
    expect(wrong.json.error.code).toBe("api_key_invalid");
    for (const rawBody of ["", "[".repeat(100), JSON.stringify({ query: "x".repeat(1024 * 1024 + 10) })]) {
      expect((await call(app(), "POST", "/v1/probe", { rawBody })).status).toBe(401);
    }
    expect((await call(app(), "GET", "/v1/probe?limit=abc")).status).toBe(401);
  });

  test("a query is validated after authentication and reaches the handler converted, with defaults", async () => {
    const key = await makeKey(get().db);
    const res = await call(app(), "GET", "/v1/probe?query=hi&limit=3&extra=1", { key: key.secret });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { query: "hi", limit: 3 } });
    const bad = await call(app(), "GET", "/v1/probe?query=hi&limit=abc", { key: key.secret });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields.map((f: { path: string }) => f.path)).toEqual(["limit"]);
  });

  test("403 scope_missing names the scope", async () => {
    const key = await makeKey(get().db, { scopes: ["memory.write"] });
    const res = await call(app(), "POST", "/v1/probe", { key: key.secret, body: { query: "x" } });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ code: "scope_missing", details: { scope: "memory.read" } });
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
  });

  test("422 validation_error lists every offending field with path and reason", async () => {
    const key = await makeKey(get().db);
    const res = await call(app(), "POST", "/v1/probe", {
      key: key.secret,
      body: { query: "", limit: 99, items: [{ text: "" }, { text: "ok" }, { text: "x" }] },
    });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe("validation_error");
    const paths = res.json.error.details.fields.map((f: { path: string }) => f.path);
    expect(paths).toEqual(expect.arrayContaining(["query", "limit", "items", "items[0].text"]));
    for (const field of res.json.error.details.fields) expect(field.reason).toEqual(expect.any(String));
    expect(res.json.error.message).toContain("query");
  });

  test("a missing required field and a non-object body are 422", async () => {
    const key = await makeKey(get().db);
    const missing = await call(app(), "POST", "/v1/probe", { key: key.secret, body: { limit: 1 } });
    expect(missing.status).toBe(422);
    expect(missing.json.error.details.fields[0].path).toBe("query");
    const array = await call(app(), "POST", "/v1/probe", { key: key.secret, body: [1, 2] });
    expect(array.status).toBe(422);
  });

  test("malformed or empty JSON is 422 validation_error, like every validation error", async () => {
    const key = await makeKey(get().db);
    for (const rawBody of ["{not json", "", "   "]) {
      const res = await call(app(), "POST", "/v1/probe", { key: key.secret, rawBody });
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe("validation_error");
    }
  });

  test("a body over 1 MiB is 413 payload_too_large", async () => {
    const key = await makeKey(get().db);
    const res = await call(app(), "POST", "/v1/probe", {
      key: key.secret,
      rawBody: JSON.stringify({ query: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe("payload_too_large");
  });

  test("unknown route is 404 not_found in the envelope", async () => {
    const res = await call(app(), "GET", "/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("not_found");
  });

  test("an unexpected failure is 500 internal_error with no internals and a request id", async () => {
    const res = await call(app(), "GET", "/v1/boom");
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe("internal_error");
    expect(res.text).not.toContain("hunter2");
    expect(res.text).not.toContain("at ");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test("health probes need no key", async () => {
    const health = await call(app(), "GET", "/healthz");
    expect(health.status).toBe(200);
    const ready = await call(app(), "GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.json.data.status).toBe("ready");
  });

  test("GET /v1/whoami reports the key (2.8)", async () => {
    const key = await makeKey(get().db, { scopes: ["memory.read", "answers.write"], audience: "external" });
    const res = await call(app(), "GET", "/v1/whoami", { key: key.secret });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: {
        key_name: "test key",
        key_prefix: key.prefix,
        scopes: ["memory.read", "answers.write"],
        key_audience: "external",
        rate_limit: { requests_per_window: 120, window_seconds: 60 },
      },
    });
  });

  test("the 121st request in a window is 429 with Retry-After and details", async () => {
    await awayFromWindowEdge();
    const key = await makeKey(get().db);
    const a = app();
    const statuses = await Promise.all(Array.from({ length: 121 }, () => call(a, "GET", "/v1/whoami", { key: key.secret }).then((r) => r)));
    const limited = statuses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    const res = limited[0]!;
    expect(res.json.error).toEqual({ code: "rate_limited", message: expect.any(String), details: { retry_after_seconds: 60 } });
    expect(res.headers.get("retry-after")).toBe("60");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  });
});
