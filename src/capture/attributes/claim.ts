/**
 * The claim a fact makes, read with the attribute lexicon: subject + attribute + value, with the
 * polarity the sentence gives it. An `ends` phrase ("sold", "left", "broke up") ends the live
 * value: the claim is the value denied, and it names the value it replaces.
 */
import { manyValued, oneValued } from "../claim-key";
import { resolverFor } from "../claim-subject";
import { DATE_HEADS, DATED_EVENTS, OWNED_BY, TIME_QUANTIFIERS } from "../rules/lexicon";
import type { FactParse } from "../parse";
import type { Token } from "../tokens";
import type { Claim } from "../types";
import { saysAttribute } from "./compile";
import { matchLexicon, misreadVerb, type LexiconMatch } from "./match";
import type { AttributeRecord } from "./record";
import { isRoleWord, readValue, valueEnd } from "./values";

export interface LexiconClaim {
  claim: Claim;
  /** "<attribute>:<role>", for explanations. */
  rule: string;
}

const FIRST_PERSON: ReadonlySet<string> = new Set(["i", "me", "my", "mine", "myself"]);
const TEAM: ReadonlySet<string> = new Set(["we", "us", "our", "ours"]);
const SUBJECT_POS: ReadonlySet<string> = new Set(["PROPN", "NOUN", "PRON", "DET", "ADJ", "NUM", "PART", "X", "SYM"]);
/** Pronouns with no antecedent in the fact: such a claim has no subject it can be keyed by. */
const UNRESOLVED: ReadonlySet<string> = new Set(["he", "she", "they", "it", "his", "her", "their", "its", "him", "them", "this", "that", "you", "your"]);
/** Words before a subject that say nothing about it: "Oh, and my number ...", "Update: Acme ...". */
const OPENERS: ReadonlySet<string> = new Set([
  "oh",
  "so",
  "well",
  "btw",
  "update",
  "fyi",
  "ok",
  "okay",
  "also",
  "and",
  "but",
  "anyway",
  "hey",
  "note",
  "honestly",
  "frankly",
  "actually",
  "basically",
  "these",
  "days",
  "nowadays",
  "now",
  ":",
  ",",
  "-",
]);

/**
 * The claims of the best two matches of different attributes that share the fact's verb: "Aisha
 * married Omar" names her partner and her relationship status. Best first.
 */
export function lexiconClaims(parse: FactParse): LexiconClaim[] {
  const claims: { claim: LexiconClaim; match: LexiconMatch }[] = [];
  for (const match of matchesOf(parse.tokens)) {
    const first = claims[0];
    // A second reading must be another attribute, read from the same words, with a word of its own ("{v} is now {s}" has none).
    if (first !== undefined && (first.match.template.record === match.template.record || !overlaps(first.match, match) || !saysAttribute(match.template)))
      continue;
    const claim = claimOfMatch(parse, match);
    if (claim === null) continue;
    claims.push({ claim, match });
    if (claims.length === 2) break;
  }
  // The next sentence's claim comes before the first's second reading.
  const next = parse.next === null ? null : firstClaim(parse, parse.next);
  if (next !== null) return [...claims.slice(0, 1).map((c) => c.claim), next];
  return claims.map((c) => c.claim);
}

function firstClaim(parse: FactParse, tokens: readonly Token[]): LexiconClaim | null {
  for (const match of matchesOf(tokens)) {
    const claim = claimOfMatch({ ...parse, tokens }, match);
    if (claim !== null) return claim;
  }
  return null;
}

/** A parse's lexicon matches, read once however many stages ask. */
const matched = new WeakMap<readonly Token[], readonly LexiconMatch[]>();

function matchesOf(tokens: readonly Token[]): readonly LexiconMatch[] {
  let matches = matched.get(tokens);
  if (matches === undefined) {
    matches = matchLexicon(tokens);
    matched.set(tokens, matches);
  }
  return matches;
}

/** Whether two matches read some of the same words. */
const overlaps = (a: LexiconMatch, b: LexiconMatch): boolean => a.start < b.end && b.start < a.end;

/**
 * Whether the fact's best lexicon reading is about someone or something of its subject's rather
 * than the subject ("Clement's sister moved to Marseille", "my neighbours' boat"): such a fact
 * replaces nothing of the subject's, by claim or as a change statement.
 */
