/**
 * The Python client (clients/python, docs/clients.md) under `bun run test`: its pytest suite runs
 * against the built binary (every method, retries, cancellation, the examples, the types
 * regenerated from the binary's OpenAPI document, mypy --strict on the package and on a good and a
 * bad consumer), with Debian's Python, pytest, httpx and mypy (/usr/bin/python3; .ci/run installs
 * them). Skipped, saying so, only where those packages are not installed.
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, REPO_ROOT } from "./binary";

const PYTHON = "/usr/bin/python3";
const PACKAGE = join(REPO_ROOT, "clients", "python");

function pythonHasModules(): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing`;
  const probe = Bun.spawnSync([PYTHON, "-c", "import httpx, pytest, mypy"], { stdout: "pipe", stderr: "pipe" });
  return probe.exitCode === 0 ? null : (probe.stderr.toString().trim().split("\n").at(-1) ?? "import failed");
}

const missing = pythonHasModules();
if (missing !== null) {
  console.warn(
    `SKIPPED test/e2e/python-client.test.ts: Debian's Python packages are not installed (${missing}). ` +
      "Install them with: apt-get install -y python3-httpx python3-pytest python3-mypy",
  );
}

test.skipIf(missing !== null)(
  "the Python client's pytest suite passes against the built binary",
  async () => {
    const binary = await ensureBinary();
    const proc = Bun.spawn([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], {
      cwd: PACKAGE,
      env: { ...process.env, MEMORYD_BINARY: binary, PYTHONDONTWRITEBYTECODE: "1", PYTHONPATH: "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const summary = stdout.trim().split("\n").at(-1) ?? "";
    if (code !== 0) throw new Error(`pytest exited ${code}: ${summary}\n${stdout}\n${stderr}`);
    expect(summary).toMatch(/^\d+ passed/);
    expect(summary).not.toMatch(/failed|error|skipped/);
    expect(Number(/^(\d+) passed/.exec(summary)?.[1])).toBeGreaterThanOrEqual(50);
  },
  600_000,
);
