import type { CaptureInput, Claim } from "./types";
import {
  CLAIM_BLOCKERS,
  CLAIM_RULES,
  COMPARISON,
  CURRENT_TAIL,
  DECISION,
  DECISION_PREPOSITIONS,
  HABIT,
  NEGATION_FOLDS,
  NEGATION_TAIL,
  NOT_VALUE_START,
  PREFERENCE_SCOPE,
  RELATIONS,
  REPHRASINGS,
  SCHEDULING_VERBS,
  STATE,
  USE_FOR,
  VALUE_CLASS_POSSESSIVE,
  VALUE_CLASS_SENTENCE,
  VALUE_CLASSES,
  USE_VERBS,
  WHEN_TAIL,
  type ClaimRule,
  type ValueClass,
} from "./rules/claim";
import type { SubjectResult, TextView } from "./subject";
import { dropTrailing, firstSentence } from "./text";
import { termOf } from "../memory/index/terms";
import { manyValued, oneValued } from "./claim-key";
import { resolverFor, takesPluralVerb, workspaceSubject, type SubjectResolver } from "./claim-subject";
import { canonicalAttribute, clause, cleanValue, hasShape, isManyValued, roleAt, withoutArticle } from "./claim-values";
import { ATTRIBUTE_RULES, FIRST_RULES } from "./rules/attribute";
import { DATED_EVENTS } from "./rules/lexicon";
import { tokenClaim } from "./token-claim";
import { escapeRegex, matchesOf } from "./rules/rule";
import { execPattern, testPattern } from "./rules/prefilter";

export interface ClaimOutcome {
  claim: Claim | null;
  /** The claim rule that matched, even when the claim was then refused. */
  rule: string | null;
  /** Why a matched claim was refused: a blocker name, "other_subject", "many_values" or "no_value". */
  refusedBy: string | null;
}

/** Words ending in "s" that are not third-person verbs. */
const NOT_VERBS = new Set([
  "is",
  "was",
  "has",
  "does",
  "its",
  "this",
  "his",
  "hers",
  "ours",
  "yours",
  "theirs",
  "us",
  "always",
  "sometimes",
  "perhaps",
  "plus",
  "less",
  "thus",
  "as",
  "versus",
  "vs",
  "across",
  "towards",
  "besides",
  "upwards",
  "afterwards",
  "yes",
  "unless",
]);
const VALUE_TRIM = new Set([".", "!", "?", ";", ",", " ", '"', "'"]);
const BLOCKED_BEFORE_FOLDING = CLAIM_BLOCKERS.filter((b) => b.afterFolding !== true);
const BLOCKED_AFTER_FOLDING = CLAIM_BLOCKERS.filter((b) => b.afterFolding === true);

/**
 * The claim the fact makes, keyed by its subject so claims never cross subjects. A pattern whose
 * own subject is someone else ("Tom's manager is Alex" taught about end user Priya) makes no
 * claim: keying it under either person would supersede the wrong fact.
 */
export function extractClaim(input: CaptureInput, view: TextView, subject: SubjectResult): ClaimOutcome {
  // Blockers read the sentence with its leading filler: "Apparently ..." is a hedge.
  const whole = firstSentence(view.body);
  const blocker = BLOCKED_BEFORE_FOLDING.find((b) => testPattern(b.pattern, whole));
  const sentence = rephrase(dropTrailing(firstSentence(view.lead).trim(), VALUE_TRIM).replace(CURRENT_TAIL, ""));
  const { text, negated } = foldNegation(sentence);
  const resolve = resolverFor(input, subject);
  const untimed = withoutWhen(text);
  const timeless = untimed === text ? null : claimOf(untimed, negated, resolve);
  // Only a one-valued claim stands without its time: "Atlas goes live" alone is no statement about Atlas.
  const found = timeless?.claim?.cardinality === "one" ? timeless : claimOf(text, negated, resolve);
  if (blocker && found.rule !== null) return { claim: null, rule: found.rule, refusedBy: blocker.name };
  if (found.claim === null) return found;
  const leftover = BLOCKED_AFTER_FOLDING.find((b) => testPattern(b.pattern, text));
  if (leftover) return { claim: null, rule: found.rule, refusedBy: leftover.name };
  return { ...found, claim: eventDate(found.claim) };
}

