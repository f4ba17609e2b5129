/**
 * Issue 53, the cause in isolation: on Bun 1.3.14 a child process's extra stdio pipes (stdio[3] and
 * up, what playwright-core gives Chromium for --remote-debugging-pipe) are closed twice: once when
 * the caller's stream closes them, and again when the garbage collector finalizes the Subprocess.
 * By then the numbers belong to whatever the process opened since, here ordinary files.
 *
 *   bun scripts/repro/spawn-double-close.ts
 *
 * Prints, per way of spawning, which of 40 files opened after the child finished a GC closed, and
 * the same with the child kept reachable (what src/db/child-process-guard.ts does). Each probe runs
 * in a fresh process. Bun 1.3.14:
 *
 *   child_process extra pipes: files closed by GC [15,17]; with the child kept reachable []
 *   child_process stdio pipes only: files closed by GC []; with the child kept reachable []
 *   Bun.spawn stdout/stderr pipes: files closed by GC []; with the child kept reachable []
 *   Bun.spawn killed: files closed by GC []; with the child kept reachable []
 */
import { spawn } from "node:child_process";
import { fstatSync, openSync } from "node:fs";

type Variant = () => Promise<() => void>;

const variants: Record<string, Variant> = {
  // playwright-core's launchProcess: stdio ["ignore", "pipe", "pipe", "pipe", "pipe"].
  "child_process extra pipes": async () => {
    const child = spawn("sh", ["-c", "echo hi >&3; echo out"], { stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] });
    await new Promise((resolve) => child.on("exit", resolve));
    for (const stream of child.stdio) stream?.destroy();
    await Bun.sleep(50);
    return () => void child;
  },
  "child_process stdio pipes only": async () => {
    const child = spawn("sh", ["-c", "echo out; echo err >&2"], { stdio: ["pipe", "pipe", "pipe"] });
    await new Promise((resolve) => child.on("exit", resolve));
    for (const stream of child.stdio) stream?.destroy();
    await Bun.sleep(50);
    return () => void child;
  },
  "Bun.spawn stdout/stderr pipes": async () => {
    const child = Bun.spawn(["sh", "-c", "echo out; echo err >&2"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return () => void child;
  },
  "Bun.spawn killed": async () => {
    const child = Bun.spawn(["sleep", "10"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    child.kill();
    await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return () => void child;
  },
};

/** Kept reachable for the life of the process when asked: the Subprocess is then never finalized. */
const kept: unknown[] = [];

async function probe(name: string, keepAlive: boolean): Promise<number[]> {
  const hold = await variants[name]!();
  if (keepAlive) kept.push(hold);
  const files = Array.from({ length: 40 }, () => openSync(process.execPath, "r"));
  for (let i = 0; i < 3; i++) {
    Bun.gc(true);
    await Bun.sleep(10);
  }
  return files.filter((fd) => {
    try {
      fstatSync(fd);
      return false;
    } catch {
      return true;
    }
  });
}

const [variant, mode] = [process.argv[2], process.argv[3]];
if (variant !== undefined && variants[variant]) {
  // One variant in this (child) process, so no other child's finalizer runs during the probe.
  console.log(JSON.stringify(await probe(variant, mode === "keep")));
} else {
  for (const name of Object.keys(variants)) {
    const run = async (keep: string) => {
      const child = Bun.spawn([process.execPath, import.meta.path, name, keep], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
      const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      return out.trim();
    };
    console.log(`${name}: files closed by GC ${await run("drop")}; with the child kept reachable ${await run("keep")}`);
  }
}
