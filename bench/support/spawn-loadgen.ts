import { join } from "node:path";
import type { LoadResult, LoadSpec } from "./loadgen";
import { cpuSeconds } from "./procs";

const LOADGEN = join(import.meta.dir, "loadgen.ts");

/** Runs one load generator process (bench/support/loadgen.ts) and returns its result and CPU seconds. */
export async function runLoadgen(spec: LoadSpec): Promise<{ result: LoadResult; loadgenCpu: number }> {
  const proc = Bun.spawn([process.execPath, LOADGEN], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write(JSON.stringify(spec));
  await proc.stdin.end();
  // The child's CPU time is read just before it exits: poll while it runs.
  let loadgenCpu = 0;
  const poll = setInterval(() => {
    const v = cpuSeconds(proc.pid);
    if (!Number.isNaN(v)) loadgenCpu = v;
  }, 100);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearInterval(poll);
  if (code !== 0) throw new Error(`loadgen exited ${code}: ${stderr}`);
  return { result: JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as LoadResult, loadgenCpu };
}
