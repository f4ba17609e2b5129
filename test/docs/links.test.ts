/**
 * The docs cannot point nowhere: every relative link in README.md and docs/ names a file of the
 * repository, and every #anchor a heading of its target (GitHub's heading slugs).
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Markdown outside fenced code blocks (a link in a code sample is text). */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split("\n")
    .filter((line) => {
      if (line.startsWith("```")) fenced = !fenced;
      return !fenced && !line.startsWith("```");
    })
    .join("\n");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of prose(markdown).split("\n")) {
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (heading)
      anchors.add(
        heading[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N} -]/gu, "")
          .replace(/ /g, "-"),
      );
  }
  return anchors;
}

test("every relative link in README.md and docs/ resolves, anchors included", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), "utf8");
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      checked += 1;
      const [file, anchor] = target!.split("#") as [string, string | undefined];
      const path = file === "" ? join(ROOT, page) : normalize(join(ROOT, dirname(page), file));
      if (!path.startsWith(ROOT) || !existsSync(path)) {
        broken.push(`${page}: ${target} (no file ${relative(ROOT, path)})`);
        continue;
      }
      if (anchor !== undefined && path.endsWith(".md") && !anchorsOf(readFileSync(path, "utf8")).has(anchor)) broken.push(`${page}: ${target} (no heading)`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(10);
});

test("the README is a front door: at most 250 lines", () => {
  expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
});