export function aboutAnother(parse: FactParse): boolean {
  // The sentence's subject: what stands before its first verb.
  const verb = parse.tokens.findIndex((t) => t.pos === "VERB" || t.pos === "AUX");
  const span = parse.tokens.slice(0, verb < 0 ? parse.tokens.length : verb);
  const owner = span.findIndex((t) => t.lower === "'s" || t.lower === "'" || POSSESSIVE_WORDS.has(t.lower));
  if (owner < 0) return false;
  const named = owner > 0 && (span[owner]!.lower === "'s" || span[owner]!.lower === "'");
  return span.slice(owner + 1).some((t) => isPerson(t) || (named && GROUPS.has(t.lemma)));
}

const isPerson = (t: Token): boolean => PEOPLE.has(t.lower) || PEOPLE.has(t.lemma) || isRoleWord(t.lower);
/** Groups of a named subject's people: "Fairhaven's mobile banking team moved ..." is not Fairhaven moving. */
const GROUPS: ReadonlySet<string> = new Set(["team", "department", "staff", "group", "division", "unit", "squad", "crew", "board"]);

const POSSESSIVE_WORDS: ReadonlySet<string> = new Set(["my", "our", "his", "her", "their"]);
/** People a subject has: their facts are their own. */
const PEOPLE: ReadonlySet<string> = new Set(
  (
    "sister brother sibling mother father mom mum dad parent wife husband spouse partner son daughter kid child baby friend " +
    "boss colleague coworker co-worker neighbour neighbor cousin aunt uncle niece nephew grandmother grandfather grandma grandpa " +
    "grandparent roommate flatmate fiancé fiance fiancée fiancee girlfriend boyfriend in-law stepmother stepfather stepson stepdaughter"
  ).split(" "),
);

function claimOfMatch(parse: FactParse, match: LexiconMatch): LexiconClaim | null {
  const { template } = match;
  const record = template.record;
  const subject = subjectOf(parse, match);
  if (subject === null) return null;
  // "Graham and I divorced last year": what follows an ending may be only its time.
  const valueSpan = match.value !== null && startsWithTime(parse.tokens, match.value[0]) ? null : match.value;
  const read = template.state ?? (valueSpan === null ? null : readValue(parse.tokens, valueSpan[0], valueSpan[1], record.value));
  const value = read === null ? null : withoutAttributeWords(read, record);
  if (value === null && !(template.role === "ends" && valueSpan === null)) return null;
  // "Grace's son's ...": a second possessive names someone else.
  if (match.subject !== null && parse.tokens.slice(match.subject[0], match.subject[1]).filter((t) => t.lower === "'s").length > 1) return null;
  // "Hooli churned" ends a status; "Hooli cancelled their subscription" is about the subscription.
  if ((template.state !== undefined || match.value === null) && takesObject(parse.tokens, match.end)) return null;
  const rule = `${record.attribute}:${template.role}`;
  // "Launch got pushed back to 16 May": a date of an event is the event's date, whatever the record.
  const event = record.value === "date" && value !== null ? eventDate(subject) : null;
  if (event !== null && template.role !== "ends") {
    const which = START_DATES.has(record.attribute) ? "start date" : "date";
    return { claim: oneValued(event.subject, `${event.event} ${which}`, value!, match.negated), rule };
  }
  // "runs on Python 3.9": the version of Python, not of whatever else the subject runs.
  const versioned = record.value === "version" && value !== null ? splitVersion(value) : null;
  if (versioned !== null) {
    const attribute = `${versioned.product} ${record.attribute}`;
    const claim =
      match.negated || template.role === "ends" ? oneValued(subject, attribute, versioned.number, true) : oneValued(subject, attribute, versioned.number);
    return { claim, rule };
  }
  const ends = template.role === "ends" || (match.negated && /\b(?:longer|anymore)\b/u.test(spanText(parse.tokens, match.start, match.end + 2)));
  if (ends) {
    const ended = value ?? "";
    // A many-valued attribute's values are claims of their own: an ending must name which one.
    if (ended === "" && record.cardinality === "many") return null;
    const claim = record.cardinality === "one" ? oneValued(subject, record.attribute, ended, true) : manyValued(subject, record.attribute, ended, true);
    return { claim: ended === "" ? claim : { ...claim, replaces: ended }, rule };
  }
  // "I'll turn 35 in June": not yet true.
  if (match.future) return null;
  // "Ana lived in Oslo", "Ana's manager was Bo": what was true says nothing of what is.
  if (match.past && template.role === "says" && !nowSaid(parse.tokens)) return null;
  // "Ana also works at Bolt" adds an employer; it replaces nothing.
  if (match.adds && record.cardinality === "one") return null;
  const claim =
    record.cardinality === "one" ? oneValued(subject, record.attribute, value!, match.negated) : manyValued(subject, record.attribute, value!, match.negated);
  return { claim, rule };
}

