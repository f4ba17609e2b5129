/**
 * Every TypeScript example in docs/clients.md and the README runs as written (the README's with
 * the server's address in place of the default one) against the built binary on the embedded
 * database, whose worker answers from the local provider. They run in a directory of their own,
 * where `import … from "memoryd/client"` resolves through the package's exports to its build
 * (scripts/pack.ts), made first.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildPackage } from "../../scripts/pack";
import { cleanup, REPO_ROOT as ROOT, type ServerHandle, startServer, tempDir } from "./binary";

afterAll(cleanup, 30_000);

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

let server: ServerHandle;
/** An app of its own: node_modules holds this checkout as `memoryd`, and the `ai` it installed. */
let dir: string;

beforeAll(async () => {
  server = await startServer({ dataDir: tempDir() });
  await buildPackage();
  dir = tempDir("memoryd-docs-examples-");
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(ROOT, join(dir, "node_modules", "memoryd"), "dir");
  symlinkSync(join(ROOT, "node_modules", "ai"), join(dir, "node_modules", "ai"), "dir");
}, 120_000);

test("docs/clients.md and the README have examples, and each one runs", async () => {
  expect(examples.length).toBeGreaterThanOrEqual(4);
  for (const [i, code] of examples.entries()) {
    const file = join(dir, `example-${i}.ts`);
    writeFileSync(file, code.replace('import { openai } from "@ai-sdk/openai";', STAND_IN_PROVIDER));
    const proc = Bun.spawn([process.execPath, file], {
      env: { ...process.env, MEMORYD_URL: server.url, MEMORYD_KEY: server.secret! },
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
