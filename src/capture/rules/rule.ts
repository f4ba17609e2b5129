import { execSplit, nextIndex, splitLookbehind } from "./lookbehind";

/**
 * The shape every rule table shares. A rule's name is what an explanation reports, so a stored
 * analysis can always be traced back to the one line of the table that produced it.
 */
export interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

/**
 * Every match of a pattern in `text`, in order, as `matchAll` gives them, read as they are asked
 * for: a caller that stops at the first it accepts does not scan the rest of a long text. Rule
 * tables hold non-global regexes so `test` never carries `lastIndex` from one call to the next;
 * iteration uses a global copy, built once per pattern (or the pattern's two parts when it opens
 * with a lookbehind, see lookbehind.ts), its `lastIndex` set before each search and reset after,
 * so it carries no state either. Not `matchAll`: it clones its regex on every call.
 */
export function* matchesOf(pattern: RegExp, text: string): Generator<RegExpExecArray, void, undefined> {
  const split = splitLookbehind(pattern);
  const fullUnicode = pattern.unicode || pattern.unicodeSets;
  let from = 0;
  for (;;) {
    const match = split === null ? execGlobal(pattern, text, from) : execSplit(split, text, from);
    if (match === null) return;
    from = match.index + match[0].length;
    // An empty match moves on by one character, as matchAll does (a code point in Unicode mode).
    if (match[0] === "") from = nextIndex(text, from, fullUnicode);
    yield match;
  }
}

/** `pattern.exec(text)`, with a pattern that opens with a lookbehind run in two parts (lookbehind.ts). */
export function firstMatch(pattern: RegExp, text: string): RegExpExecArray | null {
  const split = splitLookbehind(pattern);
  return split === null ? pattern.exec(text) : execSplit(split, text, 0);
}

/** `pattern.test(text)`, with a pattern that opens with a lookbehind run in two parts (lookbehind.ts). */
export function matches(pattern: RegExp, text: string): boolean {
  const split = splitLookbehind(pattern);
  return split === null ? pattern.test(text) : execSplit(split, text, 0) !== null;
}

function execGlobal(pattern: RegExp, text: string, from: number): RegExpExecArray | null {
  let global = globalCopies.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    globalCopies.set(pattern, global);
  }
  global.lastIndex = from;
  const match = global.exec(text);
  global.lastIndex = 0;
  return match;
}

/** Global copies of rule patterns, built once each. */
const globalCopies = new WeakMap<RegExp, RegExp>();

/** A non-capturing group of alternatives, so a long alternation can be listed one alternative a line. */
export const anyOf = (alternatives: readonly string[]): string => `(?:${alternatives.join("|")})`;
