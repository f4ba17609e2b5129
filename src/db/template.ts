import { PGlite } from "@electric-sql/pglite";
import { loadEmbeddedAssets } from "./embedded-assets";

/** Name of the pre-initialised data-dir tarball the build embeds in the binary. */
export const TEMPLATE_FILE_NAME = "pgdata-template.tar.gz";

/**
 * The tarball embedded by `bun run build`, if this process is the compiled binary; a source run
 * has none and pays for initdb on first boot instead.
 */
export function embeddedTemplate(): Blob | undefined {
  const files = (Bun.embeddedFiles ?? []) as Blob[];
  return files.find((file) => (file as Blob & { name?: string }).name?.startsWith(TEMPLATE_FILE_NAME.replace(".tar.gz", "")));
}

/** A freshly initialised, empty PGlite data directory as a tarball (what the build embeds). */
export async function createDataDirTemplate(compression: "gzip" | "none"): Promise<Blob> {
  const pg = await PGlite.create({ ...(await loadEmbeddedAssets()) });
  try {
    return await pg.dumpDataDir(compression);
  } finally {
    await pg.close();
  }
}
