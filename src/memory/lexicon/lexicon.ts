import { readFileSync } from "node:fs";
import lexiconPath from "./lexicon.bin" with { type: "file" };
import lexiconDigest from "./lexicon.sha256" with { type: "text" };
import { Lexicon } from "./format";

/**
 * The sha256 of the shipped lexicon, as scripts/build-lexicon.ts recorded it: index snapshots
 * carry it, since the category terms an index holds come from this file.
 */
export const LEXICON_SHA256: string = lexiconDigest.split(/\s/)[0]!;

let loaded: Lexicon | null = null;

/**
 * The lexicon of word neighbours and categories (docs/memory.md, "Search by meaning"), read from
 * the file embedded in the binary on first use rather than at start, so a process that never
 * searches or teaches never pays for it (13.6 MB read, 30-55 ms).
 */
export function lexicon(): Lexicon {
  loaded ??= new Lexicon(new Uint8Array(readFileSync(lexiconPath)));
  return loaded;
}

/** Terms in the index that stand for "a fact word belongs to this category": no word starts with it. */
export const CATEGORY_PREFIX = "~";

/**
 * Facts longer than this many terms get nothing by meaning (a pasted note or long chat turn holds
 * some neighbour of almost any word): the ranking's `meaningMaxLength`, and the index keeps no
 * categories for them.
 */
export const MEANING_MAX_TERMS = 80;

/** Index terms of each term's categories, made once per term: index builds ask for every fact's words. */
const categoryTermCache = new Map<string, readonly string[]>();

/** The category terms of a fact's terms, each once ("tennis" -> "~sport", "~athlet", ...). */
export function categoryTermsOf(terms: readonly string[]): string[] {
  if (terms.length > MEANING_MAX_TERMS) return [];
  const found = new Set<string>();
  for (const term of terms) {
    // Only the lexicon's own words are kept: the cache stays bounded by the lexicon, whatever
    // words (ids, hashes, names) facts hold.
    if (!lexicon().has(term)) continue;
    let categories = categoryTermCache.get(term);
    if (categories === undefined) {
      categories = lexicon()
        .categoriesOf(term)
        .map((c) => CATEGORY_PREFIX + c);
      categoryTermCache.set(term, categories);
    }
    for (const category of categories) found.add(category);
  }
  return [...found];
}
