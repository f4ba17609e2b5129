/**
 * The npm package as an app outside this repository gets it: `npm pack` (which runs the prepack
 * build), the tarball installed into an empty Node project beside `ai` from the registry, a script
 * run there with `node` against the built binary, and the package's declarations type-checked there
 * as Node resolves them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, REPO_ROOT, startServer, tempDir } from "./binary";

afterAll(cleanup, 30_000);

const FIXTURES = join(import.meta.dir, "..", "fixtures", "package");
const AI_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", "ai", "package.json"), "utf8")) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const proc = Bun.spawn(command, { cwd, env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function ok(command: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const result = await run(command, cwd, env);
  if (result.code !== 0) throw new Error(`${command.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

interface Packed {
  filename: string;
  size: number;
  files: { path: string }[];
}

describe("the npm package", () => {
  let packed: Packed;
  let project: string;

  beforeAll(async () => {
    const out = tempDir("memoryd-pack-");
    [packed] = JSON.parse(await ok(["npm", "pack", "--json", "--pack-destination", out], REPO_ROOT)) as [Packed];
    project = tempDir("memoryd-node-app-");
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    await ok(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", join(out, packed.filename), `ai@${AI_VERSION}`], project);
    for (const file of ["app.mjs", "consumer.ts"]) copyFileSync(join(FIXTURES, file), join(project, file));
  }, 300_000);

  test("holds the built client and AI SDK entry points with their declarations, no sources and no binary, under 200 KB", () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain("dist/pkg/client/index.js");
    expect(paths).toContain("dist/pkg/client/index.d.ts");
    expect(paths).toContain("dist/pkg/ai-sdk/index.js");
    expect(paths).toContain("dist/pkg/ai-sdk/index.d.ts");
    expect(paths.filter((path) => !/^(dist\/pkg\/.+\.(js|d\.ts)|README\.md|package\.json|docs\/clients\.md)$/.test(path))).toEqual([]);
    expect(packed.size).toBeLessThanOrEqual(200 * 1024);
    for (const path of paths.filter((p) => p.startsWith("dist/pkg/"))) {
      expect(readFileSync(join(project, "node_modules", "memoryd", path), "utf8")).not.toContain("@sinclair/typebox");
    }
  });

  test("installs with the SSE parser as its only dependency and `ai` as an optional peer", () => {
    const manifest = JSON.parse(readFileSync(join(project, "node_modules", "memoryd", "package.json"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(manifest.dependencies as object)).toEqual(["eventsource-parser"]);
    expect(manifest.peerDependencies).toEqual({ ai: "^7" });
    expect(manifest.peerDependenciesMeta).toEqual({ ai: { optional: true } });
  });

  test("a script run with node uses every part against the binary: teach, search, context, answers, errors, withMemory, memoryTools", async () => {
    const server = await startServer({ dataDir: tempDir() });
    try {
      const stdout = await ok(["node", "app.mjs"], project, { MEMORYD_URL: server.url, MEMORYD_KEY: server.secret! });
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      expect(seen.scopes).toContain("memory.write");
      expect(seen.taught).toEqual({ accepted_fact_count: 1, created: 1, superseded: 0, skipped: 0 });
      expect(seen.messages).toMatchObject({ accepted_message_count: 1, statements: ["I moved to Lisbon last spring."], created: 1 });
      expect(seen.found).toEqual(["The billing service runs on Postgres 16."]);
      expect(seen.context).toContain("I moved to Lisbon last spring.");
      expect((seen.events as string[])[0]).toBe("answer.created");
      expect((seen.events as string[]).slice(-2)).toEqual(["answer.completed", "done"]);
      expect(seen.waited).toBe("completed");
      expect(seen.error).toEqual({ typed: true, status: 404, code: "not_found" });
      expect(seen.generated).toBe("It runs on Postgres 16.");
      expect(seen.system).toContain("The billing service runs on Postgres 16.");
      expect(seen.toolResult).toEqual(["The billing service runs on Postgres 16."]);
    } finally {
      await server.stop();
    }
  }, 120_000);

  test("its declarations type-check as Node resolves them, and a wrong request body is a type error", async () => {
    const options = {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      types: [],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    };
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: options, files: ["consumer.ts"] }));
    expect(await run([process.execPath, tsc, "-p", "tsconfig.json"], project)).toMatchObject({ code: 0, stdout: "" });
    // The same file with a valid body where it expects an error: the types are not `any`.
    writeFileSync(join(project, "loose.ts"), readFileSync(join(project, "consumer.ts"), "utf8").replace("query: 42", 'query: "42"'));
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: options, files: ["loose.ts"] }));
    const loose = await run([process.execPath, tsc, "-p", "tsconfig.json"], project);
    expect(loose.code).not.toBe(0);
    expect(loose.stdout).toContain("Unused '@ts-expect-error' directive");
  }, 60_000);

  test("the wire types it declares in plain TypeScript are the schemas' own: each assignable both ways to its Static<>", async () => {
    const dir = tempDir("memoryd-pack-types-");
    const lines = ["type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;"];
    let count = 0;
    for (const module of ["answers", "auth", "memory"]) {
      const declared = readFileSync(join(REPO_ROOT, "dist", "pkg", "schema", `${module}.d.ts`), "utf8");
      lines.push(`import type * as P_${module} from ${JSON.stringify(join(REPO_ROOT, "dist", "pkg", "schema", `${module}.js`))};`);
      lines.push(`import type * as S_${module} from ${JSON.stringify(join(REPO_ROOT, "src", "schema", `${module}.ts`))};`);
      for (const [, name] of declared.matchAll(/^export (?:interface|type) (\w+)/gm)) {
        lines.push(`export const ${module}_${name}: Same<P_${module}.${name}, S_${module}.${name}> = true;`);
        count++;
      }
    }
    expect(count).toBeGreaterThanOrEqual(30);
    writeFileSync(join(dir, "same.ts"), `${lines.join("\n")}\n`);
    const options = {
      target: "ES2022",
      module: "Preserve",
      moduleResolution: "Bundler",
      allowImportingTsExtensions: true,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options, files: ["same.ts"] }));
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    expect(await run([process.execPath, tsc, "-p", "tsconfig.json"], dir)).toMatchObject({ code: 0, stdout: "" });
  }, 60_000);
});
