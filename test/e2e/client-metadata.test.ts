/**
 * OAuth with a Client ID Metadata Document, against the binary: the client_id is the https URL of
 * a JSON document served here over TLS (a test certificate the binary is told to trust), and the
 * official SDK client, given that URL, authorizes with it instead of registering. memoryd runs
 * with MEMORYD_OUTBOUND_ALLOW_PRIVATE=true because the document is on loopback; a second server
 * without it refuses the same document.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Server } from "bun";
import { documentServer, TEST_CA } from "../helpers/metadata-documents";
import { consentAndGetCode, MemoryOAuthProvider, openConsentPage, REDIRECT_URI } from "../helpers/oauth";
import { cleanup, startServer, tempDir, waitReady, type ServerHandle } from "./binary";

setDefaultTimeout(120_000);

describe("OAuth clients identified by a metadata document [embedded]", () => {
  let server: ServerHandle;
  let strict: ServerHandle;
  let docs: Server<undefined>;
  let origin: string;

  beforeAll(async () => {
    docs = documentServer((o) => ({
      "/client.json": [
        200,
        JSON.stringify({ client_id: `${o}/client.json`, client_name: "Metadata Connector", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" }),
        { "cache-control": "max-age=600" },
      ],
      "/impostor.json": [200, JSON.stringify({ client_id: `${o}/client.json`, client_name: "Impostor", redirect_uris: [REDIRECT_URI] })],
      "/huge.json": [200, JSON.stringify({ client_id: `${o}/huge.json`, client_name: "x".repeat(6000), redirect_uris: [REDIRECT_URI] })],
      "/secret-client.json": [
        200,
        JSON.stringify({ client_id: `${o}/secret-client.json`, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "private_key_jwt" }),
      ],
      "/moved.json": [302, "", { location: "/moved.json" }],
      "/not-json.json": [200, "<html>hello</html>"],
    }));
    origin = `https://localhost:${docs.port}`;
    const env = { MEMORYD_LOG_LEVEL: "warn", NODE_EXTRA_CA_CERTS: TEST_CA };
    server = await startServer({ dataDir: join(tempDir("memoryd-e2e-cimd-"), "data"), env: { ...env, MEMORYD_OUTBOUND_ALLOW_PRIVATE: "true" } });
    strict = await startServer({ dataDir: join(tempDir("memoryd-e2e-cimd-strict-"), "data"), env });
    await Promise.all([waitReady(server.url), waitReady(strict.url)]);
  }, 300_000);

  afterAll(async () => {
    docs?.stop(true);
    await server?.stop();
    await strict?.stop();
    await cleanup();
  });

  const authorizeUrl = (base: string, clientId: string, redirectUri = REDIRECT_URI): string => {
    const url = new URL("/oauth/authorize", base);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state: "s",
    }).toString();
    return url.href;
  };

  test("the authorization server says it accepts metadata documents", async () => {
    const res = await fetch(new URL("/.well-known/oauth-authorization-server", server.url));
    expect((await res.json()) as object).toMatchObject({ client_id_metadata_document_supported: true, authorization_response_iss_parameter_supported: true });
  });

  test("the SDK client authorizes with its metadata URL, without registering, and calls tools with the token", async () => {
    const metadataUrl = `${origin}/client.json`;
    const provider = new MemoryOAuthProvider(REDIRECT_URI, metadataUrl);
    const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider });
    await expect(new Client({ name: "cimd", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.searchParams.get("client_id")).toBe(metadataUrl);
    const page = await openConsentPage(provider.authorizationUrl!);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Metadata Connector");
    expect(page.html).toContain(`metadata document published at <b>localhost:${docs.port}</b>`);
    const code = await consentAndGetCode(server.url, provider.authorizationUrl!, { apiKey: server.secret!, scopes: ["memory.read"] });
    await transport.finishAuth(code);
    const client = new Client({ name: "cimd", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["get_memory_context", "search_memory", "whoami"]);
    await client.close();
  });

  test.each([
    ["/impostor.json", "names another client_id"],
    ["/huge.json", "larger than 5120 bytes"],
    ["/secret-client.json", "public clients with PKCE only"],
    ["/moved.json", "more than 3 redirects"],
    ["/not-json.json", "not JSON"],
    ["/missing.json", "HTTP 404"],
  ])("a document that cannot be trusted (%s) is refused on the page, naming why", async (path, reason) => {
    const page = await openConsentPage(authorizeUrl(server.url, `${origin}${path}`));
    expect(page.status).toBe(400);
    expect(page.html).toContain(reason);
  });

  test("a redirect URI the document does not list is refused", async () => {
    const page = await openConsentPage(authorizeUrl(server.url, `${origin}/client.json`, "http://127.0.0.1:1/elsewhere"));
    expect(page.status).toBe(400);
    expect(page.html).toContain("not one this application registered");
  });

  test("by default a document on a loopback or private address is never fetched", async () => {
    const page = await openConsentPage(authorizeUrl(strict.url, `${origin}/client.json`));
    expect(page.status).toBe(400);
    expect(page.html).toContain("private, loopback or link-local address");
  });
});