/**
 * "Legacy API sunset pushed to March 31" is the legacy API's deprecation date, as "we agreed to
 * sunset the legacy API on 12/31" is: a date of a subject ending in an event is the event's date.
 */
function eventDate(claim: Claim): Claim {
  const words = claim.subject.split(" ");
  const event = words.at(-1) ?? "";
  if (claim.cardinality !== "one" || claim.attribute !== "date" || words.length < 2 || !DATED_EVENTS.has(event)) return claim;
  const named = canonicalAttribute(event, false) ?? event;
  return { ...claim, subject: words.slice(0, -1).join(" "), attribute: named.endsWith(" date") ? named : `${named} date` };
}

/**
 * The sentence without a trailing time adjunct. Only its end is searched: the pattern is anchored
 * at the end alone, and scanning a long sentence from every position costs more than the rest.
 */
function withoutWhen(text: string): string {
  const end = Math.max(0, text.length - 60);
  const stripped = text.slice(end).replace(WHEN_TAIL, "");
  return stripped.length === text.length - end ? text : (text.slice(0, end) + stripped).replace(CURRENT_TAIL, "");
}

/** "Acme is a beta tester for Insights" -> "Acme is a member of the Insights beta". Each rephrasing in table order. */
function rephrase(sentence: string): string {
  return REPHRASINGS.reduce((text, r) => (testPattern(r.pattern, text) ? text.replace(r.pattern, r.replacement) : text), sentence);
}

/** "Sam stopped playing guitar" -> "Sam playing guitar", negated. */
function foldNegation(sentence: string): { text: string; negated: boolean } {
  for (const fold of NEGATION_FOLDS) {
    if (!testPattern(fold.pattern, sentence)) continue;
    const text = sentence.replace(fold.pattern, fold.replacement).replace(NEGATION_TAIL, "").replace(/ {2,}/gu, " ");
    return { text, negated: true };
  }
  return { text: sentence, negated: false };
}

