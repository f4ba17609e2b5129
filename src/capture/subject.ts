import type { SubjectType } from "../schema/memory";
import type { CaptureInput } from "./types";
import { matchesOf } from "./rules/rule";
import { mayMatch, testPattern } from "./rules/prefilter";
import {
  COMMON_NOUN_ENDING,
  FALLBACK_RULE_NAME,
  FALLBACK_SUBJECT,
  LEADING_FILLER,
  MAX_TOPIC_WORD,
  MAX_TOPIC_WORDS,
  NAME_RULES,
  SPEAKER_PREFIX,
  TEAM_RULES,
  TOPIC_RULE_NAME,
} from "./rules/subject";
import { AMBIGUOUS_NAMES, FUNCTION_WORDS, NOT_NAMES, PERSONAL_PRONOUNS, SUBJECT_VERB_SOURCE, VERB_WORDS } from "./rules/lexicon";
import { isWordEdge, startsUpper } from "./text";

/** The three views of one fact that the rules read. */
export interface TextView {
  /** The prepared text (see prepareForAnalysis). */
  full: string;
  /** `full` without a speaker prefix: what the fact says. */
  body: string;
  /** `body` without leading filler ("Yesterday, ..."): where sentence-start rules look. */
  lead: string;
  /** The speaker named by a "Name: ..." prefix, if any. */
  speaker: string | null;
}

export interface SubjectResult {
  subject: string;
  subjectType: SubjectType;
  /** The rule that decided, for explanations. */
  rule: string;
  /** A person, organisation or team is the subject: profile facts need this (kind.ts). */
  personish: boolean;
}

/** Splits off a speaker prefix and leading filler once, so every rule agrees on where text starts. */
export function viewOf(full: string): TextView {
  const speakerMatch = SPEAKER_PREFIX.pattern.exec(full);
  const speaker = speakerMatch ? cleanName(speakerMatch.groups?.name ?? "") : null;
  const body = speaker !== null && speakerMatch ? full.slice(speakerMatch[0].length) : full;
  let lead = body;
  // Three rounds cover "So, yesterday, ..." without looping on adversarial input.
  for (let round = 0; round < 3; round += 1) {
    const filler = LEADING_FILLER.exec(lead);
    if (!filler) break;
    lead = lead.slice(filler[0].length);
  }
  return { full, body, lead, speaker };
}

/** Attribution in the documented order: end user, team member, speaker, team, name, topic. */
export function attributeSubject(input: CaptureInput, view: TextView): SubjectResult {
  if (input.endUser) {
    const name = input.endUser.name?.trim() || input.endUser.id.trim() || FALLBACK_SUBJECT;
    return { subject: name, subjectType: "end_user", rule: "end_user", personish: true };
  }
  const member = findTeamMember(input.teamMembers, view);
  if (member !== null) return { subject: member, subjectType: "team", rule: "team_member", personish: true };
  if (view.speaker !== null) {
    return { subject: view.speaker, subjectType: "workspace", rule: SPEAKER_PREFIX.name, personish: true };
  }
  const team = TEAM_RULES.find((rule) => testPattern(rule.pattern, view.lead));
  if (team) return { subject: "team", subjectType: "team", rule: team.name, personish: true };
  for (const rule of NAME_RULES) {
    if (!mayMatch(rule.pattern, view.lead)) continue;
    for (const match of matchesOf(rule.pattern, view.lead)) {
      const captured = match.groups?.name ?? "";
      if (rule.strictStart === true && !plausibleFirstWord(captured)) continue;
      const name = cleanName(captured);
      if (name !== null) return { subject: name, subjectType: "workspace", rule: rule.name, personish: true };
    }
  }
  const topic = topicOf(view.lead);
  if (topic === "") return { subject: FALLBACK_SUBJECT, subjectType: "workspace", rule: FALLBACK_RULE_NAME, personish: false };
  return { subject: topic, subjectType: "workspace", rule: TOPIC_RULE_NAME, personish: startsWithPronoun(view.lead) };
}