/** Whether a noun phrase follows the matched words directly: the verb has an object the phrase did not name. */
function takesObject(tokens: readonly Token[], at: number): boolean {
  const next = tokens[at];
  if (next === undefined || next.pos === "PUNCT" || next.pos === "ADP" || next.pos === "ADV" || next.pos === "SCONJ" || next.pos === "CCONJ") return false;
  // "married Omar": a person named after a state's verb is who, not what ("is on Premium support" is not "on").
  if (next.pos === "PROPN" && (tokens[at - 1]?.pos === "VERB" || tokens[at - 1]?.pos === "AUX")) return false;
  return valueEnd(tokens, at, tokens.length, "thing") > at && !TIME_START.has(next.lower);
}

const TIME_START: ReadonlySet<string> = new Set(["last", "this", "next", "yesterday", "today", "tomorrow", "earlier", "recently", "in", "on", "at"]);

/** "the Starter plan" is the plan "starter": the attribute's own words at a value's end go. */
function withoutAttributeWords(value: string, record: AttributeRecord): string {
  const words = value.split(" ");
  const own = attributeWords(record);
  while (words.length > 1 && own.has(words.at(-1)!)) words.pop();
  return words.join(" ");
}

/** "the atlas launch" -> atlas, launch; "launch" -> the workspace's launch. */
/** Records that date when an event starts: "kicked off on March 3" is not when the migration is due. */
const START_DATES: ReadonlySet<string> = new Set(["kickoff date"]);

function eventDate(subject: string): { subject: string; event: string } | null {
  const words = subject.split(" ");
  const event = words.at(-1)!;
  if (!DATED_EVENTS.has(event)) return null;
  return { subject: words.length > 1 ? words.slice(0, -1).join(" ") : WORKSPACE, event };
}

/** "python 3.12" -> python, 3.12; null when the value is a bare number or names no product. */
function splitVersion(value: string): { product: string; number: string } | null {
  const words = value.split(" ");
  const at = words.findIndex((w) => /^v?\d/u.test(w));
  if (at <= 0) return null;
  return { product: words.slice(0, at).join(" "), number: words.slice(at).join(" ").replace(/^v/u, "") };
}

const startsWithTime = (tokens: readonly Token[], at: number): boolean => TIME_START.has(tokens[at]?.lower ?? "") && tokens[at]?.pos !== "ADP";

const nowSaid = (tokens: readonly Token[]): boolean => tokens.some((t) => t.lower === "now" || t.lower === "currently" || t.lower === "these");

const spanText = (tokens: readonly Token[], from: number, to: number): string =>
  tokens
    .slice(from, to)
    .map((t) => t.lower)
    .join(" ");

