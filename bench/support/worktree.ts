/**
 * Another build of memoryd beside this tree's, for benches that measure both in one run
 * (`--against REF`): a detached git worktree of REF whose modules a bench imports by path.
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface Worktree {
  dir: string;
  /** REF's commit, abbreviated. */
  commit: string;
  remove(): void;
}

function git(args: string[]): { ok: boolean; out: string; err: string } {
  const r = Bun.spawnSync(["git", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { ok: r.exitCode === 0, out: r.stdout.toString().trim(), err: r.stderr.toString().trim() };
}

/**
 * A detached worktree of `ref` in a fresh temp dir, this checkout's node_modules linked into it.
 * `remove()` is idempotent and runs on exit signals too, so no worktree outlives the run.
 */
export function addWorktree(ref: string): Worktree {
  const resolved = git(["rev-parse", "--verify", "--short", `${ref}^{commit}`]);
  if (!resolved.ok) throw new Error(`--against ${ref}: not a commit (${resolved.err})`);
  const dir = mkdtempSync(join(tmpdir(), "memoryd-against-"));
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    // --force: the node_modules link is an untracked file in it.
    git(["worktree", "remove", "--force", dir]);
    rmSync(dir, { recursive: true, force: true });
    git(["worktree", "prune"]);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    remove();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const added = git(["worktree", "add", "--detach", dir, ref]);
  if (!added.ok) {
    remove();
    throw new Error(`git worktree add --detach ${dir} ${ref} failed: ${added.err}`);
  }
  try {
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, commit: resolved.out, remove };
}
