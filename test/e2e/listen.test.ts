/**
 * `memoryd serve` on an address it cannot have: a clear line, exit 1, the data directory free,
 * and no bootstrap key printed (or created) for a server that never listened.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cleanup, request, runCli, startServer, tempDir } from "./binary";

setDefaultTimeout(60_000);
afterAll(cleanup);

test("a second serve on a port in use exits 1 with 'address already in use' and leaves the first alone", async () => {
  const first = await startServer({ dataDir: join(tempDir(), "a") });
  const dataDir = join(tempDir(), "b");
  const second = await runCli(["serve", "--port", String(first.port), "--host", "127.0.0.1", "--data-dir", dataDir], { timeoutMs: 20_000 });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain("address already in use");
  expect(second.stdout).not.toMatch(/ak_(test|live)_|listening/);
  expect(existsSync(join(dataDir, "memoryd.lock"))).toBe(false);
  // Every request still reaches the first server, which knows its own bootstrap key.
  for (let i = 0; i < 20; i++) {
    expect((await request(first.url, "/v1/whoami", { key: first.secret ?? "" })).status).toBe(200);
  }
  // The second data directory got no key: its first real start creates and prints one.
  const later = await startServer({ dataDir });
  expect(later.secret).toMatch(/^ak_test_/);
  await Promise.all([first.stop(), later.stop()]);
});

test.each([
  ["10.255.255.1", "address not available"],
  ["not-an-ip.invalid", "does not resolve"],
])("--host %s exits 1 at once (%s), releases the data directory and prints no key", async (host, reason) => {
  const dataDir = join(tempDir(), "data");
  const result = await runCli(["serve", "--port", "0", "--host", host, "--data-dir", dataDir], { timeoutMs: 20_000 });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(reason);
  expect(result.stdout).not.toMatch(/ak_(test|live)_|listening/);
  expect(existsSync(join(dataDir, "memoryd.lock"))).toBe(false);
});