/** The subject key of the match's {s} span, or null when it names no one the fact can be keyed by. */
function subjectOf(parse: FactParse, match: LexiconMatch): string | null {
  if (match.subject === null) return null;
  const tokens = parse.tokens;
  // "Sold the Civic last week": said with no subject, by the speaker.
  if (match.subject[1] === 0 && !match.template.nounFrame) return firstPerson(parse);
  const record = match.template.record;
  let [from, to] = match.subject;
  while (from < to && OPENERS.has(tokens[from]!.lower)) from++;
  // "Secondary on-call for payments is Ravi": an adjective before the attribute's noun names another attribute.
  if (match.template.nounFrame) {
    const first = match.template.steps[0];
    const beforeNoun = first !== undefined && "slot" in first ? tokens[to - 1] : tokens[match.start - 1];
    if (beforeNoun !== undefined && qualifiesAnother(beforeNoun, record)) return null;
  }
  // "Graham and I divorced": the speaker's own status.
  if (to - from >= 3 && tokens[to - 1]!.lower === "i" && tokens[to - 2]!.lower === "and") return firstPerson(parse);
  to = valueEnd(tokens, from, to, "thing");
  // "the on-call lead for payments" is the role's holder for payments: the attribute's own words go.
  const own = attributeWords(record);
  // "At renewal Acme ...": a leading adjunct is not the subject.
  if (tokens[from]?.pos === "ADP") {
    const named = tokens.slice(from, to).findIndex((t, i) => i > 0 && t.pos === "PROPN");
    if (named > 0) from += named;
  }
  // "Acme's 20% discount": the possessor is the subject.
  const possessive = tokens.slice(from, to).findIndex((t) => t.lower === "'s" || t.lower === "'");
  // "Bo is Ana's manager": a subject between the copula and the noun is a possessor, or nothing.
  const possessed = tokens.slice(from, match.end).some((t) => t.lower === "'s" || t.lower === "'");
  if (match.template.possessiveSubject && !possessed && !possessorOrNothing(tokens.slice(from, to))) return null;
  if (possessive > 0) {
    // "Grace's son's favourite colour", "Kofi's parents": a thing or person of the possessor is not the possessor.
    // "Tomasz's personal email" is another attribute than his email: a qualifier the lexicon does not name makes no claim.
    const between = tokens.slice(from + possessive + 1, to).filter((t) => !own.has(t.lower) && !NEUTRAL_QUALIFIERS.has(t.lower) && !GENERIC_HEADS.has(t.lower));
    if (between.some((t) => t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "ADJ")) return null;
    to = from + possessive;
  }
  const span = [...tokens.slice(from, to), ...qualifier(tokens, match, to)].filter((t) => !own.has(t.lower));
  while (span.length > 0 && CONNECTORS.has(span[0]!.lower)) span.shift();
  while (span.length > 0 && (CONNECTORS.has(span.at(-1)!.lower) || span.at(-1)!.pos === "PUNCT")) span.pop();
  // "Payments' tech lead" with the possessor lost is no one's; "The on-call lead is Dana" is the workspace's.
  if (span.length === 0)
    return tokens.slice(from, to).some((t) => t.lower === "'s" || t.lower === "'") ? null : from < to || match.template.nounFrame ? WORKSPACE : null;
  if (span.length > 6) return null;
  const words = span.map((t) => t.lower);
  // "Retros are now every Friday": a time is no one's subject.
  if (words.some((w) => DATE_HEADS.has(w) || TIME_QUANTIFIERS.has(w))) return null;
  // "The contract renewal for Obsidian Foods is due on April 9": a thing of a named one is that
  // one's, and the lexicon has no attribute for it; reading "contract renewal" as the subject would
  // make every company's renewal one claim.
  const after = tokens[to];
  if (!span.some((t) => t.pos === "PROPN") && after !== undefined && OWNED_BY.has(after.lower) && tokens[to + 1]?.pos === "PROPN") return null;
  // "Fixing cars is an art": a gerund before the attribute's noun has it as its object; it owns nothing.
  if (match.template.nounFrame && span.length === 1 && span[0]!.lower.endsWith("ing") && from === 0) return null;
  // A capital letter makes a name, except the sentence's own first one ("Fixing cars is an art").
  const named = (t: Token): boolean => /^[A-Z]/u.test(t.text) && tokens.indexOf(t) > 0;
  if (span.some((t) => !SUBJECT_POS.has(t.pos) && !named(t) && !misreadVerb(tokens, tokens.indexOf(t), to))) return null;
  if (words.length === 1 && FIRST_PERSON.has(words[0]!)) return firstPerson(parse);
  if (words.length === 1 && words[0] === "our") return resolverFor(parse.input, parse.subject)("we");
  if (words.length === 1 && TEAM.has(words[0]!)) return resolverFor(parse.input, parse.subject)("we");
  if (words.some((w) => UNRESOLVED.has(w) || FIRST_PERSON.has(w) || TEAM.has(w))) return null;
  const said = span
    .map((t, i) => (i > 0 && t.spaced ? ` ${t.text}` : t.text))
    .join("")
    .trim();
  // "Acme Corp." at the end of a sentence is Acme Corp: an abbreviation's full stop is not part of the name.
  const key = (resolverFor(parse.input, parse.subject)(said) ?? words.filter((w) => w !== "the").join(" ")).replace(/\.$/u, "");
  // "the payments service" and "payments" name one thing.
  const parts = key.split(" ");
  return parts.length > 1 && GENERIC_HEADS.has(parts.at(-1)!) ? parts.slice(0, -1).join(" ") : key;
}

const POSSESSIVE_PRONOUNS: ReadonlySet<string> = new Set(["my", "our"]);

/** Words that make a role or attribute another one: "secondary on-call", "former CEO", "backup email". */
const OTHER_OF: ReadonlySet<string> = new Set(
  "secondary backup deputy assistant associate former previous ex old future next interim acting vice co shadow second third alternate".split(" "),
);

