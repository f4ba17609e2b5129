/**
 * The docs cannot rot: every shell example in README.md and docs/ that talks to memoryd over HTTP
 * runs, in document order, against the built binary (its URL in place of 127.0.0.1:8787, the
 * bootstrap key as $MEMORYD_KEY), and its printed JSON has the shape of the output shown after it.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, startServer, tempDir } from "./binary";

afterAll(cleanup, 30_000);

const ROOT = join(import.meta.dir, "../..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const DOCUMENTED = "http://127.0.0.1:8787";

interface Example {
  page: string;
  script: string;
  /** The output shown right after the example, when there is one. */
  expected: string | null;
}

/** Fenced `sh` blocks that call the documented server with curl, each with the `json` block after it. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const page of PAGES) {
    const blocks = [...readFileSync(join(ROOT, page), "utf8").matchAll(/^```(\w*)\n([\s\S]*?)^```\n(\n?)/gm)];
    blocks.forEach((block, i) => {
      const [, lang, body] = block;
      if (lang !== "sh" || !/^curl .*127\.0\.0\.1:8787/m.test(body!)) return;
      const next = blocks[i + 1];
      const adjacent = next !== undefined && next.index === block.index! + block[0].length && next[1] === "json";
      found.push({ page, script: body!, expected: adjacent ? next[2]! : null });
    });
  }
  return found;
}

/** What a JSON value is made of, not what it holds: keys, element shapes and types. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
    );
  }
  return value === null ? "null" : typeof value;
}

test("every curl example in the docs runs against the binary and prints what the docs show", async () => {
  const found = examples();
  expect(found.length).toBeGreaterThanOrEqual(5);
  const server = await startServer({ dataDir: tempDir() });
  try {
    for (const example of found) {
      const script = example.script.replaceAll(DOCUMENTED, server.url);
      const run = Bun.spawnSync(["bash", "-c", script], { env: { ...process.env, MEMORYD_KEY: server.secret! } });
      const out = run.stdout.toString();
      const where = `${example.page}: ${example.script.split("\n")[0]}`;
      expect([where, run.exitCode]).toEqual([where, 0]);
      if (out.startsWith("event:")) {
        // A streamed answer: the documented events, ending with a completed answer.
        expect([where, out.includes("event: answer.completed")]).toEqual([where, true]);
        continue;
      }
      const printed = JSON.parse(out) as Record<string, unknown>;
      expect([where, "error" in printed && !("jsonrpc" in printed)]).toEqual([where, false]);
      if (example.expected !== null) expect([where, shape(printed)]).toEqual([where, shape(JSON.parse(example.expected))]);
    }
  } finally {
    await server.stop("SIGTERM");
  }
}, 60_000);