function claimOf(sentence: string, negated: boolean, resolve: SubjectResolver): ClaimOutcome {
  const replacement = tokenClaim(sentence, negated, resolve, FIRST_RULES);
  if (replacement?.claim) return replacement;
  const decision = execPattern(DECISION, sentence);
  const decided = decision ? decisionClaim(decision, negated, resolve) : null;
  if (decided?.claim) return decided;
  const useFor = execPattern(USE_FOR.pattern, sentence);
  if (useFor) {
    const subjectKey = resolve(useFor.groups?.subject, undefined);
    const value = cleanValue(useFor.groups?.value ?? "", "");
    const rawScope = clause(useFor.groups?.scope ?? "");
    const scope = cleanValue(rawScope, "");
    if (subjectKey !== null && value !== null && scope !== null) {
      // "uses Postgres as its database" says what its database is, as "migrated its database to ..." does.
      const own = /^(?:its|their|his|her|our) /iu.test(rawScope);
      return {
        claim: oneValued(subjectKey, own ? (canonicalAttribute(scope, false) ?? scope) : `use for ${scope}`, value, negated),
        rule: USE_FOR.name,
        refusedBy: null,
      };
    }
  }
  let refused: ClaimOutcome = { claim: null, rule: null, refusedBy: null };
  for (const rule of CLAIM_RULES) {
    const match = execPattern(rule.pattern, sentence);
    if (!match) continue;
    const attribute = rule.attribute ?? canonicalAttribute(match.groups?.attr ?? "", rule.counts === true);
    if (attribute === null) continue;
    const rawValue = clause(match.groups?.value ?? "");
    if (rule.value !== undefined && !hasShape(rawValue, rule.value)) continue;
    if (match.groups?.attr !== undefined && NOT_VALUE_START.test(rawValue)) continue;
    const { owner, part } = splitPossessive(match.groups?.subject);
    const subjectKey = resolve(owner, rule.fixedSubject);
    // "Lara is the team's designer" is about Lara (the title rule), not the team's designer slot.
    if (rule.notForSubject !== undefined && subjectKey === rule.notForSubject) continue;
    if (subjectKey === null) {
      refused = { claim: null, rule: rule.name, refusedBy: "other_subject" };
      continue;
    }
    if (isManyValued(attribute)) return { claim: null, rule: rule.name, refusedBy: "many_values" };
    const cleaned = cleanValue(rawValue, attribute);
    if (cleaned === null) return { claim: null, rule: rule.name, refusedBy: "no_value" };
    const classed = part ? null : classedAttribute(attribute, cleaned);
    const value = classed?.value ?? cleaned;
    const slot = (part ? `${part} ` : "") + (rule.value === "schedule" ? scheduleSlot(value) : (classed?.attribute ?? attribute));
    // A role is held at an organisation: "CFO of Kestrel Textiles" and "board member of Lumen
    // Textiles" can both be true, "CTO of Kestrel Textiles" replaces the first.
    const held = attribute === "role" && !part ? roleAt(rawValue) : null;
    const denies = negated || rule.negates === true;
    const claim = held ? oneValued(subjectKey, `role at ${held.organisation}`, held.title, denies) : oneValued(subjectKey, slot, value, denies);
    return { claim, rule: rule.name, refusedBy: null };
  }
  const classed = valueClassClaim(sentence, negated, resolve);
  if (classed) return classed;
  const general = tokenClaim(sentence, negated, resolve, ATTRIBUTE_RULES);
  if (general?.claim) return general;
  for (const rel of RELATIONS) {
    const match = execPattern(rel.pattern, sentence);
    if (!match) continue;
    const subjectKey = resolve(match.groups?.subject, undefined);
    if (subjectKey === null) {
      refused = { claim: null, rule: rel.name, refusedBy: "other_subject" };
      continue;
    }
    const object = cleanValue(clause(match.groups?.value ?? ""), "");
    if (object === null) return { claim: null, rule: rel.name, refusedBy: "no_value" };
    if (rel.preference === true) return { claim: preferenceClaim(subjectKey, object, negated), rule: rel.name, refusedBy: null };
    return { claim: manyValued(subjectKey, rel.name, object, negated), rule: rel.name, refusedBy: null };
  }
  for (const fallback of [STATE, HABIT]) {
    const match = execPattern(fallback.pattern, sentence);
    if (!match) continue;
    const subjectKey = resolve(match.groups?.subject, undefined);
    const object = cleanValue(clause(match.groups?.value ?? ""), "");
    if (subjectKey === null || object === null) continue;
    const verb = match.groups?.verb ?? "";
    // A habit needs a verb: "Bianca runs marathons", or the base form a negation left ("doesn't run").
    if (fallback === HABIT && !negated && !(verb.endsWith("s") && !verb.endsWith("ss") && !NOT_VERBS.has(verb))) continue;
    const relation = fallback === STATE ? "is" : termOf(verb);
    return { claim: manyValued(subjectKey, relation, object, negated), rule: fallback.name, refusedBy: null };
  }
  return decided ?? refused;
}

