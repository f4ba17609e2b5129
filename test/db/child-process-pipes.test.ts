/**
 * Issue 53: Bun 1.3 closes a child's extra stdio pipes a second time when it garbage-collects the
 * child, by which time an embedded PGlite in the same process may hold those numbers (see
 * src/db/child-process-guard.ts). Each case runs test/db/fixtures/child-pipes-gc.ts in a fresh
 * process, where the order of spawn, database and collection is fixed.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

interface Outcome {
  /** Children the guard keeps reachable. */
  kept: number;
  /** The database's descriptors before the collection. */
  held: number;
  lost: string[];
  errors: string[];
}

async function run(...args: string[]): Promise<Outcome> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures/child-pipes-gc.ts"), ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`fixture exited ${code}:\n${stdout}\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Outcome;
}

test("with the guard installed before the spawn, collecting a Playwright-style child leaves the database's files alone", async () => {
  const outcome = await run("--guard");
  expect(outcome.held).toBeGreaterThan(0);
  expect(outcome).toEqual({ kept: 1, held: outcome.held, lost: [], errors: [] });
}, 60_000);

// The control: it shows the scenario above does reach the bug. When a Bun upgrade makes it fail,
// Bun no longer closes these pipes twice: remove src/db/child-process-guard.ts, its callers and this file.
test("without the guard, this Bun closes the database's files when it collects the child", async () => {
  const outcome = await run();
  expect(outcome.kept).toBe(0);
  expect(outcome.lost.length).toBeGreaterThan(0);
  expect(outcome.errors.length).toBeGreaterThan(0);
}, 60_000);
