import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Extension, PGliteOptions } from "@electric-sql/pglite";
// Relative paths (not package subpaths) so `bun build --compile` embeds the files themselves.
import pgliteWasmPath from "../../node_modules/@electric-sql/pglite/dist/pglite.wasm" with { type: "file" };
import initdbWasmPath from "../../node_modules/@electric-sql/pglite/dist/initdb.wasm" with { type: "file" };
import fsBundlePath from "../../node_modules/@electric-sql/pglite/dist/pglite.data" with { type: "file" };
import pgTrgmPath from "../../node_modules/@electric-sql/pglite/dist/pg_trgm.tar.gz" with { type: "file" };

type EmbeddedAssets = Pick<PGliteOptions, "pgliteWasmModule" | "initdbWasmModule" | "fsBundle"> & {
  extensions: Record<string, Extension>;
};

let compiled: Promise<EmbeddedAssets> | undefined;

/**
 * PGlite's wasm, file-system bundle and the extensions we use, read from wherever the build put
 * them. Extension tarballs are copied to a temp file first: PGlite streams them from a file URL,
 * and bunfs paths inside a compiled binary cannot be streamed.
 */
export function loadEmbeddedAssets(): Promise<EmbeddedAssets> {
  compiled ??= (async () => {
    const [pgliteWasmModule, initdbWasmModule, fsBundleBytes, trgmBytes] = await Promise.all([
      WebAssembly.compile(await Bun.file(pgliteWasmPath).arrayBuffer()),
      WebAssembly.compile(await Bun.file(initdbWasmPath).arrayBuffer()),
      Bun.file(fsBundlePath).arrayBuffer(),
      Bun.file(pgTrgmPath).arrayBuffer(),
    ]);
    // Named by content so every run reuses one copy instead of leaving a new one behind.
    const digest = createHash("sha256").update(new Uint8Array(trgmBytes)).digest("hex").slice(0, 16);
    const extensionDir = join(tmpdir(), `memoryd-ext-${digest}`);
    const trgmFile = join(extensionDir, "pg_trgm.tar.gz");
    if (!existsSync(trgmFile)) {
      mkdirSync(extensionDir, { recursive: true });
      const partial = `${trgmFile}.${process.pid}`;
      writeFileSync(partial, new Uint8Array(trgmBytes));
      renameSync(partial, trgmFile);
    }
    const pgTrgm: Extension = {
      name: "pg_trgm",
      setup: async () => ({ bundlePath: pathToFileURL(trgmFile) }),
    };
    return {
      pgliteWasmModule,
      initdbWasmModule,
      fsBundle: new Blob([fsBundleBytes]),
      extensions: { pg_trgm: pgTrgm },
    };
  })();
  return compiled;
}
