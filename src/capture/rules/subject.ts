import type { Rule } from "./rule";
import { SUBJECT_VERB_SOURCE } from "./lexicon";

/**
 * Subject patterns. Name patterns are case-sensitive on purpose: mid-sentence capitals are the
 * only cheap signal that a word is a name. Every quantifier is bounded and every repeated group
 * starts with a literal space, so there is one way to split any input and no backtracking blow-up.
 */

/** One capitalised name word: "Priya", "Zoë", "O'Brien", "Jean-Luc", "AWS". Two letters minimum. */
export const NAME_WORD = "\\p{Lu}[\\p{L}\\p{M}]{1,39}(?:[-']\\p{Lu}[\\p{L}\\p{M}]{1,39})?";
/** Up to three name words: "Priya Sharma", "Acme Corp", "Bank Of America" is rare enough. */
export const NAME_WORDS = `${NAME_WORD}(?: ${NAME_WORD}){0,2}`;

/**
 * Endings of abstract and verbal nouns ("Latency", "Deployment", "Billing"): a capitalised first
 * word with one is a topic, not a name, even when a verb follows ("Latency spikes at noon").
 */
export const COMMON_NOUN_ENDING = /(?:tion|sion|ment|ness|ity|ency|ancy|ance|ence|ship|ism|ing)$/u;

/** What a subject-attribution rule may say when it fires. */
export interface SubjectRule extends Rule {
  /** True when the subject is a person or organisation (profile facts need one, see kind.ts). */
  readonly personish: boolean;
  /**
   * The first captured word must itself look like a name: not stop-listed ("The API ...") and not
   * an all-caps acronym ("API latency ...", "SQL is ..."), which at a sentence start is usually a
   * thing. Acronym organisations still count in a possessive ("IBM's renewal date ...").
   */
  readonly strictStart?: boolean;
}

/**
 * Leading time and discourse words, and labels like "Note:", that do not change who the sentence
 * is about, stripped before the start-of-sentence rules run: "Yesterday Priya decided ..." and
 * "Note: Priya is out" are sentences about Priya.
 */
export const LEADING_FILLER: RegExp = new RegExp(
  "^(?:yesterday|today|tonight|tomorrow|recently|lately|currently|now|also|then|finally|" +
    "apparently|actually|so|and|but|however|btw|fyi|ps|as of [\\p{L}\\p{N}]{1,20}|" +
    "this (?:week|month|year|quarter|morning|afternoon)|last (?:week|month|year|quarter|night)|" +
    "next (?:week|month|year|quarter)|on (?:mon|tues|wednes|thurs|fri|satur|sun)days?),? |" +
    "^(?:note|update|fyi|important|reminder|todo|decision|context|summary|heads up|ps|nb|btw): ",
  "iu",
);

/**
 * "Caroline: I went hiking": a capitalised name and a colon frame who is speaking. Checked before
 * the "we" rules because the speaker's "we" means the speaker's people, not the workspace team.
 */
export const SPEAKER_PREFIX: SubjectRule = {
  name: "speaker_prefix",
  pattern: new RegExp(`^(?<name>${NAME_WORDS}): `, "u"),
  personish: true,
};

/** "we", "our", "the team" as the grammatical subject or owner: the workspace's own team. */
export const TEAM_RULES: readonly SubjectRule[] = [
  // "We ship on Fridays", "Let's use Postgres", "Us engineers prefer vim": first-person plural leads.
  { name: "team_we_start", pattern: /^(?:we|we'(?:ll|re|ve|d)|let's|let us|us)(?![\p{L}'])/iu, personish: true },
  // "Our deploy pipeline runs on Fridays": the team owns the subject noun phrase.
  { name: "team_our_start", pattern: /^(?:our|ours)(?![\p{L}'])/iu, personish: true },
  // "The team meets on Mondays", "My team's budget ...": the team noun opens the sentence.
  { name: "team_noun_start", pattern: /^(?:the|my) team(?![\p{L}])/iu, personish: true },
  // "Priya said we should migrate": "we" is nominative, so wherever it appears it is a subject.
  { name: "team_we_anywhere", pattern: /(?<![\p{L}'])we(?:'(?:ll|re|ve|d))?(?![\p{L}'])/iu, personish: true },
  // "Yesterday the team decided ...": the team noun followed by a verb or a possessive.
  {
    name: "team_noun_subject",
    pattern: new RegExp(`(?<![\\p{L}])(?:the|our) team(?:'s(?![\\p{L}])| ${SUBJECT_VERB_SOURCE})`, "u"),
    personish: true,
  },
];

/** Named people and organisations that are not known team members. */
export const NAME_RULES: readonly SubjectRule[] = [
  // "Priya prefers tea", "Acme's renewal ...", "Priya, our PM, ...": a name opening the sentence,
  // confirmed by a possessive, a comma or a verb so "Deploys happen" is not taken for a name.
  {
    name: "name_at_start",
    pattern: new RegExp(`^(?<name>${NAME_WORDS})(?='s(?![\\p{L}])|,| ${SUBJECT_VERB_SOURCE})`, "u"),
    personish: true,
    strictStart: true,
  },
  // "... then Priya's manager changed": a capitalised possessive anywhere names the owner.
  {
    name: "name_possessive",
    pattern: new RegExp(`(?<![\\p{L}\\p{M}\\p{N}'])(?<name>${NAME_WORDS})'s(?![\\p{L}])`, "u"),
    personish: true,
  },
  // "The manager of Priya is Tom": an of-possessive in the opening noun phrase.
  {
    name: "name_of_possessive",
    pattern: new RegExp(`^[Tt]he (?:[\\p{Ll}-]{1,30} ){0,2}of (?<name>${NAME_WORDS})(?![\\p{L}])`, "u"),
    personish: true,
  },
];

/** The label reported when no rule above fires and the leading noun phrase is the subject. */
export const TOPIC_RULE_NAME = "topic";
/** The label reported when even the topic is empty (emoji, punctuation, one giant token). */
export const FALLBACK_RULE_NAME = "fallback_general";
/** The subject used when nothing in the text can be a subject. */
export const FALLBACK_SUBJECT = "general";
/** Longest word accepted into a topic: longer runs are hashes, URLs or junk, not topics. */
export const MAX_TOPIC_WORD = 40;
/** How many words a topic may have. */
export const MAX_TOPIC_WORDS = 4;
