import childProcess from "node:child_process";

/**
 * Bun 1.3 closes a child's extra stdio pipes (stdio[3] and up) twice: once when the streams over
 * them close, and again when the garbage collector finalizes the child's Subprocess, by which time
 * those descriptor numbers have been handed out again. In a process that hosts an embedded PGlite,
 * they are often its data files: queries then fail with "could not read/write blocks … Invalid
 * seek" (the number went on to a pipe or socket) or "Bad file descriptor", or, when the number went
 * on to another data file, one relation's pages are written into another. playwright-core launches
 * Chromium this way (`--remote-debugging-pipe` on fds 3 and 4), which is how `bun run test` met it.
 *
 * Children spawned with such pipes are kept reachable for the life of the process, so their
 * Subprocess is never finalized and nothing closes a number twice. The cost is one ChildProcess
 * object per such spawn; memoryd itself spawns none. Bun fixed this upstream (oven-sh/bun#33828,
 * after 1.3.14): once the version we run has it, remove this file and its callers.
 */
const kept = new Set<childProcess.ChildProcess>();
let installed = false;

function hasExtraPipes(options: unknown): boolean {
  const stdio = (options as { stdio?: unknown } | undefined)?.stdio;
  return Array.isArray(stdio) && stdio.slice(3).some((slot) => slot === "pipe" || slot === "overlapped");
}

/**
 * Patches node:child_process's `spawn` (idempotent). Callers that reach it through the module
 * object at call time, as playwright-core does, get the guarded one; install it before they spawn.
 */
export function guardChildProcessPipes(): void {
  if (installed) return;
  installed = true;
  const exported = childProcess as unknown as { spawn: (...args: unknown[]) => childProcess.ChildProcess };
  const original = exported.spawn;
  exported.spawn = function spawn(this: unknown, ...args: unknown[]) {
    const child = original.apply(this, args);
    // spawn(command, args?, options?): the options are the last plain object.
    const options = args.findLast((arg) => typeof arg === "object" && arg !== null && !Array.isArray(arg));
    if (hasExtraPipes(options)) kept.add(child);
    return child;
  };
}

/** How many children the guard keeps reachable. */
export function guardedChildren(): number {
  return kept.size;
}
