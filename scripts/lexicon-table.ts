/**
 * Renders the attribute lexicon (src/capture/attributes/) as the table in docs/memory.md, between
 * its two markers, so the page always says what capture reads. `--check` exits 1 when the page
 * is out of date instead of writing it.
 *
 *   bun scripts/lexicon-table.ts [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ATTRIBUTE_LEXICON } from "../src/capture/attributes";

export const DOC_PATH = join(import.meta.dir, "..", "docs", "memory.md");
const START = "<!-- attribute-lexicon:start -->";
const END = "<!-- attribute-lexicon:end -->";

const cell = (words: readonly string[], most = 6): string =>
  words.length === 0 ? "" : words.slice(0, most).join(", ").replace(/\|/gu, "\\|") + (words.length > most ? ", …" : "");

function renderLexiconTable(): string {
  const rows = ATTRIBUTE_LEXICON.map((r) => {
    const states = Object.keys(r.states ?? {});
    const says = [...(r.nouns ?? []), ...(r.says ?? []), ...states];
    return `| ${r.attribute} | ${r.cardinality} | ${r.value} | ${cell(says)} | ${cell(r.sets ?? [], 4)} | ${cell(r.ends ?? [], 4)} |`;
  });
  return [START, "", "| attribute | values | value type | said by | set by | ended by |", "|---|---|---|---|---|---|", ...rows, "", END].join("\n");
}

/** The page with its table replaced by the current one. */
export function renderedPage(page: string): string {
  const from = page.indexOf(START);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/memory.md has no ${START} ... ${END} markers`);
  return page.slice(0, from) + renderLexiconTable() + page.slice(to + END.length);
}

if (import.meta.main) {
  const page = readFileSync(DOC_PATH, "utf8");
  const next = renderedPage(page);
  if (process.argv.includes("--check")) {
    if (next !== page) {
      console.error("docs/memory.md: the attribute table is out of date; run bun scripts/lexicon-table.ts");
      process.exit(1);
    }
  } else writeFileSync(DOC_PATH, next);
}