/** Whether a word before an attribute's noun makes it another attribute (an adjective the lexicon does not name). */
function qualifiesAnother(t: Token, record: AttributeRecord): boolean {
  if (attributeWords(record).has(t.lower) || NEUTRAL_QUALIFIERS.has(t.lower)) return false;
  return OTHER_OF.has(t.lower) || t.pos === "ADJ";
}

/** "my", "our", or only an article ("Dana is the on-call lead"). */
const possessorOrNothing = (span: readonly Token[]): boolean =>
  (span.length === 1 && POSSESSIVE_PRONOUNS.has(span[0]!.lower)) || span.every((t) => t.pos === "DET" || NEUTRAL_QUALIFIERS.has(t.lower));

/** Words between a possessive and the attribute that leave the attribute as it is. */
const NEUTRAL_QUALIFIERS: ReadonlySet<string> = new Set(["current", "new", "latest", "main", "primary", "present", "updated", "official", "actual"]);

const GENERIC_HEADS: ReadonlySet<string> = new Set([
  "service",
  "services",
  "project",
  "app",
  "application",
  "system",
  "account",
  "team",
  "company",
  "inc",
  "ltd",
  "llc",
  "database",
  "db",
  "cluster",
  "server",
  "instance",
  "calls",
  "requests",
  "endpoint",
  "job",
  "pipeline",
  "platform",
]);

/** What qualifies an attribute named last: "Bo is the on-call lead **for payments**". */
function qualifier(tokens: readonly Token[], match: LexiconMatch, subjectEnd: number): readonly Token[] {
  const last = match.template.steps.at(-1);
  const own = attributeWords(match.template.record);
  // The match ends on the attribute's noun: a word of the template ("lead for payments"), or the
  // subject slot's last word ("Lena took over as account owner for Harbor Foods").
  const endsOnWord = last !== undefined && "literal" in last && own.has(last.literal);
  const endsOnSubject = last !== undefined && "slot" in last && last.slot === "s" && own.has(tokens[subjectEnd - 1]?.lower ?? "");
  const at = endsOnWord ? match.end : endsOnSubject ? subjectEnd : -1;
  const after = tokens[at];
  if (at < 0 || after === undefined || !QUALIFIERS.has(after.lower)) return [];
  // "lead for payments", "champion at Initech"; not "plan at $499 a month".
  let from = at + 1;
  while (tokens[from]?.pos === "DET") from++;
  const head = tokens[from];
  if (head === undefined || !(head.pos === "PROPN" || head.pos === "NOUN" || head.pos === "NUM")) return [];
  if (NAMED_ONLY.has(after.lower) && (head.pos !== "PROPN" || DATE_HEADS.has(head.lower))) return [];
  return tokens.slice(at + 1, valueEnd(tokens, at + 1, tokens.length, "thing"));
}

const QUALIFIERS: ReadonlySet<string> = new Set(["for", "of", "at", "on", "in"]);
/** "at" qualifies only by a name: "champion at Initech", not "80 seats at renewal". */
const NAMED_ONLY: ReadonlySet<string> = new Set(["at", "on", "in"]);

/** The subject of an attribute said of no one in particular ("The on-call lead is Dana"). */
const WORKSPACE = "workspace";
/** Words that join a subject to its attribute: "lead for payments", "Acme's", "the CEO of Acme". */
const CONNECTORS: ReadonlySet<string> = new Set(["the", "a", "an", "for", "of", "at", "on", "'s", "'", "to", "this"]);

const wordsByRecord = new Map<AttributeRecord, ReadonlySet<string>>();

/** The words of a record's attribute and nouns. */
function attributeWords(record: AttributeRecord): ReadonlySet<string> {
  let words = wordsByRecord.get(record);
  if (words === undefined) {
    words = new Set([record.attribute, ...(record.nouns ?? [])].flatMap((n) => n.split(" ")));
    wordsByRecord.set(record, words);
  }
  return words;
}

/**
 * A first-person fact is about its speaker: the end user the call named, the speaker of
 * "Caroline: I moved to Paris", else the workspace's user.
 */
function firstPerson(parse: FactParse): string {
  if (parse.input.endUser) return `user:${parse.input.endUser.id}`;
  if (parse.view.speaker !== null) return parse.view.speaker.toLowerCase();
  return "user";
}
