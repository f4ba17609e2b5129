/**
 * The shape every rule table shares. A rule's name is what an explanation reports, so a stored
 * analysis can always be traced back to the one line of the table that produced it.
 */
export interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

/**
 * Rule tables hold non-global regexes so `test` never carries `lastIndex` from one call to the
 * next (a shared /g regex makes results depend on the previous input). Iteration uses a global
 * copy, built once per pattern; `matchAll` iterates a clone of it, so the copy carries no state.
 */
export function matchesOf(pattern: RegExp, text: string): IterableIterator<RegExpMatchArray> {
  let global = globalCopies.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    globalCopies.set(pattern, global);
  }
  // matchAll clones the pattern it is given, so the shared copy's lastIndex is never advanced.
  return text.matchAll(global);
}

/** Global copies of rule patterns, built once each. */
const globalCopies = new WeakMap<RegExp, RegExp>();

/** The first rule whose pattern matches, in table order: the order is the precedence. */
export function firstMatch<R extends Rule>(rules: readonly R[], text: string): R | undefined {
  return rules.find((rule) => rule.pattern.test(text));
}

/** A literal word inside a pattern. */
export const escapeRegex = (word: string): string => word.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
