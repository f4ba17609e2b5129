/**
 * Builds dist/memoryd: first a pre-initialised PGlite data directory (so an embedded first boot
 * skips initdb), then the single executable with that tarball embedded beside the code.
 */
import { mkdirSync } from "node:fs";
import { createDataDirTemplate, TEMPLATE_FILE_NAME } from "../src/db/template";

mkdirSync("dist", { recursive: true });
const tarball = await createDataDirTemplate("gzip");
const templatePath = `dist/${TEMPLATE_FILE_NAME}`;
await Bun.write(templatePath, tarball);

const proc = Bun.spawn(
  [
    process.execPath,
    "build",
    "src/main.ts",
    templatePath,
    "--compile",
    // precompiled bytecode: the binary skips parsing its bundle at every start
    "--bytecode",
    "--format=esm",
    "--minify-whitespace",
    "--minify-syntax",
    "--target",
    "bun",
    "--outfile",
    "dist/memoryd",
  ],
  { stdout: "inherit", stderr: "inherit" },
);
process.exit(await proc.exited);
