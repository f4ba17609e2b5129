/**
 * Builds the npm package's files into dist/pkg (`npm pack` runs it as `prepack`; docs/clients.md):
 * ESM for memoryd/client and memoryd/ai-sdk, and their declarations. The package's only runtime
 * dependency is the SSE parser (`ai` is a peer), so nothing of TypeBox may reach it:
 * - the AI SDK tools' input schemas are evaluated here and shipped as JSON;
 * - the wire types (`Static<typeof …>` in src/schema) are written out as plain TypeScript,
 *   generated from the same schemas' JSON by json-schema-to-typescript.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { compile } from "json-schema-to-typescript";

const ROOT = join(import.meta.dir, "..");
export const PACKAGE_DIR = join(ROOT, "dist", "pkg");
const ENTRYPOINTS = ["src/client/index.ts", "src/ai-sdk/index.ts"];
/** Imported by the built code, installed beside it (package.json dependencies and peers). */
const EXTERNAL = ["eventsource-parser", "ai"];
/** The schema modules whose types the client's declarations name. */
const SCHEMA_MODULES = ["answers", "auth", "memory"];

export async function buildPackage(): Promise<void> {
  rmSync(PACKAGE_DIR, { recursive: true, force: true });
  await bundle();
  await declare();
  for (const file of listFiles(PACKAGE_DIR)) {
    if (readFileSync(file, "utf8").includes("@sinclair/typebox")) throw new Error(`${relative(ROOT, file)} still refers to TypeBox`);
  }
}

async function bundle(): Promise<void> {
  const specs = await import("../src/mcp/tool-specs");
  const result = await Bun.build({
    entrypoints: ENTRYPOINTS.map((entry) => join(ROOT, entry)),
    root: join(ROOT, "src"),
    outdir: PACKAGE_DIR,
    target: "node",
    format: "esm",
    splitting: true,
    external: EXTERNAL,
    plugins: [
      {
        // The tool specs as data: the same names, descriptions and schemas, without the TypeBox
        // builders that made them.
        name: "tool-specs-as-json",
        setup(build): void {
          build.onLoad({ filter: /src\/mcp\/tool-specs\.ts$/ }, () => ({
            loader: "js",
            contents: [
              `export const SEARCH_MEMORY = ${JSON.stringify(specs.SEARCH_MEMORY)};`,
              `export const GET_MEMORY_CONTEXT = ${JSON.stringify(specs.GET_MEMORY_CONTEXT)};`,
              `export const TEACH_MEMORY = ${JSON.stringify(specs.TEACH_MEMORY)};`,
              `export ${specs.wireInputSchema.toString()}`,
            ].join("\n"),
          }));
        },
      },
    ],
  });
  if (!result.success) throw new AggregateError(result.logs, "bundling the package failed");
}

/**
 * tsc writes the declarations of the client and the AI SDK entry points; the schema modules'
 * declarations it writes (TypeBox types) are then replaced by plain ones. Relative specifiers get
 * `.js`, which Node's resolution (`moduleResolution: nodenext`) needs and the sources leave out.
 */
async function declare(): Promise<void> {
  const config = join(PACKAGE_DIR, "tsconfig.json");
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "Preserve",
        moduleResolution: "Bundler",
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        types: [],
        strict: true,
        skipLibCheck: true,
        declaration: true,
        emitDeclarationOnly: true,
        rootDir: join(ROOT, "src"),
        outDir: PACKAGE_DIR,
      },
      files: ENTRYPOINTS.map((entry) => join(ROOT, entry)),
    }),
  );
  const tsc = Bun.spawn([process.execPath, join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", config], { stdout: "pipe", stderr: "pipe" });
  const [out, exit] = await Promise.all([new Response(tsc.stdout).text(), tsc.exited]);
  rmSync(config);
  if (exit !== 0) throw new Error(`tsc could not write the declarations:\n${out}`);

  for (const name of SCHEMA_MODULES) await declareSchemaModule(name);
  rmSync(join(PACKAGE_DIR, "mcp", "tool-specs.d.ts"));
  for (const file of listFiles(PACKAGE_DIR).filter((f) => f.endsWith(".d.ts"))) {
    const text = readFileSync(file, "utf8");
    writeFileSync(
      file,
      text.replace(/(from ["'])(\.{1,2}\/[^"']+?)(["'])/g, (_, open, path, close) => `${open}${path}.js${close}`),
    );
  }
}

/**
 * The plain declaration of every `export type X = Static<typeof X>` in a schema module, compiled
 * from the schema's JSON. Defaults stay required, as in Static: the client's own types relax them.
 */
async function declareSchemaModule(name: string): Promise<void> {
  const file = join(PACKAGE_DIR, "schema", `${name}.d.ts`);
  const emitted = readFileSync(file, "utf8");
  const types = [...emitted.matchAll(/^export type (\w+) = Static<typeof \1>;$/gm)].map((m) => m[1]!);
  const schemas = (await import(`../src/schema/${name}`)) as Record<string, TSchema>;
  const parts = [`// Generated from src/schema/${name}.ts by scripts/pack.ts: the wire types, as plain TypeScript.`];
  for (const type of types) {
    const schema = JSON.parse(JSON.stringify(schemas[type])) as Parameters<typeof compile>[0];
    parts.push(
      (
        await compile(schema, type, {
          bannerComment: "",
          additionalProperties: false,
          ignoreMinAndMaxItems: true,
          declareExternallyReferenced: true,
          strictIndexSignatures: true,
          format: true,
        })
      ).trim(),
    );
  }
  writeFileSync(file, `${parts.join("\n")}\n`);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

if (import.meta.main) await buildPackage();
