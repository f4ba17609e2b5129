/**
 * Who a claim is about: the words a pattern captured as its subject, resolved against the subject
 * the fact was attributed to, so claims never cross people (an end user, a team member, the team,
 * or a workspace thing such as a company or project).
 */
import type { CaptureInput } from "./types";
import type { SubjectResult } from "./subject";
import { VERB_WORDS } from "./rules/lexicon";

const FIRST_PERSON = new Set(["i", "me", "my"]);
const TEAM_WORDS = new Set(["we", "us", "our", "team", "our team"]);
const SUBJECT_BREAKERS = new Set(["and", "or", "but", "left", "joined", "moved", "is", "was", "are", "were", "has", "have", "had", "now", "will"]);

/** Who a record's subject words are: a subject key, or null when they name someone else. */
export type SubjectResolver = (said: string | undefined) => string | null;

/** How the subject words of a record map to a claim's subject key, given the attributed subject. */
export function resolverFor(input: CaptureInput, subject: SubjectResult): SubjectResolver {
  return (captured) => {
    const said = (captured ?? "").toLowerCase().replace(/^(?:the|our|my) /u, "");
    const who = FIRST_PERSON.has(said) ? "first_person" : TEAM_WORDS.has(said) ? "team" : "named";
    // First person means the end user the call named, or the speaker of "Caroline: I live in Paris".
    if (who === "first_person") return subject.subjectType === "end_user" || subject.rule === "speaker_prefix" ? subjectKey(input, subject) : null;
    if (who === "team") return isWholeTeam(subject) ? "team" : null;
    if (subject.subjectType === "end_user" || subject.rule === "team_member" || subject.rule === "speaker_prefix") {
      return namesOf(input, subject).has(said) ? subjectKey(input, subject) : null;
    }
    return workspaceSubject(captured ?? "", takesPluralVerb(input.text, captured ?? ""));
  };
}

/** Verb forms that agree only with a plural subject ("Retros are", "Retros happen"). */
const PLURAL_VERBS: ReadonlySet<string> = new Set(["are", "were", "have", "do", "aren't", "weren't", "haven't", "don't"]);
/** Base forms of verbs that date or schedule a plural subject ("Releases ship on Tuesdays"). */
const SCHEDULE_VERBS: ReadonlySet<string> = new Set(["ship", "happen", "run", "start", "end", "go", "launch", "release", "deploy", "meet", "occur", "take"]);
/** Words that may stand between a subject and its verb. */
const ADVERBS: ReadonlySet<string> = new Set(["now", "still", "usually", "always", "also", "often", "never", "all", "both"]);

/**
 * Whether the subject as said takes a plural verb in the text. Only then is its trailing "s" a
 * plural to drop: "Retros are every Friday" names the retro, while "Adams lives in Leeds" and
 * "Vandelay Industries is on a contract" name Adams and Vandelay Industries.
 */
export function takesPluralVerb(text: string, said: string): boolean {
  const lower = text.toLowerCase();
  const at = lower.indexOf(said.toLowerCase());
  if (said === "" || at < 0) return false;
  const following = lower.slice(at + said.length).match(/[a-z'-]+/gu) ?? [];
  const verb = following.find((word) => !ADVERBS.has(word));
  if (verb === undefined) return false;
  // A verb's base form: "ship" beside "ships", "go" beside "goes".
  return PLURAL_VERBS.has(verb) || VERB_WORDS.has(`${verb}s`) || VERB_WORDS.has(`${verb}es`) || SCHEDULE_VERBS.has(verb);
}

/**
 * A workspace subject as the sentence names it, so "The Atlas launch date" and "Atlas's launch"
 * key alike: lower-cased, without a leading article or the word "project", and singular when the
 * sentence made it plural (never otherwise: a name ending in "s" keeps it).
 */
export function workspaceSubject(said: string, plural: boolean): string | null {
  const bare = said
    .toLowerCase()
    .replace(/^the /u, "")
    .replace(/^project /u, "")
    .replace(/ (?:project|work|effort|initiative)$/u, "")
    .trim();
  // "Sprint planning for Apollo" and "Apollo sprint planning" name one thing.
  const named = bare.replace(/^(.+?) for (.+)$/u, "$2 $1");
  // "Retros are every Friday" and "the retro is every other Friday" name one thing.
  const key = plural ? named.replace(/(?<![sua])s$/u, "") : named;
  if (key === "" || /^(?:my|our) /u.test(key) || FIRST_PERSON.has(key) || TEAM_WORDS.has(key) || /^(?:he|she|they|it|this|that|there)$/u.test(key)) return null;
  // "Lucia left Stripe and" is not a subject: a verb or conjunction inside means the pattern split the sentence wrongly.
  if (key.split(" ").some((word) => SUBJECT_BREAKERS.has(word) || VERB_WORDS.has(word))) return null;
  return key;
}

/** The subject half of a claim key: `user:<id>` for end users, "team", or the subject itself. */
export function subjectKey(input: CaptureInput, subject: SubjectResult): string {
  if (subject.subjectType === "end_user" && input.endUser) return `user:${input.endUser.id}`;
  if (isWholeTeam(subject)) return "team";
  return subject.subject.toLowerCase();
}

/** "team" subject type also covers named team members; only the team itself answers to "we". */
const isWholeTeam = (subject: SubjectResult): boolean => subject.subjectType === "team" && subject.rule !== "team_member";

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
