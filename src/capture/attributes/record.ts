/**
 * The attribute lexicon's record: one canonical attribute, the words that say, set or end it, its
 * value type and cardinality, and examples that a test runs. Phrases are written in lemma form,
 * lower case ("live in", not "lives in"): the matcher compares them with each token's lemma and
 * its lower-cased text, and lets fillers ("now", "just", "recently", "currently") and articles
 * stand between their words.
 *
 * Templates: a phrase may place the slots itself: `{s}` the subject (who or what the claim is
 * about), `{v}` the value, `{x}` a noun phrase that is read past (the replaced holder in
 * "{v} replace {x} as {s}"). A phrase without slots is read as "{s} <phrase> {v}" (`says`, `sets`,
 * `ends`, where an `ends` value may be missing) or "{s} <phrase>" (`states`).
 */

/** What a value is, so it can be read and compared: "+1 415 555 0100" and "415-555-0100" are one phone. */
export type ValueType =
  | "person"
  | "place"
  | "organization"
  | "thing"
  | "phone"
  | "email"
  | "url"
  | "host"
  | "date"
  | "time"
  | "duration"
  | "frequency"
  | "money"
  | "count"
  | "version"
  | "status"
  /** A job or role: a title naming one ("product designer", "Head of Product", "CTO"). */
  | "role";

export type Example = readonly [older: string, newer: string, expect: "replace" | "keep"];

export interface AttributeRecord {
  /** Canonical name, lower case, words separated by spaces: "residence", "on-call lead", "backup schedule". */
  readonly attribute: string;
  /** "one": a new value replaces the old. "many": values add up; only an end or a denial of the same value replaces. */
  readonly cardinality: "one" | "many";
  readonly value: ValueType;
  /**
   * Nouns that name the attribute, read in the built-in noun frames: "{s}'s <noun> is {v}",
   * "the <noun> of {s} is {v}", "{s} <noun> is {v}", "my <noun> is {v}", "{v} is {s}'s <noun>",
   * "{s}'s <noun> changed to {v}", "{s}'s <noun> moved to {v}".
   */
  readonly nouns?: readonly string[];
  /** Verb phrases that state the value. */
  readonly says?: readonly string[];
  /** Verb phrases that set a new value (a change: the new value replaces the live one). */
  readonly sets?: readonly string[];
  /** Verb phrases that end the live value (sold, left, moved out of); the value, when given, must be the live one. */
  readonly ends?: readonly string[];
  /** A closed set of values (relationship status, diet): canonical value -> phrases that say the subject holds it. */
  readonly states?: Readonly<Record<string, readonly string[]>>;
  /** [older, newer, "replace" | "keep"]: what capture must do with the newer fact while the older is live. */
  readonly examples: readonly Example[];
}
