/**
 * The OAuth endpoints one by one through app.handle(): metadata, registration rules, what the
 * authorization endpoint shows versus redirects, the consent form's checks, the token endpoint's
 * single-use and PKCE rules, revocation, and tokens acting exactly as their key.
 */
import { createHash } from "node:crypto";
import { expect, test } from "bun:test";
import type { App } from "../../src/app";
import { revokeKey } from "../../src/auth/keys";
import { randomBase62 } from "../../src/ids";
import type { Scope } from "../../src/schema/auth";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

const REDIRECT = "https://client.example/callback";

const pkce = (): { verifier: string; challenge: string } => {
  const verifier = randomBase62(64);
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

async function register(app: App, body: Record<string, unknown> = {}): Promise<{ status: number; json: any }> {
  return call(app, "POST", "/oauth/register", { body: { client_name: "Test Connector", redirect_uris: [REDIRECT], ...body } });
}

function authorizeQuery(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st8",
    ...extra,
  }).toString();
}

const hiddenFields = (html: string): Record<string, string> =>
  Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]));

interface Consent {
  key?: string;
  scopes?: Scope[];
  audience?: string;
  decision?: string;
  /** Send this cookie instead of the page's. */
  cookie?: string;
  /** Grant as the administrator instead of with a key. */
  admin?: { token: string; workspace: string };
}

