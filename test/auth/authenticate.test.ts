import { expect, test } from "bun:test";
import { authenticate, AUTH_FAILURE_LIMIT, RATE_LIMIT, requireScope, secretFromHeaders } from "../../src/auth/authenticate";
import { revokeKey } from "../../src/auth/keys";
import { openPostgres } from "../../src/db/postgres";
import { ApiError } from "../../src/errors";
import { awayFromWindowEdge, makeKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

test("the key comes from Authorization: Bearer or X-Api-Key", () => {
  expect(secretFromHeaders(new Headers({ authorization: "Bearer ak_test_abc" }))).toBe("ak_test_abc");
  expect(secretFromHeaders(new Headers({ authorization: "bearer   ak_test_abc " }))).toBe("ak_test_abc");
  expect(secretFromHeaders(new Headers({ "x-api-key": "ak_test_xyz" }))).toBe("ak_test_xyz");
  expect(secretFromHeaders(new Headers())).toBeUndefined();
});

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return "ok";
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
};

describeEachDb("authenticate", (get, kind) => {
  test("a valid key resolves to its workspace, scopes and audience", async () => {
    const { db } = get();
    const key = await makeKey(db, { scopes: ["memory.read"], audience: "external" });
    const sent = Date.now();
    const auth = await authenticate(db, key.secret, "10.0.0.1");
    expect(auth).toMatchObject({ keyId: key.id, keyPrefix: key.prefix, scopes: ["memory.read"], audience: "external" });
    expect(auth.rate.limit).toBe(120);
    expect(auth.rate.remaining).toBe(119);
    expect(auth.rate.reset % 60).toBe(0);
    // The end of the window the call fell in: not before it was made (a call in a window's last
    // instant may return after the window ended), at most one window later.
    expect(auth.rate.reset).toBeGreaterThanOrEqual(Math.floor(sent / 1000));
    expect(auth.rate.reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
  });

  test("missing, malformed, unknown, revoked and expired keys get their own 401 codes", async () => {
    const { db } = get();
    const key = await makeKey(db);
    expect(await codeOf(authenticate(db, undefined, "a1"))).toBe("api_key_invalid");
    expect(await codeOf(authenticate(db, "not-a-key", "a1"))).toBe("api_key_invalid");
    // One character changed (to one it is not: a secret ending in "X" stays itself with "X").
    const altered = `${key.secret.slice(0, -1)}${key.secret.endsWith("X") ? "Y" : "X"}`;
    expect(await codeOf(authenticate(db, altered, "a1"))).toBe("api_key_invalid");
    expect(await codeOf(authenticate(db, key.secret, "a1"))).toBe("ok");
    await revokeKey(db, key.id);
    expect(await codeOf(authenticate(db, key.secret, "a1"))).toBe("api_key_revoked");
    const expired = await makeKey(db, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(await codeOf(authenticate(db, expired.secret, "a1"))).toBe("api_key_expired");
    const future = await makeKey(db, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(await codeOf(authenticate(db, future.secret, "a1"))).toBe("ok");
  });

  test("last_used_at is recorded", async () => {
    const { db } = get();
    const key = await makeKey(db);
    await authenticate(db, key.secret, "a2");
    const rows = await db.sql<{ last_used_at: Date | null }>`SELECT last_used_at FROM api_keys WHERE id = ${key.id}`;
    expect(rows[0]?.last_used_at).toBeInstanceOf(Date);
  });

  test("200 concurrent requests on one key: exactly 120 admitted", async () => {
    await awayFromWindowEdge();
    const { db } = get();
    const key = await makeKey(db);
    const results = await Promise.all(Array.from({ length: 200 }, () => codeOf(authenticate(db, key.secret, "a3"))));
    expect(results.filter((r) => r === "ok")).toHaveLength(RATE_LIMIT.requestsPerWindow);
    expect(results.filter((r) => r === "rate_limited")).toHaveLength(80);
  });

  test("the 429 carries retry_after_seconds 60, Retry-After and zero remaining", async () => {
    await awayFromWindowEdge();
    const { db } = get();
    const key = await makeKey(db);
    for (let i = 0; i < RATE_LIMIT.requestsPerWindow; i++) await authenticate(db, key.secret, "a4");
    try {
      await authenticate(db, key.secret, "a4");
      throw new Error("expected rate_limited");
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const apiError = error as ApiError;
      expect(apiError.status).toBe(429);
      expect(apiError.details).toEqual({ retry_after_seconds: 60 });
      expect(apiError.headers["retry-after"]).toBe("60");
      expect(apiError.headers["x-ratelimit-remaining"]).toBe("0");
    }
  });

  test("keys have separate windows", async () => {
    await awayFromWindowEdge();
    const { db } = get();
    const a = await makeKey(db);
    const b = await makeKey(db, { workspace: a.workspace });
    for (let i = 0; i < RATE_LIMIT.requestsPerWindow; i++) await authenticate(db, a.secret, "a5");
    expect(await codeOf(authenticate(db, a.secret, "a5"))).toBe("rate_limited");
    expect(await codeOf(authenticate(db, b.secret, "a5"))).toBe("ok");
  });

  test("an address with too many failed attempts is shut out, even with a good key", async () => {
    await awayFromWindowEdge();
    const { db } = get();
    const key = await makeKey(db);
    const address = `brute-${Math.random()}`;
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) {
      expect(await codeOf(authenticate(db, "ak_test_wrongwrongwrongwrongwrongwrongwrong", address))).toBe("api_key_invalid");
    }
    expect(await codeOf(authenticate(db, "ak_test_wrongwrongwrongwrongwrongwrongwrong", address))).toBe("rate_limited");
    expect(await codeOf(authenticate(db, key.secret, address))).toBe("rate_limited");
    expect(await codeOf(authenticate(db, key.secret, "another-address"))).toBe("ok");
  });

  test("requireScope names the missing scope", async () => {
    const { db } = get();
    const key = await makeKey(db, { scopes: ["memory.read"] });
    const auth = await authenticate(db, key.secret, "a6");
    expect(() => requireScope(auth, "memory.read")).not.toThrow();
    try {
      requireScope(auth, "answers.write");
      throw new Error("expected scope_missing");
    } catch (error) {
      expect(error).toMatchObject({ code: "scope_missing", status: 403, details: { scope: "answers.write" } });
    }
  });

  if (kind === "postgres") {
    test("two instances sharing the database share one window and see revocations at once", async () => {
      await awayFromWindowEdge();
      const { db, config } = get();
      const other = openPostgres({ url: config.databaseUrl ?? "", maxConnections: 10 });
      try {
        const key = await makeKey(db);
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) => codeOf(authenticate(i % 2 === 0 ? db : other, key.secret, "a7"))));
        expect(results.filter((r) => r === "ok")).toHaveLength(120);
        const fresh = await makeKey(db);
        expect(await codeOf(authenticate(other, fresh.secret, "a7"))).toBe("ok");
        await revokeKey(db, fresh.prefix);
        expect(await codeOf(authenticate(other, fresh.secret, "a7"))).toBe("api_key_revoked");
      } finally {
        await other.close();
      }
    });
  }
});
