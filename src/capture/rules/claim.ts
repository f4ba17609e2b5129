import type { Rule } from "./rule";

/**
 * Claim patterns for supersession. A claim must be the whole statement, so every pattern is
 * anchored at the start of the (speaker- and filler-stripped) first sentence: "I think Priya's
 * manager is Tom" and "If Priya's manager is Tom, ..." make no claim. A wrong claim hides a true
 * fact, a missed claim only keeps an extra one, so the patterns are deliberately narrow.
 *
 * Groups: `subject` (who the claim is about; absent when the rule fixes it), `attr` (absent when
 * the rule fixes `attribute`). The value is the rest of the sentence after the match.
 */
export interface ClaimRule extends Rule {
  /** The attribute when the pattern has no `attr` group ("lives in", "manager"). */
  readonly attribute?: string;
  /** Who the claim is about when the pattern has no `subject` group. */
  readonly fixedSubject?: "first_person" | "team";
  /**
   * Splits a scope off the value into the key: "prefers email for status updates" is the claim
   * "prefers for status updates" = "email", so it does not replace "prefers tea". Groups: value, scope.
   */
  readonly scope?: RegExp;
}

/** One subject word: letters and digits, plus "&", "." and "-" for "AT&T", "Node.js", "on-call". */
const WORD = "[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}&.-]{0,39}";
/** One to four words, lazily, so "Priya now lives in" takes "Priya" and not "Priya now". */
const SUBJECT = `(?<subject>(?:[Tt]he |[Oo]ur |[Mm]y )?${WORD}(?: ${WORD}){0,3}?)`;
/** One to three attribute words, lazily, so "manager is Tom is" splits at the first "is". */
const ATTR = "(?<attr>\\p{L}[\\p{L}-]{0,29}(?: \\p{L}[\\p{L}-]{0,29}){0,2}?)";
/** "is", "are", "was", "were", "=", ":" between attribute and value. */
const COPULA = "(?: (?:is|are|was|were)| ?[:=]) ";
/** Contracted "be" after a subject: "I'm", "we're", "Priya's". */
const BE = "(?:'m|'re|'s)?";
/** Adverbs that leave the claim unchanged: "Priya now lives in Oslo". */
const NOW = "(?:now |currently |still |generally |usually |really |always )?";

export const CLAIM_RULES: readonly ClaimRule[] = [
  // "Priya's manager is Tom", "Acme's renewal date is May 1", "The team's on-call day is Monday".
  { name: "possessive_attribute", pattern: new RegExp(`^${SUBJECT}'s ${ATTR}${COPULA}`, "u") },
  // "My manager is Tom": first person, about the end user or the speaker.
  { name: "my_attribute", pattern: new RegExp(`^[Mm]y ${ATTR}${COPULA}`, "u"), fixedSubject: "first_person" },
  // "Our standup time is 9:30": the team's attribute.
  { name: "our_attribute", pattern: new RegExp(`^[Oo]ur ${ATTR}${COPULA}`, "u"), fixedSubject: "team" },
  // "The manager of Priya is Tom".
  { name: "attribute_of", pattern: new RegExp(`^[Tt]he ${ATTR} of ${SUBJECT}${COPULA}`, "u") },
  // "Priya lives in Lisbon", "I live in Paris", "I'm living in Oslo".
  {
    name: "lives_in",
    pattern: new RegExp(`^${SUBJECT}${BE} ${NOW}(?:lives?|resides?|is living|am living|are living|living) in `, "u"),
    attribute: "lives in",
  },
  // "Priya works at Acme", "I work for the BBC".
  {
    name: "works_at",
    pattern: new RegExp(`^${SUBJECT}${BE} ${NOW}(?:works?|is working|am working|are working|working) (?:at|for) `, "u"),
    attribute: "works at",
  },
  // "Priya reports to Tom" is the same claim as "Priya's manager is Tom".
  {
    name: "reports_to",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:reports?|is reporting|am reporting) (?:directly )?to `, "u"),
    attribute: "manager",
  },
  // "Priya prefers email", "We prefer squash merges".
  {
    name: "prefers",
    pattern: new RegExp(`^${SUBJECT} ${NOW}prefers? `, "u"),
    attribute: "prefers",
    scope: /^(?<value>.{1,80}?) for (?<scope>[\p{L}\p{N}-]{1,30}(?: [\p{L}\p{N}-]{1,30}){0,3})$/u,
  },
  // "Acme is based in Berlin", "I'm based in Paris", "We are based out of Leeds".
  {
    name: "based_in",
    pattern: new RegExp(`^${SUBJECT}${BE} (?:(?:is|am|are) )?${NOW}based (?:in|out of) `, "u"),
    attribute: "based in",
  },
];

/** A sentence with any of these makes no claim: it denies, asks or guesses rather than states. */
export const CLAIM_BLOCKERS: readonly Rule[] = [
  // "Priya's manager is not Tom", "is no longer Tom", "isn't Tom".
  { name: "negation", pattern: /\b(?:not|never|no|no longer|nobody|no one|neither|nor|none)\b|n't\b/i },
  // "Priya's manager is Tom?", "Is Priya's manager Tom".
  { name: "question", pattern: /\?|^(?:who|what|where|when|why|how|is|are|was|were|do|does|did|can|could|should|would|will)\b/i },
  // "Priya's manager is probably Tom": a guess must not replace a stated fact.
  {
    name: "hedge",
    pattern: /\b(?:maybe|probably|perhaps|possibly|might|may be|unsure|unclear|allegedly|rumou?red|supposedly|apparently|i think|i guess|i believe|if|unless)\b/i,
  },
];

/** Where a value stops: a relative or subordinate clause, a parenthesis or a dash. */
export const VALUE_END: RegExp =
  /,? (?:who|which|whom|where|because|since|although|though|but|until|starting|effective|as of)\b|, (?:and|so)\b| \(| - | – | — /iu;

/** Attribute words that show the "attribute" is really a verb phrase ("Priya's been ..."). */
export const NOT_ATTRIBUTES: ReadonlySet<string> = new Set(
  "been going gonna got done not also always never just really still now very a an the".split(" "),
);

/** Synonyms folded to one attribute so "boss" and "manager" claims supersede each other. */
export interface AttributeAlias extends Rule {
  /** Replacement for the matched part of the attribute. */
  readonly canonical: string;
}

export const ATTRIBUTE_ALIASES: readonly AttributeAlias[] = [
  // "boss", "line manager", "supervisor" name the same relationship as "manager" and "reports to".
  { name: "manager_synonym", pattern: /^(?:boss|line manager|direct manager|reporting manager|supervisor)$/u, canonical: "manager" },
  // "e-mail", "email address".
  { name: "email_synonym", pattern: /^(?:e-mail|email address|e-mail address)$/u, canonical: "email" },
  // "phone number", "mobile", "cell".
  { name: "phone_synonym", pattern: /^(?:phone number|mobile|mobile number|cell|cell number|telephone|telephone number)$/u, canonical: "phone" },
  // "home town".
  { name: "hometown_synonym", pattern: /^home town$/u, canonical: "hometown" },
  // British and American spellings of "favourite".
  { name: "favorite_spelling", pattern: /^favourite(?![\p{L}])/u, canonical: "favorite" },
];

/** The longest value a claim may have: longer "values" are prose, not one attribute's value. */
export const MAX_CLAIM_VALUE = 120;