/** Loads the consent page and submits it as a browser would; returns the response. */
async function consent(app: App, clientId: string, challenge: string, choice: Consent, extra: Record<string, string> = {}) {
  const page = await call(app, "GET", `/oauth/authorize?${authorizeQuery(clientId, challenge, extra)}`);
  expect(page.status).toBe(200);
  const form = new URLSearchParams(hiddenFields(page.text));
  form.set("decision", choice.decision ?? "allow");
  form.set("audience", choice.audience ?? "key");
  form.set("api_key", choice.key ?? "");
  if (choice.admin) {
    form.set("admin_token", choice.admin.token);
    form.set("workspace", choice.admin.workspace);
  }
  for (const scope of choice.scopes ?? ["memory.read"]) form.append("granted_scopes", scope);
  const cookie = choice.cookie ?? (page.headers.get("set-cookie") ?? "").split(";")[0]!;
  return call(app, "POST", "/oauth/authorize", { rawBody: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded", cookie } });
}

const token = (app: App, fields: Record<string, string>) =>
  call(app, "POST", "/oauth/token", { rawBody: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });

/** A client, a consent with `key`, and the code from the redirect. */
async function grantCode(app: App, key: TestKey, choice: Consent = {}) {
  const client = (await register(app)).json;
  const { verifier, challenge } = pkce();
  const res = await consent(app, client.client_id, challenge, { key: key.secret, ...choice });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get("location")!);
  return { clientId: client.client_id as string, verifier, code: location.searchParams.get("code")!, location };
}

async function tokens(app: App, key: TestKey, choice: Consent = {}) {
  const grant = await grantCode(app, key, choice);
  const res = await token(app, {
    grant_type: "authorization_code",
    code: grant.code,
    code_verifier: grant.verifier,
    redirect_uri: REDIRECT,
    client_id: grant.clientId,
  });
  expect(res.status).toBe(200);
  return { ...grant, access: res.json.access_token as string, refresh: res.json.refresh_token as string, json: res.json, headers: res.headers };
}

describeEachDb("OAuth endpoints", (get) => {
  test("metadata documents name this server, its endpoints, S256 and the tool server as the resource", async () => {
    const app = testApp(get().db);
    const prm = await call(app, "GET", "/.well-known/oauth-protected-resource/v1/mcp");
    expect(prm.status).toBe(200);
    expect(prm.json.resource).toBe("http://localhost/v1/mcp");
    expect(prm.json.authorization_servers).toEqual(["http://localhost"]);
    expect(prm.headers.get("access-control-allow-origin")).toBe("*");
    const as = await call(app, "GET", "/.well-known/oauth-authorization-server");
    expect(as.json).toMatchObject({
      issuer: "http://localhost",
      authorization_endpoint: "http://localhost/oauth/authorize",
      token_endpoint: "http://localhost/oauth/token",
      registration_endpoint: "http://localhost/oauth/register",
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    });
    const behindProxy = testApp(get().db, { publicUrl: "https://memory.example.com" });
    expect((await call(behindProxy, "GET", "/.well-known/oauth-protected-resource")).json.resource).toBe("https://memory.example.com/v1/mcp");
    const preflight = await call(app, "OPTIONS", "/oauth/token", { headers: { origin: "https://inspector.example", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("registration: public clients only, exact safe redirect URIs, errors in the RFC's shape", async () => {
    const app = testApp(get().db);
    const ok = await register(app, { token_endpoint_auth_method: "client_secret_post" });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({ client_name: "Test Connector", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    expect(ok.json.client_secret).toBeUndefined();
    expect((await register(app, { redirect_uris: ["http://127.0.0.1:33418/cb"] })).status).toBe(201);
    expect((await register(app, { redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback"] })).status).toBe(201);
    for (const uri of ["http://evil.example/cb", "javascript:alert(1)", "https://client.example/cb#frag", "not a url", "https://x.example;script-src/cb"]) {
      const bad = await register(app, { redirect_uris: [uri] });
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe("invalid_redirect_uri");
      expect(typeof bad.json.error_description).toBe("string");
    }
    const none = await call(app, "POST", "/oauth/register", { body: { client_name: "x" } });
    expect(none.json.error).toBe("invalid_client_metadata");
    const garbled = await call(app, "POST", "/oauth/register", { rawBody: "{not json" });
    expect(garbled.status).toBe(400);
    expect(garbled.json.error).toBe("invalid_client_metadata");
    expect((await register(app, { grant_types: ["client_credentials"] })).json.error).toBe("invalid_client_metadata");
  });

  test("authorize: an unknown client or unregistered redirect URI is shown, never redirected; other errors go back to the client", async () => {
    const app = testApp(get().db);
    const client = (await register(app, { client_name: '<img src=x onerror="alert(1)">' })).json;
    const { challenge } = pkce();
    const unknown = await call(app, "GET", `/oauth/authorize?${authorizeQuery("mcpc_nope", challenge)}`);
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
    expect(unknown.text).toContain("not registered");
    const foreign = await call(app, "GET", `/oauth/authorize?${authorizeQuery(client.client_id, challenge, { redirect_uri: "https://evil.example/cb" })}`);
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get("location")).toBeNull();

    // Registration is open, so no refusal is redirected automatically (no open redirector).
    for (const [extra, message] of [
      [{ code_challenge_method: "plain" }, "PKCE is required"],
      [{ code_challenge: "short" }, "PKCE is required"],
      [{ response_type: "token" }, "only response_type"],
      [{ resource: "https://other.example/mcp" }, "another server"],
      [{ scope: "admin" }, "no permission this server has"],
    ] as const) {
      const res = await call(app, "GET", `/oauth/authorize?${authorizeQuery(client.client_id, challenge, extra)}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.text).toContain(message);
    }

    // A loopback redirect may come back on any port (RFC 8252); other hosts must match exactly.
    const native = (await register(app, { redirect_uris: ["http://127.0.0.1:33418/cb", "http://[::1]:33418/cb"] })).json;
    const otherPort = await call(app, "GET", `/oauth/authorize?${authorizeQuery(native.client_id, challenge, { redirect_uri: "http://127.0.0.1:50123/cb" })}`);
    expect(otherPort.status).toBe(200);
    expect(otherPort.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:50123;");
    const ipv6 = await call(app, "GET", `/oauth/authorize?${authorizeQuery(native.client_id, challenge, { redirect_uri: "http://[::1]:33418/cb" })}`);
    expect(ipv6.headers.get("content-security-policy")).toContain("form-action 'self' http:;");
    const otherPath = await call(
      app,
      "GET",
      `/oauth/authorize?${authorizeQuery(native.client_id, challenge, { redirect_uri: "http://127.0.0.1:50123/other" })}`,
    );
    expect(otherPath.status).toBe(400);

    const page = await call(app, "GET", `/oauth/authorize?${authorizeQuery(client.client_id, challenge)}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("<img");
    expect(page.text).toContain("&lt;img src=x");
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' https://client.example");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("set-cookie")).toContain("HttpOnly; SameSite=Strict");
  });

  test("consent: needs the page's own cookie, a valid key holding every ticked scope, and an audience no wider than the key's", async () => {
    const app = testApp(get().db);
    const readOnly = await makeKey(get().db, { scopes: ["memory.read"] });
    const external = await makeKey(get().db, { audience: "external" });
    const client = (await register(app)).json;
    const { challenge } = pkce();
    const cases: [Consent, number, string][] = [
      [{ key: readOnly.secret, cookie: "memoryd_oauth_csrf=forged" }, 403, "did not come from this server"],
      [{ key: "ak_test_wrongwrongwrongwrongwrongwrong12" }, 400, "API key is not valid"],
      [{ key: "not a key" }, 400, "starts with ak_"],
      [{}, 400, "or sign in as the administrator"],
      [{ key: readOnly.secret, scopes: ["memory.read", "memory.write"] }, 400, "lacks memory.write"],
      [{ key: readOnly.secret, scopes: [] }, 400, "at least one permission"],
      [{ key: external.secret, audience: "internal" }, 400, "external access only"],
    ];
    for (const [choice, status, message] of cases) {
      const res = await consent(app, client.client_id, challenge, choice);
      expect(res.status).toBe(status);
      expect(res.headers.get("location")).toBeNull();
      expect(res.text).toContain(message);
      expect(res.text).not.toContain(readOnly.secret);
    }
    const denied = await consent(app, client.client_id, challenge, { decision: "deny" });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get("location")!);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("st8");
    expect(back.searchParams.get("code")).toBeNull();
  });

  test("the administrator can grant for a workspace: a key of its own is made for the application, and revoking it disconnects it", async () => {
    const app = testApp(get().db);
    const { workspace } = await makeKey(get().db);
    const client = (await register(app)).json;
    const { verifier, challenge } = pkce();
    const wrong = await consent(app, client.client_id, challenge, { admin: { token: "wrong-admin-token-000000", workspace } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("admin credential is not valid");
    const missing = await consent(app, client.client_id, challenge, { admin: { token: TEST_ADMIN_TOKEN, workspace: "no-such-ws" } });
    expect(missing.text).toContain("there is no workspace &quot;no-such-ws&quot;");

    const ok = await consent(app, client.client_id, challenge, {
      admin: { token: TEST_ADMIN_TOKEN, workspace },
      scopes: ["memory.read", "answers.write"],
      audience: "external",
    });
    expect(ok.status).toBe(303);
    const code = new URL(ok.headers.get("location")!).searchParams.get("code")!;
    const issued = await token(app, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
    expect(issued.json.scope).toBe("memory.read answers.write");
    const me = await call(app, "GET", "/v1/whoami", { key: issued.json.access_token });
    expect(me.json.data).toMatchObject({ key_name: "OAuth: Test Connector", key_audience: "external", scopes: ["memory.read", "answers.write"] });
    const keys = await call(app, "GET", `/v1/admin/workspaces/${workspace}/keys`, { key: TEST_ADMIN_TOKEN });
    const made = keys.json.data.keys.find((k: { name: string }) => k.name === "OAuth: Test Connector");
    expect(made).toMatchObject({ scopes: ["memory.read", "answers.write"], audience: "external" });
    expect((await call(app, "POST", `/v1/admin/keys/${made.id}/revoke`, { key: TEST_ADMIN_TOKEN })).status).toBe(200);
    expect((await call(app, "GET", "/v1/whoami", { key: issued.json.access_token })).json.error.code).toBe("api_key_revoked");
  });

  test("token: PKCE, redirect URI and client must match; a code is single use and a replay revokes what it issued", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const grant = await grantCode(app, key);
    expect(grant.location.searchParams.get("iss")).toBe("http://localhost");
    expect(grant.location.searchParams.get("state")).toBe("st8");
    const base = { grant_type: "authorization_code", code: grant.code, redirect_uri: REDIRECT, client_id: grant.clientId };
    const wrongVerifier = await token(app, { ...base, code_verifier: pkce().verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.json).toEqual({ error: "invalid_grant", error_description: "the PKCE code_verifier does not match the code_challenge" });
    // The failed attempt spent the code.
    expect((await token(app, { ...base, code_verifier: grant.verifier })).json.error).toBe("invalid_grant");

    const other = await grantCode(app, key);
    const fields = { grant_type: "authorization_code", code: other.code, code_verifier: other.verifier, redirect_uri: REDIRECT, client_id: other.clientId };
    expect((await token(app, { ...fields, redirect_uri: "https://client.example/other" })).json.error).toBe("invalid_grant");
    const fresh = await grantCode(app, key);
    const ok = await token(app, { ...fields, code: fresh.code, code_verifier: fresh.verifier, client_id: fresh.clientId });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(ok.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "memory.read" });
    expect((await call(app, "GET", "/v1/whoami", { key: ok.json.access_token })).status).toBe(200);
    const replay = await token(app, { ...fields, code: fresh.code, code_verifier: fresh.verifier, client_id: fresh.clientId });
    expect(replay.json.error).toBe("invalid_grant");
    expect((await call(app, "GET", "/v1/whoami", { key: ok.json.access_token })).json.error.code).toBe("api_key_revoked");

    const late = await grantCode(app, key);
    await get().db.sql`UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE client_id = ${late.clientId}`;
    const expired = await token(app, { ...fields, code: late.code, code_verifier: late.verifier, client_id: late.clientId });
    expect(expired.json.error_description).toContain("expired");
    expect((await token(app, { grant_type: "password" })).json.error).toBe("unsupported_grant_type");
    expect((await token(app, { grant_type: "authorization_code" })).json.error).toBe("invalid_request");
  });

  test("concurrent refreshes with one refresh token all succeed within the reuse window; later reuse revokes the grant", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const granted = await tokens(app, key);
    const fields = { grant_type: "refresh_token", refresh_token: granted.refresh, client_id: granted.clientId };
    const both = await Promise.all([token(app, fields), token(app, fields)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    for (const r of both) expect((await call(app, "GET", "/v1/whoami", { key: r.json.access_token })).status).toBe(200);
    await get().db.sql`UPDATE oauth_tokens SET rotated_at = now() - interval '2 minutes' WHERE rotated_at IS NOT NULL AND client_id = ${granted.clientId}`;
    const late = await token(app, fields);
    expect(late.json.error_description).toContain("already used");
    for (const r of both) expect((await call(app, "GET", "/v1/whoami", { key: r.json.access_token })).json.error.code).toBe("api_key_revoked");
  });

  test("token requests from an unknown client get invalid_client (so it registers again); a code whose key was revoked meanwhile is refused", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const unknown = await token(app, { grant_type: "refresh_token", refresh_token: `mrt_${"a".repeat(40)}`, client_id: "mcpc_gone" });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toBe("invalid_client");
    const grant = await grantCode(app, key);
    await revokeKey(get().db, key.id);
    const late = await token(app, {
      grant_type: "authorization_code",
      code: grant.code,
      code_verifier: grant.verifier,
      redirect_uri: REDIRECT,
      client_id: grant.clientId,
    });
    expect(late.json).toMatchObject({ error: "invalid_grant" });
    expect(late.json.error_description).toContain("revoked or expired");
  });

  test("an access token is its key: same rate bucket, scopes and audience as granted, and it ends with the key", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db, { scopes: ["memory.read", "memory.write"] });
    const granted = await tokens(app, key, { scopes: ["memory.read"], audience: "external" });
    const viaKey = await call(app, "GET", "/v1/whoami", { key: key.secret });
    const viaToken = await call(app, "GET", "/v1/whoami", { key: granted.access });
    expect(viaToken.json.data).toMatchObject({ key_prefix: key.prefix, scopes: ["memory.read"], key_audience: "external" });
    const remaining = (r: { headers: Headers }) => Number(r.headers.get("x-ratelimit-remaining"));
    if (viaKey.headers.get("x-ratelimit-reset") === viaToken.headers.get("x-ratelimit-reset")) expect(remaining(viaToken)).toBe(remaining(viaKey) - 1);
    const write = await call(app, "POST", "/v1/memory/facts", { key: granted.access, body: { facts: [{ text: "Tokens cannot write." }] } });
    expect(write.json.error.code).toBe("scope_missing");

    await revokeKey(get().db, key.id);
    expect((await call(app, "GET", "/v1/whoami", { key: granted.access })).json.error.code).toBe("api_key_revoked");
    const refresh = await token(app, { grant_type: "refresh_token", refresh_token: granted.refresh, client_id: granted.clientId });
    expect(refresh.json).toMatchObject({ error: "invalid_grant" });
    expect(refresh.json.error_description).toContain("revoked or expired");
  });

  test("refresh narrows but never widens scopes; revocation ends the grant; unknown tokens revoke nothing and fail nothing", async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const granted = await tokens(app, key, { scopes: ["memory.read", "memory.write"] });
    const wider = await token(app, { grant_type: "refresh_token", refresh_token: granted.refresh, client_id: granted.clientId, scope: "answers.write" });
    expect(wider.json.error).toBe("invalid_scope");
    const again = await tokens(app, key, { scopes: ["memory.read", "memory.write"] });
    const narrowed = await token(app, { grant_type: "refresh_token", refresh_token: again.refresh, client_id: again.clientId, scope: "memory.read" });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json.scope).toBe("memory.read");
    // Rotation ends the refresh token, not the access token beside it (concurrent requests still hold it).
    expect((await call(app, "GET", "/v1/whoami", { key: again.access })).status).toBe(200);

    const revoke = (tokenValue: string) =>
      call(app, "POST", "/oauth/revoke", {
        rawBody: new URLSearchParams({ token: tokenValue }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    expect((await revoke(narrowed.json.refresh_token)).status).toBe(200);
    expect((await call(app, "GET", "/v1/whoami", { key: narrowed.json.access_token })).json.error.code).toBe("api_key_revoked");
    expect((await revoke(`mat_${"x".repeat(40)}`)).status).toBe(200);
    expect((await revoke("anything")).status).toBe(200);
  });
});

// Its own database: the burst uses up this address's registrations for the window.
describeEachDb("OAuth registration throttle", (get) => {
  test("one address may register a bounded number of clients per window", async () => {
    const app = testApp(get().db);
    const burst = await Promise.all(Array.from({ length: 25 }, () => register(app)));
    expect(burst.filter((r) => r.status === 201).length).toBeLessThanOrEqual(20);
    const refused = burst.find((r) => r.status === 429);
    expect(refused?.json.error.code).toBe("rate_limited");
  });
});
