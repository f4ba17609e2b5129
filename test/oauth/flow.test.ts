/**
 * MCP authorization end to end, driven by the MCP SDK client's own OAuth support
 * (`OAuthClientProvider` on a `StreamableHTTPClientTransport`) against a listening app: discovery
 * from the 401, dynamic registration, the consent page with an API key, PKCE code exchange, tool
 * calls with the token, refresh with rotation, replay detection and revocation through the key.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { App } from "../../src/app";
import { revokeKey } from "../../src/auth/keys";
import { describeEachDb } from "../helpers/databases";
import { call, makeKey, testApp, type TestKey } from "../helpers/app";
import { resultJson, rpc } from "../helpers/mcp";
import { consentAndGetCode, MemoryOAuthProvider } from "../helpers/oauth";

setDefaultTimeout(60_000);

const READ_TOOLS = ["whoami", "search_memory", "get_memory_context"];

describeEachDb("MCP OAuth with the SDK client", (get) => {
  let app: App;
  let base: string;
  let key: TestKey;
  const clients: Client[] = [];

  const connect = async (provider: MemoryOAuthProvider): Promise<Client> => {
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/v1/mcp", base), { authProvider: provider }));
    clients.push(client);
    return client;
  };

  /** The whole first connection: 401, discovery, registration, consent, code exchange, connect. */
  const authorize = async (provider: MemoryOAuthProvider, scopes: string[], audience: "key" | "external" = "key"): Promise<Client> => {
    const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", base), { authProvider: provider });
    await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).toBeDefined();
    const code = await consentAndGetCode(base, provider.authorizationUrl!, { apiKey: key.secret, scopes, audience });
    await transport.finishAuth(code);
    return connect(provider);
  };

  beforeAll(async () => {
    app = testApp(get().db);
    app.listen({ port: 0, hostname: "127.0.0.1" });
    base = `http://127.0.0.1:${app.server!.port}`;
    key = await makeKey(get().db);
    const taught = await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "Priya leads the Atlas project." }, { text: "Priya's salary on the Atlas project is $140k." }] },
    });
    expect(taught.status).toBe(202);
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await app.stop(true);
  });

  test("a client with no credentials discovers, registers, gets consent and calls tools with the granted scopes only", async () => {
    const provider = new MemoryOAuthProvider();
    const client = await authorize(provider, ["memory.read"]);

    const url = provider.authorizationUrl!;
    expect(url.pathname).toBe("/oauth/authorize");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(`${base}/v1/mcp`);
    expect(provider.client?.client_id).toMatch(/^mcpc_/);
    expect(provider.saved?.access_token).toMatch(/^mat_/);
    expect(provider.saved?.scope).toBe("memory.read");

    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual([...READ_TOOLS].sort());
    const whoami = resultJson(await client.callTool({ name: "whoami", arguments: {} }));
    expect(whoami.key_prefix).toBe(key.prefix);
    expect(whoami.scopes).toEqual(["memory.read"]);
    const found = resultJson(await client.callTool({ name: "search_memory", arguments: { query: "Who leads Atlas?" } }));
    expect(JSON.stringify(found)).toContain("Priya leads the Atlas project.");
    const internal = resultJson(await client.callTool({ name: "search_memory", arguments: { query: "Priya salary Atlas" } }));
    expect(JSON.stringify(internal)).toContain("$140k");
    // The token is not a write credential even though the key is.
    const write = await call(app, "POST", "/v1/memory/facts", { key: provider.saved!.access_token, body: { facts: [{ text: "x is y." }] } });
    expect(write.status).toBe(403);
    expect(write.json.error.code).toBe("scope_missing");
    // Over MCP the token's missing scope is a challenge the client can take back to the person.
    const teach = await rpc(
      base,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "teach_memory", arguments: { facts: [{ text: "x is y." }] } } },
      { key: provider.saved!.access_token },
    );
    expect(teach.status).toBe(403);
    expect(teach.json.error.code).toBe("scope_missing");
    expect(teach.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="memory.write", resource_metadata="${base}/.well-known/oauth-protected-resource/v1/mcp", error_description="this access token lacks the scope memory.write needed by teach_memory"`,
    );
    // An API key keeps the tool error result: it cannot be consented again.
    const readerKey = await makeKey(get().db, { scopes: ["memory.read"] });
    const keyed = await rpc(
      base,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "teach_memory", arguments: { facts: [{ text: "x is y." }] } } },
      { key: readerKey.secret },
    );
    expect(keyed.status).toBe(200);
    expect(keyed.json.result.isError).toBe(true);
  });

  test("an external grant from an internal key sees external facts only", async () => {
    const provider = new MemoryOAuthProvider();
    const client = await authorize(provider, ["memory.read"], "external");
    const found = JSON.stringify(resultJson(await client.callTool({ name: "search_memory", arguments: { query: "Priya salary Atlas" } })));
    expect(found).toContain("Priya leads the Atlas project.");
    expect(found).not.toContain("$140k");
    const whoami = resultJson(await client.callTool({ name: "whoami", arguments: {} }));
    expect(whoami.key_audience).toBe("external");
  });

  test("an expired access token is refreshed by the SDK with rotation; replaying the old refresh token later revokes the grant", async () => {
    const provider = new MemoryOAuthProvider();
    const client = await authorize(provider, ["memory.read", "memory.write"]);
    const first = provider.saved!;
    await get().db.sql`UPDATE oauth_tokens SET access_expires_at = now() - interval '1 second'`;
    const expired = await call(app, "GET", "/v1/whoami", { key: first.access_token });
    expect(expired.status).toBe(401);
    expect(expired.json.error.code).toBe("api_key_expired");

    // The SDK sees the 401, refreshes, and retries the call on its own.
    const whoami = resultJson(await client.callTool({ name: "whoami", arguments: {} }));
    expect(whoami.key_prefix).toBe(key.prefix);
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await call(app, "GET", "/v1/whoami", { key: second.access_token })).status).toBe(200);

    // Reuse after the reuse window is a replay.
    await get().db.sql`UPDATE oauth_tokens SET rotated_at = now() - interval '2 minutes' WHERE rotated_at IS NOT NULL`;
    const replay = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: provider.client!.client_id }),
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    // The replay revoked the whole grant, the live pair included.
    const after = await call(app, "GET", "/v1/whoami", { key: second.access_token });
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe("api_key_revoked");
  });

  test("revoking the key the grant came from ends its tokens at once and the SDK cannot refresh", async () => {
    const own = await makeKey(get().db, { workspace: key.workspace });
    const provider = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", base), { authProvider: provider });
    await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(await consentAndGetCode(base, provider.authorizationUrl!, { apiKey: own.secret, scopes: ["memory.read"] }));
    const client = await connect(provider);
    expect((await client.listTools()).tools.length).toBe(READ_TOOLS.length);
    const token = provider.saved!.access_token;

    await revokeKey(get().db, own.id);
    const direct = await call(app, "GET", "/v1/whoami", { key: token });
    expect(direct.status).toBe(401);
    expect(direct.json.error.code).toBe("api_key_revoked");
    provider.authorizationUrl = undefined;
    // The refresh is refused too, so the SDK falls back to asking the person again.
    await expect(client.callTool({ name: "whoami", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).toBeDefined();
  });

  test("static keys keep working on the same endpoint, and its 401 names the resource metadata", async () => {
    const res = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/v1/mcp"`);
    const viaKey = new Client({ name: "static", version: "1.0.0" });
    await viaKey.connect(new StreamableHTTPClientTransport(new URL("/v1/mcp", base), { requestInit: { headers: { "X-Api-Key": key.secret } } }));
    clients.push(viaKey);
    expect((await viaKey.listTools()).tools.length).toBeGreaterThan(READ_TOOLS.length);
  });
});
