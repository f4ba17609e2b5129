/**
 * Every TypeScript example in docs/clients.md and the README runs as written (the README's with
 * the test server's address in place of the default one) against a real server on the embedded
 * database, with the worker answering from the local provider. They run in a directory of their
 * own, where `import … from "memoryd/client"` resolves through the package's exports to its build
 * (scripts/pack.ts), made first.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPackage } from "../../scripts/pack";
import { createLocalProvider } from "../../src/models/local";
import { makeKey } from "../helpers/app";
import { answersHarness, type AnswersHarness } from "../helpers/answers";
import { openTestDatabase, type TestDatabase } from "../helpers/databases";

const ROOT = join(import.meta.dir, "..", "..");
/**
 * The AI SDK example names a real provider (`@ai-sdk/openai`); here a mock model of `ai/test`
 * stands in for it, answering every call with a fixed text. Everything else runs as written.
 */
const STAND_IN_PROVIDER = `import { MockLanguageModelV4 } from "ai/test";
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
const openai = (_id: string) => new MockLanguageModelV4({ doGenerate: async () => ({ content: [{ type: "text", text: "A stand-in answer." }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }) });`;
const examples = ["docs/clients.md", "README.md"].flatMap((doc) =>
  [...readFileSync(join(ROOT, doc), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.replace('baseUrl: "http://127.0.0.1:8787"', 'baseUrl: process.env.MEMORYD_URL ?? ""'),
  ),
);

let t: TestDatabase;
let h: AnswersHarness;
let server: ReturnType<typeof Bun.serve>;
let key: string;
/** An app of its own: node_modules holds this checkout as `memoryd`, and the `ai` it installed. */
let dir: string;

beforeAll(async () => {
  t = await openTestDatabase("embedded");
  h = await answersHarness(t.db, { local: createLocalProvider() });
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
  key = (await makeKey(t.db)).secret;
  await buildPackage();
  dir = mkdtempSync(join(tmpdir(), "memoryd-docs-examples-"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(ROOT, join(dir, "node_modules", "memoryd"), "dir");
  symlinkSync(join(ROOT, "node_modules", "ai"), join(dir, "node_modules", "ai"), "dir");
}, 60_000);

afterAll(async () => {
  server.stop(true);
  await h.stop();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

test("docs/clients.md and the README have examples, and each one runs", async () => {
  expect(examples.length).toBeGreaterThanOrEqual(4);
  for (const [i, code] of examples.entries()) {
    const file = join(dir, `example-${i}.ts`);
    writeFileSync(file, code.replace('import { openai } from "@ai-sdk/openai";', STAND_IN_PROVIDER));
    const proc = Bun.spawn([process.execPath, file], {
      env: { ...process.env, MEMORYD_URL: `http://127.0.0.1:${server.port}`, MEMORYD_KEY: key },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (exit !== 0) throw new Error(`example ${i} exited ${exit}:\n${stderr}\n${code}`);
    expect(stderr).toBe("");
    if (code.includes("search(")) expect(stdout).toContain("The billing service runs on Postgres 16.");
    if (code.includes("teachMessages(")) expect(stdout).toContain("Lisbon");
    if (code.includes("answers.wait(")) expect(stdout).toContain("completed");
    if (code.includes("withMemory(")) expect(stdout).toContain("A stand-in answer.");
  }
}, 60_000);