/** A sentence about a subject naming exactly one value of an exclusive class ("switched to dark mode"). */
function valueClassClaim(sentence: string, negated: boolean, resolve: SubjectResolver): ClaimOutcome | null {
  const match = execPattern(VALUE_CLASS_POSSESSIVE, sentence) ?? execPattern(VALUE_CLASS_SENTENCE, sentence);
  if (!match) return null;
  const part = match.groups?.part;
  const rest = match.groups?.rest ?? "";
  for (const cls of VALUE_CLASSES) {
    if (cls.context !== undefined && !testPattern(cls.context, sentence)) continue;
    if (cls.unless !== undefined && testPattern(cls.unless, sentence)) continue;
    const named = valuesNamed(cls, rest);
    if (named.length !== 1) continue;
    // "Tom's son is vegan" is not Tom's diet; "Our code style uses tabs" is the team's indentation.
    if (part !== undefined && !(cls.attributes ?? []).includes(canonicalAttribute(part, false) ?? "")) return null;
    const subjectKey = resolve(match.groups?.subject ?? match.groups?.subject2, undefined);
    if (subjectKey === null) return null;
    return { claim: oneValued(subjectKey, cls.name, named[0]!, negated), rule: `value_class:${cls.name}`, refusedBy: null };
  }
  return null;
}

/** The canonical values of a class that the text names, each once. */
function valuesNamed(cls: ValueClass, text: string): string[] {
  const lower = ` ${text.toLowerCase()} `;
  if (cls.pattern !== undefined) return [...new Set([...matchesOf(cls.pattern, lower)].map((m) => m.groups?.value ?? ""))];
  return Object.entries(cls.values ?? {})
    .filter(([, words]) => words.some((w) => lower.includes(w) && wholeWord(w).test(lower)))
    .map(([value]) => value);
}

/** A value word as a whole word, compiled once: value classes are checked on every fact. */
const wholeWords = new Map<string, RegExp>();
function wholeWord(word: string): RegExp {
  let pattern = wholeWords.get(word);
  if (pattern === undefined) {
    pattern = new RegExp(`(?<![\\p{L}\\p{N}-])${escapeRegex(word)}(?![\\p{L}\\p{N}-])`, "u");
    wholeWords.set(word, pattern);
  }
  return pattern;
}

/**
 * An attribute claim on a class's attribute, keyed by the class: "Aiden's OS is Windows" and
 * "Aiden switched to macOS" are one claim. The value must name exactly one of the class's values.
 */
function classedAttribute(attribute: string, value: string): { attribute: string; value: string } | null {
  for (const cls of VALUE_CLASSES) {
    if (cls.name !== attribute && !(cls.attributes ?? []).includes(attribute)) continue;
    const named = cls.values !== undefined && value in cls.values ? [value] : valuesNamed(cls, value);
    if (named.length === 1) return { attribute: cls.name, value: named[0]! };
  }
  return null;
}

/** "Hooli's contract" -> owner "Hooli", part "contract": the part belongs to the attribute. */
function splitPossessive(said: string | undefined): { owner: string | undefined; part: string } {
  const match = said === undefined ? null : /^(.+?)'s? (.+)$/u.exec(said);
  if (!match) return { owner: said, part: "" };
  return { owner: match[1], part: match[2]!.toLowerCase() };
}

/** A recurring time of day or a day: "9:30" and "10am" are one slot, "Tuesdays" and "every Friday" another. */
const scheduleSlot = (value: string): string => (/\d|noon|midnight/u.test(value) ? "time" : "day");

/**
 * "prefers A over B" holds one answer to "A or B?", so the reversal replaces it; "prefers A for
 * X" holds one answer for X; a bare "prefers A" is one preference among many.
 */
function preferenceClaim(subjectKey: string, object: string, negated: boolean): Claim {
  const comparison = COMPARISON.exec(object)?.groups;
  if (comparison?.a && comparison.b) {
    const a = withoutArticle(comparison.a);
    const pair = [a, withoutArticle(comparison.b)].sort().join(" / ");
    return oneValued(subjectKey, `prefers between ${pair}`, a, negated);
  }
  const scoped = PREFERENCE_SCOPE.exec(object)?.groups;
  if (scoped?.value && scoped.scope) return oneValued(subjectKey, `prefers for ${scoped.scope}`, withoutArticle(scoped.value), negated);
  return manyValued(subjectKey, "prefers", object, negated);
}