/** Drops stop-listed words at either end ("Yesterday Priya" -> "Priya"); null when nothing is left. */
function cleanName(captured: string): string | null {
  const parts = captured.split(" ");
  while (parts.length > 0 && NOT_NAMES.has((parts[0] ?? "").toLowerCase())) parts.shift();
  while (parts.length > 0 && NOT_NAMES.has((parts[parts.length - 1] ?? "").toLowerCase())) parts.pop();
  return parts.length === 0 ? null : parts.join(" ");
}

/** Not stop-listed, not an all-caps acronym, not an abstract noun (see SubjectRule.strictStart). */
function plausibleFirstWord(captured: string): boolean {
  const first = captured.split(" ")[0] ?? "";
  const lower = first.toLowerCase();
  if (NOT_NAMES.has(lower) || first === first.toUpperCase()) return false;
  return !(lower.length > 5 && COMMON_NOUN_ENDING.test(lower));
}

/** "She lives in Oslo": no name, but a personal pronoun still makes it about a person. */
function startsWithPronoun(lead: string): boolean {
  const first = lead.slice(0, 12).split(" ")[0] ?? "";
  return PERSONAL_PRONOUNS.has(first.toLowerCase());
}

/** A verb right after a name: the name is a subject ("Priya decided", "Will is out"). */
const VERB_AFTER = new RegExp(` ${SUBJECT_VERB_SOURCE}`, "uy");

interface Alias {
  alias: string;
  member: string;
}

/**
 * The aliases of the last member list seen: a capture call analyses every fact against the same
 * list, and deriving aliases per fact was a sixth of teach's CPU.
 */
let lastAliases: { members: readonly string[]; aliases: Alias[] } | null = null;

/** Full display names, plus the first name when no other member shares it ("Priya" for "Priya Shah"). */
function aliasesOf(members: readonly string[]): Alias[] {
  if (lastAliases?.members === members) return lastAliases.aliases;
  const aliases = deriveAliases(members);
  lastAliases = { members, aliases };
  return aliases;
}

function deriveAliases(members: readonly string[]): Alias[] {
  const cleaned = members.map((m) => m.normalize("NFC").trim()).filter((m) => m.length >= 2 && m.length <= 200);
  const firstNames = new Map<string, number>();
  for (const m of cleaned) {
    const first = m.toLowerCase().split(/\s+/u)[0] ?? "";
    firstNames.set(first, (firstNames.get(first) ?? 0) + 1);
  }
  const fullNames = new Set(cleaned.map((m) => m.toLowerCase()));
  const aliases: Alias[] = [];
  for (const member of cleaned) {
    const lower = member.toLowerCase();
    aliases.push({ alias: lower, member });
    const first = lower.split(/\s+/u)[0] ?? "";
    const usable = first !== lower && first.length >= 2 && !FUNCTION_WORDS.has(first);
    if (usable && firstNames.get(first) === 1 && !fullNames.has(first)) aliases.push({ alias: first, member });
  }
  return aliases;
}

/**
 * The known team member the fact is about: named at the start, as a speaker, in a possessive, or
 * right before a verb. A member only mentioned as an object ("we asked Priya") does not count.
 * Earliest qualifying mention wins; at the same place the longer name wins ("Priya Shah" over "Priya").
 */
function findTeamMember(members: readonly string[], view: TextView): string | null {
  if (members.length === 0) return null;
  const original = view.full;
  const lower = original.toLowerCase();
  // Lower-casing can change lengths (e.g. "İ"); then positions no longer line up with the original.
  const aligned = lower.length === original.length;
  const starts = new Set([0, lower.length - view.body.toLowerCase().length, lower.length - view.lead.toLowerCase().length]);
  let best: { index: number; alias: Alias } | null = null;
  for (const alias of aliasesOf(members)) {
    let from = 0;
    for (;;) {
      const index = lower.indexOf(alias.alias, from);
      if (index < 0 || (best !== null && index > best.index)) break;
      from = index + 1;
      const end = index + alias.alias.length;
      if (!isWordEdge(lower, index - 1) || !isWordEdge(lower, end)) continue;
      if (AMBIGUOUS_NAMES.has(alias.alias) && !(aligned && startsUpper(original.slice(index, end)))) continue;
      if (!qualifies(lower, index, end, starts)) continue;
      const longer = best !== null && index === best.index && alias.alias.length > best.alias.alias.length;
      if (best === null || index < best.index || longer) best = { index, alias };
      break;
    }
  }
  return best === null ? null : best.alias.member;
}

