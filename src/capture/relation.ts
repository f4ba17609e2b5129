/**
 * What a newer claim does to a live older claim with the same key: the last step of capture,
 * after tokens and claims. Pure, so the pipeline, `facts reclaim` and the labelled pairs all
 * decide the same way.
 */
import { PERSON_ATTRIBUTES } from "./attributes";
import { NUMBER_WORDS } from "./attributes/values";
import { claimKey, manyValued, oneValued } from "./claim-key";
import { FUNCTION_WORDS, NEUTRAL_MODIFIERS, VALUE_ALIASES } from "./rules/lexicon";
import type { Cardinality, Claim } from "./types";

/** What a newer claim does to a live older one with the same key. */
export type ClaimRelation = "supersede" | "duplicate" | "coexist";

/** The part of a claim stored beside its key. */
export type ClaimValue = Pick<Claim, "value" | "negated">;

/**
 * One-valued attributes: a different value replaces, the same value is a duplicate, a negation
 * replaces only the value it denies. Many-valued relations (the object is in the key): only the
 * opposite polarity replaces.
 */
export function relateClaims(cardinality: Cardinality, newer: ClaimValue, older: ClaimValue): ClaimRelation {
  // An end with no value ("Acme churned", "Ana broke up") ends whatever value is live.
  if (newer.negated && !older.negated && newer.value === "") return "supersede";
  if (cardinality === "many") return newer.negated === older.negated ? "coexist" : "supersede";
  if (newer.negated === older.negated) {
    if (newer.value === older.value || valueForm(newer.value) === valueForm(older.value)) return "duplicate";
    // "lives in Boston's South End" refines "lives in Boston": both are true.
    if (newer.negated || refines(newer.value, older.value) || refines(older.value, newer.value)) return "coexist";
    return "supersede";
  }
  // A denial or an end names the value it ends: "sold the Honda" ends "drives a 2015 Honda Civic".
  return newer.value === older.value || (newer.negated && namesValue(older.value, newer.value)) ? "supersede" : "coexist";
}

/**
 * What a newer claim does to an older live one of the same workspace: the same key (or the same
 * one-valued attribute named more or less fully, see `sameAttribute`) relates by value and
 * polarity; a claim that names the value it replaces supersedes the subject's claim that holds
 * that value, whatever its attribute; anything else coexists.
 */
export function relateFacts(newer: Claim, older: Claim): ClaimRelation {
  return relatePrepared(prepareClaim(newer), prepareClaim(older));
}

/**
 * A claim with what relating it needs worked out once: capture relates each new claim of a call
 * to every live claim of its subject, hundreds for a busy subject, and building their keys again
 * for each pair cost more than the rest of the storage step.
 */
export interface PreparedClaim {
  claim: Claim;
  key: string;
  /** A one-valued attribute's core words (`attributeCore`), joined; null for a relation or an empty core. */
  core: string | null;
}

export function prepareClaim(claim: Claim): PreparedClaim {
  const core = claim.cardinality === "one" ? attributeCore(claim.attribute) : [];
  return { claim, key: claimKey(claim), core: core.length > 0 ? core.join(" ") : null };
}

/** `relateFacts` over prepared claims. */
export function relatePrepared(newer: PreparedClaim, older: PreparedClaim): ClaimRelation {
  const a = newer.claim;
  const b = older.claim;
  if (newer.key === older.key || sameAttribute(newer, older) || samePersonClaim(a, b)) return relateClaims(a.cardinality, a, b);
  if (
    a.replaces !== undefined &&
    (a.subject === b.subject || samePersonClaim({ ...a, attribute: b.attribute, object: b.object }, b)) &&
    !b.negated &&
    namesValue(b.value, a.replaces)
  )
    return "supersede";
  return "coexist";
}

/**
 * Whether two claims are one claim of one subject: the same key, or the same one-valued attribute
 * named more or less fully. Not a first name for a full one, not a value named under another
 * attribute: those may make an *updates* link (capture/links.ts), never hide a fact.
 */
export function sameClaimOf(newer: PreparedClaim, older: PreparedClaim): boolean {
  return newer.key === older.key || sameAttribute(newer, older);
}

/**
 * One claim about one person, named in full on one side and by first name on the other
 * ("Tomasz Wierzbicki lives in Kraków", "Tomasz moved to Gdańsk"). Only a person's own attributes
 * (the lexicon's personal and ownership records) are read so: "Acme" and "Acme Labs" are two companies.
 */