/**
 * A decision answers a question; a newer answer to the same question replaces it. The question is
 * the decided verb up to its last preposition ("release on" Tuesdays) or, for "use"-like verbs,
 * what the thing is used for ("use for the job queue" = Redis). Decisions with no such question
 * ("decided to hire two engineers") make no claim: the next decision is not an answer to them.
 */
function decisionClaim(match: RegExpExecArray, negated: boolean, resolve: SubjectResolver): ClaimOutcome {
  const rule = "decision";
  const subjectKey = resolve(match.groups?.subject, undefined);
  if (subjectKey === null) return { claim: null, rule, refusedBy: "other_subject" };
  if (negated) return { claim: null, rule, refusedBy: "negation" };
  const how = match.groups?.how ?? "";
  const decided = clause(match.groups?.value ?? "");
  // "We decided that releases ship on Thursdays": the claim is the clause's own.
  const inner = (said: string | undefined, fixed: ClaimRule["fixedSubject"]): string | null =>
    fixed === "team" ? subjectKey : fixed === undefined && said !== undefined ? workspaceSubject(said, takesPluralVerb(decided, said)) : null;
  if (how === "that") return claimOf(decided, false, inner);
  if (how === "") {
    const clauseClaim = claimOf(decided, false, inner);
    if (clauseClaim.claim !== null && clauseClaim.claim.cardinality === "one") return clauseClaim;
  }
  let words = decided.toLowerCase().split(" ");
  // "drop Stripe and use Adyen for payments": the last step is the decision's answer.
  const lastAnd = words.lastIndexOf("and");
  if (lastAnd > 0 && lastAnd < words.length - 2) words = words.slice(lastAnd + 1);
  const setting = settingClaim(words, inner);
  if (setting) return { claim: setting, rule, refusedBy: null };
  let verb = how === "on" || how === "for" || how === "upon" || how === "" ? "use" : (words.shift() ?? "");
  const two = `${verb} ${words[0] ?? ""}`;
  if (USE_VERBS.has(two)) {
    verb = "use";
    words.shift();
  } else if (USE_VERBS.has(verb)) {
    verb = "use";
  }
  // "replace Datadog with Grafana for monitoring": the answer follows "with".
  if (verb === "replace" && words.includes("with")) {
    verb = "use";
    words = words.slice(words.indexOf("with") + 1);
  }
  // "switch bug tracking to Linear": what is switched is the purpose.
  const to = words.indexOf("to");
  if ((verb === "switch" || verb === "migrate" || verb === "move") && to > 0 && to < words.length - 1 && !hasShape(words.slice(to + 1).join(" "), "schedule")) {
    words = [...words.slice(to + 1), "for", ...words.slice(0, to)];
    verb = "use";
  }
  // "host on GCP" is "use GCP for hosting", unless it says when ("host on Fridays").
  const purpose = PURPOSE_VERBS[verb];
  if (purpose !== undefined && TOOL_PREPOSITIONS.has(words[0] ?? "") && words.length > 1 && !isWhen(words.slice(1).join(" "))) {
    words = [...words.slice(1), "for", purpose];
    verb = "use";
  }
  let scope = "";
  const scopeAt = Math.max(words.lastIndexOf("for"), verb === "use" ? words.lastIndexOf("as") : -1);
  if (scopeAt > 0 && scopeAt < words.length - 1) {
    scope = words.slice(scopeAt + 1).join(" ");
    words.length = scopeAt;
  }
  let question: string;
  let value: string;
  if (verb === "use") {
    if (scope === "") return { claim: null, rule, refusedBy: "no_value" };
    question = `use for ${withoutArticle(scope)}`;
    value = words.join(" ");
  } else if (hasShape(words.join(" "), "schedule")) {
    // "ship weekly", "ship every two weeks": the cadence is the answer.
    question = verb + (scope ? ` for ${scope}` : "");
    value = words.join(" ");
  } else {
    let at = -1;
    for (let i = words.length - 2; i >= 0; i--)
      if (DECISION_PREPOSITIONS.has(words[i]!)) {
        at = i;
        break;
      }
    if (at < 0) return { claim: null, rule, refusedBy: "no_value" };
    value = words.slice(at + 1).join(" ");
    // "expand to Europe" answers no single question; "write the backend in Go" (an object) or
    // "release on Tuesdays" (a scheduling verb) does.
    const shaped = hasShape(value, "date") || hasShape(value, "schedule") || hasShape(value, "number");
    if (!SCHEDULING_VERBS.has(verb) && !shaped && at === 0) {
      return { claim: null, rule, refusedBy: "no_value" };
    }
    // "deprecate API v1 on June 1" dates an event: API v1's deprecation date, which "the API v1
    // deprecation was pushed to September 1" moves.
    const event = EVENT_NOMINALS[verb];
    if (event !== undefined && at > 0 && scope === "" && hasShape(value, "date")) {
      const thing = inner(words.slice(0, at).join(" "), undefined);
      const date = cleanValue(value, "");
      if (thing !== null && date !== null) return { claim: oneValued(thing, canonicalAttribute(event, false) ?? event, date), rule, refusedBy: null };
    }
    question = [verb, ...words.slice(0, at + 1)].join(" ") + (scope ? ` for ${scope}` : "");
  }
  const cleaned = cleanValue(value, "");
  if (cleaned === null) return { claim: null, rule, refusedBy: "no_value" };
  const attribute = question.startsWith("use for ") ? question : `decided ${question}`;
  return { claim: oneValued(subjectKey, attribute, cleaned), rule, refusedBy: null };
}

