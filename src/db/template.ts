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
