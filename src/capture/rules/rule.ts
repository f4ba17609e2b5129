/**
 * The shape every rule table shares. A rule's name is what an explanation reports, so a stored
 * analysis can always be traced back to the one line of the table that produced it.
 */
export interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

/**
 * Every match of a pattern in `text`, in order, as `matchAll` gives them. Rule tables hold
 * non-global regexes so `test` never carries `lastIndex` from one call to the next; iteration uses
 * a global copy, built once per pattern, run to the end here and reset, so it carries no state
 * either. Not `matchAll`: it clones its regex on every call (a new RegExp per fact and pattern).
 */
export function matchesOf(pattern: RegExp, text: string): RegExpExecArray[] {
  let global = globalCopies.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    globalCopies.set(pattern, global);
  }
  const fullUnicode = global.unicode || global.unicodeSets;
  const found: RegExpExecArray[] = [];
  global.lastIndex = 0;
  for (let match = global.exec(text); match !== null; match = global.exec(text)) {
    found.push(match);
    // An empty match moves on by one character, as matchAll does (a code point in Unicode mode).
    if (match[0] === "") global.lastIndex = nextIndex(text, global.lastIndex, fullUnicode);
  }
  global.lastIndex = 0;
  return found;
}

function nextIndex(text: string, index: number, fullUnicode: boolean): number {
  if (!fullUnicode || index + 1 >= text.length) return index + 1;
  const code = text.charCodeAt(index);
  const next = text.charCodeAt(index + 1);
  return code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? index + 2 : index + 1;
}

/** Global copies of rule patterns, built once each. */
const globalCopies = new WeakMap<RegExp, RegExp>();

/** A literal word inside a pattern. */
export const escapeRegex = (word: string): string => word.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** A non-capturing group of alternatives, so a long alternation can be listed one alternative a line. */
export const anyOf = (alternatives: readonly string[]): string => `(?:${alternatives.join("|")})`;