/** Decided verbs that name a purpose when a tool follows: "host on GCP" = use GCP for hosting. */
const PURPOSE_VERBS: Readonly<Record<string, string>> = { host: "hosting", monitor: "monitoring" };
const TOOL_PREPOSITIONS: ReadonlySet<string> = new Set(["on", "with", "to", "via", "through"]);
/** Decided verbs whose dated object is an event with one date: "deprecate API v1 on June 1". */
const EVENT_NOMINALS: Readonly<Record<string, string>> = {
  deprecate: "deprecation",
  sunset: "deprecation",
  launch: "launch",
  release: "release",
  migrate: "migration",
};
const isWhen = (value: string): boolean => hasShape(value, "date") || hasShape(value, "schedule");

/** Decided verbs that set one attribute of a thing: "price the Pro plan at $29", "rename the repo to atlas". */
const SETTING_VERBS: Readonly<Record<string, string>> = { price: "price", rename: "name", move: "", reschedule: "", push: "", postpone: "" };

/**
 * "We decided to price the Pro plan at $29/month" is a claim about the Pro plan's price, so "the
 * Pro plan costs $35/month" replaces it; "move the standup to 10am" is the standup's time.
 */
function settingClaim(words: readonly string[], resolve: SubjectResolver): Claim | null {
  const verb = words[0] ?? "";
  const attribute = SETTING_VERBS[verb];
  if (attribute === undefined) return null;
  const at = words.findIndex((w, i) => i > 1 && (w === "to" || w === "at" || w === "for"));
  if (at < 0 || at === words.length - 1) return null;
  const thing = resolve(words.slice(1, at).join(" "), undefined);
  const raw = words.slice(at + 1).join(" ");
  const value = cleanValue(raw, attribute);
  if (thing === null || value === null) return null;
  if (attribute !== "") return oneValued(thing, attribute, value);
  if (hasShape(raw, "schedule")) return oneValued(thing, scheduleSlot(value), value);
  if (hasShape(raw, "date")) return oneValued(thing, "date", value);
  return null;
}
