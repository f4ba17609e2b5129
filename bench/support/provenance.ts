import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

/**
 * What was measured: the commit and uncommitted src/ changes (or BENCH_SOURCE when the tree is not
 * a git checkout, e.g. a `git archive` snapshot), and whether the binary predates src/.
 */
export function provenance(binary?: string): string[] {
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], { cwd: ROOT })
      .stdout.toString()
      .trimEnd();
  const newestSrc = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (max, e) => Math.max(max, e.isDirectory() ? newestSrc(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs),
      0,
    );
  const commit = existsSync(join(ROOT, ".git")) ? git("rev-parse", "--short", "HEAD") : "";
  let source: string;
  if (commit) {
    const dirty = git("status", "--short", "--", "src").split("\n").filter(Boolean);
    source = `commit ${commit}${dirty.length ? `, uncommitted in src/: ${dirty.map((l) => l.slice(3)).join(", ")}` : ", src/ clean"}`;
  } else {
    source = process.env.BENCH_SOURCE ?? "source: not a git checkout (set BENCH_SOURCE)";
  }
  const lines = [`${source}; Bun ${Bun.version}`];
  if (binary) {
    const binaryTime = statSync(binary).mtimeMs;
    lines[0] += `; binary built ${new Date(binaryTime).toISOString()}`;
    const srcTime = newestSrc(join(ROOT, "src"));
    if (srcTime > binaryTime) {
      lines.push(`WARNING: src/ changed after dist/memoryd was built (${new Date(srcTime).toISOString()}): rebuild with \`bun run build\`.`);
    }
  }
  return lines;
}
