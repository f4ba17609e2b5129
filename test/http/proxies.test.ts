/**
 * MEMORYD_TRUSTED_PROXIES over a real socket (the TCP peer is 127.0.0.1): behind a trusted proxy
 * the failed-authentication lockout, the request log and the OAuth issuer see the client the proxy
 * names; without trust, the same headers change nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { AUTH_FAILURE_LIMIT } from "../../src/auth/authenticate";
import { createLogger } from "../../src/log";
import { awayFromWindowEdge, makeKey, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("trusted proxies", (get) => {
  const lines: string[] = [];
  let trustedBase: string;
  let plainBase: string;
  let stops: (() => Promise<unknown>)[] = [];

  beforeAll(() => {
    const trusted = testApp(
      get().db,
      { trustedProxies: ["127.0.0.1", "::1"] },
      undefined,
      createLogger("info", (l) => lines.push(l)),
    );
    const plain = testApp(
      get().db,
      {},
      undefined,
      createLogger("info", (l) => lines.push(l)),
    );
    for (const app of [trusted, plain]) app.listen({ port: 0, hostname: "127.0.0.1" });
    trustedBase = `http://127.0.0.1:${trusted.server!.port}`;
    plainBase = `http://127.0.0.1:${plain.server!.port}`;
    stops = [() => trusted.stop(true), () => plain.stop(true)];
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  const whoami = (base: string, key: string, forwardedFor?: string) =>
    fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${key}`, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) } });

  test("the lockout counts the forwarded client, so one client's failures lock out only that client", async () => {
    await awayFromWindowEdge();
    const key = await makeKey(get().db);
    const noisy = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    const quiet = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) await (await whoami(trustedBase, "ak_test_wrong_key_000000000000000000000000", noisy)).text();
    const locked = await whoami(trustedBase, key.secret, noisy);
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as { error: { message: string } }).error.message).toContain("failed authentication attempts");
    expect((await whoami(trustedBase, key.secret, quiet)).status).toBe(200);
    // Without trust the header is only a header: the peer (127.0.0.1) is who is asking.
    expect((await whoami(plainBase, key.secret, noisy)).status).toBe(200);
  });

  test("the request log names the forwarded client only behind a trusted proxy", async () => {
    const key = await makeKey(get().db);
    const send = (base: string, forwardedFor: string, requestId: string) =>
      fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${key.secret}`, "x-forwarded-for": forwardedFor, "x-request-id": requestId } });
    await (await send(trustedBase, "192.0.2.44", "proxy-log-trusted")).text();
    await (await send(plainBase, "192.0.2.45", "proxy-log-plain")).text();
    // The log line is written after the response is sent: wait for it.
    const clientOf = async (requestId: string): Promise<string | undefined> => {
      for (let tries = 0; tries < 200; tries++) {
        const line = lines
          .map((l) => JSON.parse(l) as { msg: string; request_id?: string; client?: string })
          .find((l) => l.msg === "request" && l.request_id === requestId);
        if (line !== undefined) return line.client;
        await Bun.sleep(25);
      }
      return undefined;
    };
    expect(await clientOf("proxy-log-trusted")).toBe("192.0.2.44");
    expect(await clientOf("proxy-log-plain")).toBe("127.0.0.1");
  });

  test("the OAuth issuer takes the scheme and host a trusted proxy reports, and ignores them otherwise", async () => {
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "memory.example.com", "x-forwarded-for": "192.0.2.9" };
    const viaProxy = (await (await fetch(`${trustedBase}/.well-known/oauth-protected-resource/v1/mcp`, { headers: forwarded })).json()) as { resource: string };
    expect(viaProxy.resource).toBe("https://memory.example.com/v1/mcp");
    const spoofed = (await (await fetch(`${plainBase}/.well-known/oauth-protected-resource/v1/mcp`, { headers: forwarded })).json()) as { resource: string };
    expect(spoofed.resource).toBe(`${plainBase}/v1/mcp`);
  });
});
