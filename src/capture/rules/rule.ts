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
 * next (a shared /g regex makes results depend on the previous input). Iteration builds a global
 * copy per call instead.
 */
export function matchesOf(pattern: RegExp, text: string): IterableIterator<RegExpMatchArray> {
  const flags = pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`;
  return text.matchAll(new RegExp(pattern.source, flags));
}

/** The first rule whose pattern matches, in table order: the order is the precedence. */
export function firstMatch<R extends Rule>(rules: readonly R[], text: string): R | undefined {
  return rules.find((rule) => rule.pattern.test(text));
}
