import type { CaptureInput, Claim } from "./types";
import { ATTRIBUTE_ALIASES, CLAIM_BLOCKERS, CLAIM_RULES, MAX_CLAIM_VALUE, NOT_ATTRIBUTES, VALUE_END, type ClaimRule } from "./rules/claim";
import type { SubjectResult, TextView } from "./subject";
import { dropTrailing, firstSentence } from "./text";

export interface ClaimOutcome {
  claim: Claim | null;
  /** The claim rule that matched, even when the claim was then refused. */
  rule: string | null;
  /** Why a matched claim was refused: a blocker name, "other_subject" or "no_value". */
  refusedBy: string | null;
}

const FIRST_PERSON = new Set(["i", "me", "my"]);
const TEAM_WORDS = new Set(["we", "us", "our", "team", "our team"]);
const VALUE_TRIM = new Set([".", "!", "?", ";", ",", " ", '"', "'"]);

/**
 * The claim the fact makes, keyed by the attributed subject so claims never cross subjects.
 * A pattern whose own subject is someone else ("Tom's manager is Alex" taught about end user Priya)
 * makes no claim: keying it under either person would supersede the wrong fact.
 */
export function extractClaim(input: CaptureInput, view: TextView, subject: SubjectResult): ClaimOutcome {
  const sentence = firstSentence(view.lead).trim();
  // Blockers read the sentence with its leading filler: "Apparently ..." is a hedge.
  const whole = firstSentence(view.body);
  let refused: ClaimOutcome = { claim: null, rule: null, refusedBy: null };
  for (const rule of CLAIM_RULES) {
    const match = rule.pattern.exec(sentence);
    if (!match) continue;
    const blocker = CLAIM_BLOCKERS.find((b) => b.pattern.test(whole));
    if (blocker) return { claim: null, rule: rule.name, refusedBy: blocker.name };
    const attribute = canonicalAttribute(match.groups?.attr ?? rule.attribute ?? "");
    if (attribute === null) continue;
    if (!sameSubject(match.groups?.subject, rule, input, subject)) {
      refused = { claim: null, rule: rule.name, refusedBy: "other_subject" };
      continue;
    }
    const value = cleanValue(sentence.slice(match[0].length));
    if (value === null) return { claim: null, rule: rule.name, refusedBy: "no_value" };
    const scoped = rule.scope?.exec(value)?.groups;
    const key = `${subjectKey(input, subject)}|${attribute}${scoped?.scope ? ` for ${scoped.scope}` : ""}`;
    return { claim: { key, value: scoped?.value ?? value }, rule: rule.name, refusedBy: null };
  }
  return refused;
}

/** The subject half of a claim key: `user:<id>` for end users, "team", or the subject itself. */
export function subjectKey(input: CaptureInput, subject: SubjectResult): string {
  if (subject.subjectType === "end_user" && input.endUser) return `user:${input.endUser.id}`;
  if (isWholeTeam(subject)) return "team";
  return subject.subject.toLowerCase();
}

/** "team" subject type also covers named team members; only the team itself answers to "we". */
const isWholeTeam = (subject: SubjectResult): boolean => subject.subjectType === "team" && subject.rule !== "team_member";

/** Does the pattern's own subject refer to the attributed subject? */
function sameSubject(captured: string | undefined, rule: ClaimRule, input: CaptureInput, subject: SubjectResult): boolean {
  const said = (captured ?? "").toLowerCase().replace(/^the /u, "");
  const who = rule.fixedSubject ?? (FIRST_PERSON.has(said) ? "first_person" : TEAM_WORDS.has(said) ? "team" : "named");
  // First person means the end user the call named, or the speaker of "Caroline: I live in Paris".
  if (who === "first_person") return subject.subjectType === "end_user" || subject.rule === "speaker_prefix";
  if (who === "team") return isWholeTeam(subject);
  return namesOf(input, subject).has(said);
}

/** Every way the text may name the attributed subject: full name, first name, end-user id. */
function namesOf(input: CaptureInput, subject: SubjectResult): Set<string> {
  const names = new Set<string>();
  const add = (name: string | undefined, withFirst: boolean): void => {
    const lower = (name ?? "").trim().toLowerCase();
    if (lower === "") return;
    names.add(lower);
    if (withFirst) names.add(lower.split(/\s+/u)[0] ?? lower);
  };
  add(subject.subject, subject.personish && !isWholeTeam(subject));
  if (subject.subjectType === "end_user") {
    add(input.endUser?.id, false);
    add(input.endUser?.name, true);
  }
  return names;
}

/** Lower-cased attribute with synonyms folded; null when it is really a verb phrase. */
function canonicalAttribute(raw: string): string | null {
  const attribute = raw.trim().toLowerCase();
  if (attribute === "" || attribute.split(" ").some((word) => NOT_ATTRIBUTES.has(word))) return null;
  const alias = ATTRIBUTE_ALIASES.find((a) => a.pattern.test(attribute));
  return alias ? attribute.replace(alias.pattern, alias.canonical) : attribute;
}

/** The value up to the end of its clause, lower-cased, without trailing punctuation or quotes. */
function cleanValue(raw: string): string | null {
  const end = VALUE_END.exec(raw);
  const clause = end ? raw.slice(0, end.index) : raw;
  let value = dropTrailing(clause.trim(), VALUE_TRIM).toLowerCase();
  while (value.startsWith('"') || value.startsWith("'")) value = value.slice(1);
  value = value.trim();
  return value === "" || value.length > MAX_CLAIM_VALUE ? null : value;
}