function samePersonClaim(a: Claim, b: Claim): boolean {
  if (a.subject === b.subject || a.cardinality !== b.cardinality || a.attribute !== b.attribute || a.object !== b.object) return false;
  if (!PERSON_ATTRIBUTES.has(a.attribute)) return false;
  const [short, long] = a.subject.length <= b.subject.length ? [a.subject, b.subject] : [b.subject, a.subject];
  const parts = long.split(" ");
  return !short.includes(" ") && !short.includes(":") && parts.length === 2 && parts[0] === short;
}

/**
 * One-valued attributes of one subject that are one attribute named more or less fully: "renewal
 * date" and "contract renewal date", "price", "list price" and "per-seat price", "fiscal year end"
 * and "fiscal year-end date": equal once neutral modifiers and a closing "date" are dropped.
 */
function sameAttribute(a: PreparedClaim, b: PreparedClaim): boolean {
  return a.core !== null && a.core === b.core && a.claim.subject === b.claim.subject;
}

/** An attribute's words without neutral modifiers or a closing "date": "contract renewal date" -> "renewal". */
function attributeCore(attribute: string): string[] {
  const words = attribute
    .replace(/-/gu, " ")
    .split(" ")
    .filter((w) => w !== "");
  if (words.length > 1 && words.at(-1) === "date") words.pop();
  return words.filter((w, i) => i === words.length - 1 || !NEUTRAL_MODIFIERS.has(w));
}

/**
 * The claim a replacing fact stores: "Orion switched from Postgres to CockroachDB" continues the
 * claim it replaced (Orion's primary database), and "the renewal date got pushed to March 15" the
 * "contract renewal date" it replaced, so the next change of that attribute finds it.
 */
export function continuedClaim(newer: Claim, replaced: readonly Claim[]): Claim {
  const older = replaced.find((old) => claimKey(old) !== claimKey(newer));
  if (older === undefined) return newer;
  return older.cardinality === "one"
    ? oneValued(older.subject, older.attribute, newer.value, newer.negated)
    : manyValued(older.subject, older.attribute, newer.value, newer.negated);
}

/** A value in one form for comparison: "3 years" and "three year", "$1,200" and "$1200" are one value. */
function valueForm(value: string): string {
  return value
    .toLowerCase()
    .replace(/(?<=\d),(?=\d)/gu, "")
    .split(/\s+/u)
    .map((w) => NUMBER_WORDS[w] ?? (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w))
    .join(" ");
}

/**
 * Whether `value` is `general` said more precisely: it begins with it on a word boundary ("9:30
 * on zoom" after "9:30") or ends with it after a comma or "in" ("hackney, in east london").
 */
function refines(value: string, general: string): boolean {
  if (value.length <= general.length) return false;
  if (value.startsWith(general) && /^(?:\s|'s\s|,)/u.test(value.slice(general.length))) return true;
  // Ending with it, the more precise part must be set off ("hackney, in east london"): "senior
  // product manager" is a new title, not a precise "product manager".
  const before = value.slice(0, -general.length);
  return value.endsWith(general) && /(?:\s|,)$/u.test(before) && /,| in /u.test(before);
}
/**
 * Whether a fact with the same claim and value as a live one says nothing more, so capture skips
 * it: each of its content words is already in the live fact. "Jonas is Greta's manager" beside
 * "Greta reports to Jonas" is kept (it is said differently); "Greta reports to Jonas now" is not.
 */
export function restates(newer: string, older: string): boolean {
  const known = new Set(contentWords(older));
  return contentWords(newer).every((w) => known.has(w));
}

const contentWords = (normalized: string): string[] =>
  normalized
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !FUNCTION_WORDS.has(w));

const valueWords = (value: string): string[] =>
  value
    .split(/[\s/,]+/u)
    .filter((w) => w !== "" && !REPLACED_NOISE.has(w))
    .map((w) => VALUE_ALIASES[w] ?? w);
const REPLACED_NOISE: ReadonlySet<string> = new Set(["the", "a", "an", "his", "her", "their", "its", "our", "my", "through", "via", "from", "old", "current"]);

/**
 * Whether a stored value is the one a fact says it replaces: every word of the shorter is a word
 * of the longer ("MacBook" names "macbook pro", "the Mazda" names "mazda 3").
 */
export function namesValue(stored: string, replaced: string): boolean {
  const a = valueWords(stored);
  const b = valueWords(replaced);
  const [shorter, longer] = a.length <= b.length ? [a, new Set(b)] : [b, new Set(a)];
  // A bare number ("2") names too much: "Plan 2" is not the office count of 2.
  if (!shorter.some((w) => /\p{L}/u.test(w))) return false;
  return shorter.every((w) => longer.has(w));
}
