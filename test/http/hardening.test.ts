/**
 * Defects found from outside (issue 11), each pinned by a test that failed before its fix: a NUL
 * in a path parameter, JSON nested thousands of levels deep, the missing Bearer challenge on
 * 401s, the client's X-Request-Id, and credentials in URLs echoed in messages.
 */
import { expect, test } from "bun:test";
import { loadConfig, ConfigError } from "../../src/config";
import { createLogger } from "../../src/log";
import { call, makeKey, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

const deep = (levels: number): string => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describeEachDb("hardening", (get) => {
  test("a NUL in a path parameter is a 422 in the envelope, not a database error", async () => {
    const key = await makeKey(get().db);
    for (const id of ["%00", "ans_%00abc", "x".repeat(201)]) {
      const res = await call(testApp(get().db), "GET", `/v1/answers/${id}`, { key: key.secret });
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe("validation_error");
      expect(res.json.error.details.fields[0].path).toBe("answer_id");
    }
    expect((await call(testApp(get().db), "GET", "/v1/answers/ans_missing", { key: key.secret })).status).toBe(404);
  });

  test("JSON nested 30,000 levels deep is a 422 validation_error on every JSON route and on MCP", async () => {
    const key = await makeKey(get().db);
    const app = testApp(get().db);
    const bodies = [deep(30_000), `{"facts":[{"text":"a","x":${deep(30_000)}}]}`, `{"query":${deep(65)}}`];
    for (const path of ["/v1/memory/search", "/v1/memory/context", "/v1/memory/facts", "/v1/answers", "/v1/mcp"]) {
      for (const rawBody of bodies) {
        const res = await call(app, "POST", path, {
          key: key.secret,
          rawBody,
          headers: { accept: "application/json, text/event-stream" },
        });
        expect([path, res.status, res.json?.error?.code]).toEqual([path, 422, "validation_error"]);
      }
    }
    // Brackets inside strings are text, and 64 levels are fine.
    const ok = await call(app, "POST", "/v1/memory/search", { key: key.secret, rawBody: JSON.stringify({ query: "[".repeat(500), limit: 5 }) });
    expect(ok.status).toBe(200);
    const nested = await call(app, "POST", "/v1/memory/search", { key: key.secret, rawBody: `{"query":"x","end_user":{"id":"a"},"z":${deep(60)}}` });
    expect(nested.status).toBe(200);
  });

  test("a 401 carries a Bearer challenge naming the error, on REST and on /v1/mcp", async () => {
    const app = testApp(get().db);
    for (const path of ["/v1/mcp", "/v1/whoami"]) {
      const method = path === "/v1/mcp" ? "POST" : "GET";
      const wrong = await call(app, method, path, { key: "ak_test_wrongwrongwrongwrongwrongwrong12", body: path === "/v1/mcp" ? {} : undefined });
      expect(wrong.status).toBe(401);
      // The tool server's challenge also says where OAuth clients start (RFC 9728).
      const metadata = path === "/v1/mcp" ? ', resource_metadata="http://localhost/.well-known/oauth-protected-resource/v1/mcp"' : "";
      expect(wrong.headers.get("www-authenticate")).toBe(`Bearer realm="memoryd", error="invalid_token", error_description="API key is not valid"${metadata}`);
      const missing = await call(app, method, path, { body: path === "/v1/mcp" ? {} : undefined });
      expect(missing.headers.get("www-authenticate")).toStartWith('Bearer realm="memoryd", error="invalid_request"');
    }
  });

  test("the client's X-Request-Id is echoed and logged when sane, replaced when not", async () => {
    const lines: string[] = [];
    const log = createLogger("info", (line) => lines.push(line));
    const app = testApp(get().db, {}, undefined, log);
    const sane = await call(app, "GET", "/healthz", { headers: { "x-request-id": "trace-42.abc:7" } });
    expect(sane.headers.get("x-request-id")).toBe("trace-42.abc:7");
    const weird = await call(app, "GET", "/healthz", { headers: { "x-request-id": "a b\u0007<script>" } });
    expect(weird.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    await Bun.sleep(20);
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
    expect(logged.map((l) => l.request_id)).toContain("trace-42.abc:7");
  });
});

test("credentials in a URL are never echoed: config errors, log lines, error bodies", () => {
  let message = "";
  try {
    loadConfig({}, { ANTHROPIC_BASE_URL: "ftp://bob:hunter2@api.example.com/v1" });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    message = (error as Error).message;
  }
  expect(message).toContain("ANTHROPIC_BASE_URL");
  expect(message).not.toContain("hunter2");
  try {
    loadConfig({}, { ANTHROPIC_BASE_URL: "bob:hunter2@api.example.com" });
  } catch (error) {
    expect((error as Error).message).not.toContain("hunter2");
  }
  const lines: string[] = [];
  createLogger("info", (line) => lines.push(line)).error("upstream failed", { url: "https://bob:hunter2@api.example.com/" });
  expect(lines.join("")).not.toContain("hunter2");
  expect(lines.join("")).toContain("https://***@api.example.com/");
});