/** Start of the sentence, speaker colon, possessive, or followed by a verb. */
function qualifies(lower: string, index: number, end: number, starts: ReadonlySet<number>): boolean {
  if (starts.has(index)) return true;
  if (lower.startsWith(":", end)) return true;
  if (lower.startsWith("'s", end) && isWordEdge(lower, end + 2)) return true;
  VERB_AFTER.lastIndex = end;
  return VERB_AFTER.test(lower);
}

interface Token {
  word: string;
  /** Punctuation or a possessive after the word closes the noun phrase. */
  closes: boolean;
}

/** How far into the lead a topic is looked for: its first 60 words within its first 600 characters. */
const TOPIC_CHARS = 600;
const TOPIC_TOKENS = 60;

/**
 * The first words of the lead as cleaned, lower-cased tokens, split off one at a time as they are
 * read: a topic is found in the first few, and a long fact would otherwise split them all.
 */
function* tokensOf(lead: string): Generator<Token, void, undefined> {
  const head = lead.slice(0, TOPIC_CHARS);
  let start = 0;
  // The words `head.split(" ")` gives, empty ones included.
  for (let n = 0; n < TOPIC_TOKENS && start <= head.length; n += 1) {
    const space = head.indexOf(" ", start);
    const end = space < 0 ? head.length : space;
    yield tokenOf(head.slice(start, end));
    start = end + 1;
  }
}

function tokenOf(raw: string): Token {
  const core = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'&+#._-]{0,200}/u.exec(raw);
  if (!core) return { word: "", closes: true };
  let word = core[0].toLowerCase();
  let closes = core.index + core[0].length < raw.length;
  // A trailing dot belongs to the sentence, not the word ("Fridays." -> "fridays").
  while (word.endsWith(".") || word.endsWith("-") || word.endsWith("_")) {
    word = word.slice(0, -1);
    closes = true;
  }
  if (word.endsWith("'s")) {
    word = word.slice(0, -2);
    closes = true;
  }
  return { word, closes };
}

const usableWord = (word: string): boolean => word.length > 0 && word.length <= MAX_TOPIC_WORD && /\p{L}/u.test(word);

/** Ends a topic phrase: a function word, a verb, or an -ly adverb / -ed verb after the head. */
const endsPhrase = (word: string): boolean =>
  FUNCTION_WORDS.has(word) || VERB_WORDS.has(word) || (word.length > 4 && (word.endsWith("ly") || word.endsWith("ed")));

/**
 * The leading noun phrase, lower-cased, up to four words, without articles:
 * "The deploy pipeline runs on Fridays" -> "deploy pipeline"; "I prefer dark mode" -> "dark mode".
 */
export function topicOf(lead: string): string {
  const tokens = tokensOf(lead);
  let token = tokens.next().value;
  let afterPronoun = false;
  // Skip function words, and a verb straight after a pronoun ("I | prefer").
  for (; token !== undefined; token = tokens.next().value) {
    const word = token.word;
    const skip = !usableWord(word) || FUNCTION_WORDS.has(word) || (afterPronoun && VERB_WORDS.has(word));
    if (!skip) break;
    afterPronoun = PERSONAL_PRONOUNS.has(word) || word === "we" || word === "they";
  }
  const words: string[] = [];
  for (; token !== undefined && words.length < MAX_TOPIC_WORDS; token = tokens.next().value) {
    // A number may follow the head ("Node.js 22", "Q3 2025") but cannot start a topic.
    const numberAfterHead = words.length > 0 && /^\p{N}{1,8}$/u.test(token.word);
    if (!(usableWord(token.word) || numberAfterHead)) break;
    if (words.length > 0 && endsPhrase(token.word)) break;
    words.push(token.word);
    if (token.closes) break;
  }
  return words.join(" ");
}
