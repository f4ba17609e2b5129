/**
 * CORS through a real browser: a page on an allowed origin calls search with an external key on
 * the compiled binary and reads the result; the same page on another origin is blocked by the
 * browser.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { chromium, type Browser } from "playwright-core";
import { cleanup, cliOk, startServer, tempDir, type ServerHandle } from "./binary";

setDefaultTimeout(120_000);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let memoryd: ServerHandle;
let browser: Browser;
let allowedSite: Server<unknown>;
let otherSite: Server<unknown>;
let externalKey = "";

/** A site that serves one empty page: the origin a browser script runs in. */
const site = (): Server<unknown> =>
  Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><title>site</title>", { headers: { "content-type": "text/html" } }) });

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  allowedSite = site();
  otherSite = site();
  const dataDir = join(tempDir(), "data");
  memoryd = await startServer({ dataDir, env: { MEMORYD_ALLOWED_ORIGINS: `http://127.0.0.1:${allowedSite.port}` } });
  await fetch(`${memoryd.url}/v1/memory/facts`, {
    method: "POST",
    headers: { authorization: `Bearer ${memoryd.secret}`, "content-type": "application/json" },
    body: JSON.stringify({ facts: [{ text: "Orders ship within two days." }] }),
  });
  await memoryd.stop();
  externalKey = JSON.parse(
    await cliOk([
      "keys",
      "create",
      "--workspace",
      "default",
      "--name",
      "web",
      "--scopes",
      "memory.read",
      "--audience",
      "external",
      "--json",
      "--data-dir",
      dataDir,
    ]),
  ).secret;
  memoryd = await startServer({ dataDir, env: { MEMORYD_ALLOWED_ORIGINS: `http://127.0.0.1:${allowedSite.port}` } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});

afterAll(async () => {
  await browser?.close();
  allowedSite?.stop(true);
  otherSite?.stop(true);
  await memoryd?.stop();
  await cleanup();
});

/** Runs a search from a page of `origin` and reports what the page could read. */
async function searchFrom(origin: string): Promise<{ ok: boolean; facts?: string[]; remaining?: string | null; error?: string }> {
  const page = await browser.newPage();
  await page.goto(origin);
  const result = await page.evaluate(
    async ({ url, key }) => {
      try {
        const res = await fetch(`${url}/v1/memory/search`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ query: "when do orders ship" }),
        });
        const body = (await res.json()) as { data: { facts: { fact_text: string }[] } };
        return { ok: true, facts: body.data.facts.map((f: { fact_text: string }) => f.fact_text), remaining: res.headers.get("x-ratelimit-remaining") };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url: memoryd.url, key: externalKey },
  );
  await page.close();
  return result;
}

test("a page on an allowed origin searches with an external key and reads the rate-limit headers", async () => {
  const result = await searchFrom(`http://127.0.0.1:${allowedSite.port}/`);
  expect(result.ok).toBe(true);
  expect(result.facts).toEqual(["Orders ship within two days."]);
  expect(Number(result.remaining)).toBeGreaterThan(0);
});

test("the same page on another origin is blocked by the browser", async () => {
  const result = await searchFrom(`http://127.0.0.1:${otherSite.port}/`);
  expect(result.ok).toBe(false);
  expect(result.error).toContain("Failed to fetch");
});
