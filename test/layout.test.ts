/** The source reads on a screen: no line in src/ longer than 160 characters (a long regex is built from named parts). */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

const MAX_LINE = 160;

test(`no line in src/ over ${MAX_LINE} characters`, () => {
  const root = join(import.meta.dir, "..", "src");
  const long: string[] = [];
  for (const file of new Glob("**/*.{ts,js}").scanSync(root)) {
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.length > MAX_LINE) long.push(`src/${file}:${i + 1} (${line.length})`);
      });
  }
  expect(long).toEqual([]);
});
