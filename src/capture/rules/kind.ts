import type { FactKind } from "../../schema/memory";
import { anyOf, type Rule } from "./rule";

/**
 * Kind classification. The table order is the precedence: decision, then preference, then
 * profile fact; no match means observation. All patterns are case-insensitive word matches
 * without nested quantifiers.
 *
 * The profile rule (documented decision): "is a/an/the", "works at", "lives in" and friends make a
 * profile fact only when the subject is a person, organisation or team (an end user, a team member,
 * a name, "we", or a personal pronoun). Attributes that only people and organisations have
 * (manager, birthday, age, email, phone, renewal date, ...) are profile facts whatever the subject.
 * So "The API is a bottleneck" and "The config lives in /etc" stay observations.
 */
export interface KindRule extends Rule {
  readonly kind: Exclude<FactKind, "observation">;
  /** The rule does not fire when this also matches ("haven't decided yet"). */
  readonly unless?: RegExp;
  /** Fires only when the subject is a person, organisation or team. */
  readonly needsPerson?: boolean;
}

/** "not", "n't", "never", "yet to" just before the verb undo a decision. */
const NOT_BEFORE = "(?:\\bnot|n't|\\bnever|\\byet to|\\bto be)(?: yet| been| really| fully| formally)?";
/** "haven't decided", "not yet approved", "never agreed", "yet to be chosen": no decision was made. */
const NOT_DECIDED = new RegExp(`${NOT_BEFORE} (?:decided|agreed|chosen|approved)\\b`, "i");
const ADOPT = "(?:use|adopt|go with|switch to|move to|migrate to|standardi[sz]e on|stick with|deprecate|sunset)";
/** Subjects that can decide: "we", "let's", "I'll", "the team will". */
const DECIDER = "(?:we're|we are|we'll|we will|we|let's|i'm|i am|i'll|team is|team will)";
/** What a manager that is software, not a person, manages: "package manager", "secrets manager". */
const MANAGED_THING = anyOf([
  "package",
  "password",
  "window",
  "secrets?",
  "dependency",
  "task",
  "process",
  "memory",
  "connection",
  "version",
  "state",
  "file",
  "display",
  "session",
  "cache",
  "resource",
  "device",
  "download",
  "network",
  "service",
  "boot",
  "config",
  "certificate",
  "credential",
  "plugin",
  "extension",
  "node",
  "cluster",
  "environment",
  "queue",
  "job",
  "lock",
  "transaction",
  "event",
  "context",
]);
const PERSONAL_ATTRIBUTE = anyOf([
  "manager",
  "boss",
  "role",
  "job",
  "title",
  "position",
  "occupation",
  "age",
  "birthday",
  "hometown",
  "pronouns",
  "wife",
  "husband",
  "partner",
  "spouse",
  "kids",
  "children",
  "son",
  "daughter",
  "mother",
  "father",
  "mom",
  "dad",
]);

export const KIND_RULES: readonly KindRule[] = [
  // "Decision: ship on Fridays": an explicit label.
  { name: "decision_label", kind: "decision", pattern: /^decisions?:/i },
  // "We decided to use Postgres", "the decision is to wait"; "we haven't decided" is not one.
  {
    name: "decided",
    kind: "decision",
    pattern: /\bdecided\b|\b(?:the|our|final) decision (?:is|was)\b|\bmade (?:a|the) decision\b/i,
    unless: NOT_DECIDED,
  },
  // "We agreed to freeze deploys"; "they never agreed" is not a decision.
  {
    name: "agreed",
    kind: "decision",
    pattern: /\bagreed\b|\b(?:we|all) agree (?:to|on|that)\b/i,
    unless: NOT_DECIDED,
  },
  // "We chose Bun", "Postgres was chosen".
  { name: "chose", kind: "decision", pattern: /\b(?:chose|chosen)\b/i, unless: NOT_DECIDED },
  // "We will use Postgres", "we'll migrate to Bun": a committed future choice of tool or direction.
  {
    name: "will_use",
    kind: "decision",
    pattern: new RegExp(`(?:\\b(?:will|shall|are going to|is going to|am going to)|'ll) ${ADOPT}\\b`, "i"),
  },
  // "The budget was approved", "Priya approved the design"; "not approved yet" is not one.
  { name: "approved", kind: "decision", pattern: /\bapproved\b/i, unless: NOT_DECIDED },
  // "Legal signed off on the contract", "the launch was green-lit".
  { name: "signed_off", kind: "decision", pattern: /\bsign(?:ed|s)?[- ]off\b|\bgreen[- ]?lit\b/i },
  // "We settled on weekly releases".
  { name: "settled_on", kind: "decision", pattern: /\bsettled on\b/i },
  // "We're going with Stripe", "let's go with option B": only with a deciding subject, so
  // "Priya went with Tom to the conference" is not a decision.
  {
    name: "going_with",
    kind: "decision",
    pattern: new RegExp(`\\b${DECIDER} (?:going with|go with|went with|switching to|switched to|migrating to|moving to)\\b`, "i"),
  },
  // "We opted for monthly billing".
  { name: "opted_for", kind: "decision", pattern: /\bopted (?:for|to|out)\b/i },
  // "From now on, deploys happen on Tuesdays", "the plan is to migrate in Q3": a standing rule.
  {
    name: "standing_rule",
    kind: "decision",
    pattern: /\b(?:from now on|going forward|effective immediately|henceforth)\b|\b(?:the|our) (?:plan|policy|rule) is (?:to|that)\b|\bruled out\b|\bvetoed\b/i,
  },

  // "Priya prefers async updates", "her preference is email".
  { name: "prefers", kind: "preference", pattern: /\bprefer(?:s|red|ring|ence|ences)?\b/i },
  // "Priya likes hiking", "a big fan of Go", "I'd like", "doesn't like meetings" (still a preference).
  {
    name: "likes",
    kind: "preference",
    pattern: /\b(?:likes|liked|enjoys?|enjoyed|adores?|fond of|fan of)\b|(?:\b(?:i|we|they|you|would|really|not)|'d|n't) like\b/i,
  },
  // "Priya loves Thai food".
  { name: "loves", kind: "preference", pattern: /\b(?:love|loves|loved|loving)\b/i },
  // "Tom hates long meetings", "can't stand Jira".
  {
    name: "dislikes",
    kind: "preference",
    pattern: /\b(?:dislikes?|disliked|hates?|hated|detests?|loathes?)\b|\b(?:can't|cannot|can not) (?:stand|bear)\b/i,
  },
  // "The customer wants weekly reports", "I wish standups were shorter".
  { name: "wants", kind: "preference", pattern: /\b(?:wants?|wanted|wish|wishes|wished|hopes? to)\b/i },
  // "Her favourite editor is Vim".
  { name: "favourite", kind: "preference", pattern: /\bfavou?rites?\b/i },
  // "She'd rather meet in person", "Slack rather than email".
  { name: "rather", kind: "preference", pattern: /(?:\bwould|'d) rather\b|\brather than\b/i },
  // "Please don't call before 10": a standing request is a preference of whoever made it.
  { name: "please_request", kind: "preference", pattern: /\bplease (?:don't|do not|avoid|always|never)\b/i },

  // "Priya's manager is Tom" (but not "the package manager is npm").
  {
    name: "manager",
    kind: "profile_fact",
    pattern: /\b(?:manager|boss|supervisor|team lead|tech lead) (?:is|was|of)\b|\b(?:manager|boss):|\bmanaged by\b/i,
    unless: new RegExp(`\\b${MANAGED_THING} manager\\b`, "i"),
  },
  // "born in Lisbon", "her birthday is May 3".
  { name: "born", kind: "profile_fact", pattern: /\bborn (?:in|on|at)\b|\bbirthday\b|\bdate of birth\b|\bbirth ?date\b/i },
  // "Priya is 34 years old", "aged 40".
  { name: "age", kind: "profile_fact", pattern: /\b\d{1,3} years? old\b|\baged? \d{1,3}\b|\bage (?:is|was)\b/i },
  // "Her email is ...", "Acme's phone number: ...".
  {
    name: "contact_detail",
    kind: "profile_fact",
    pattern: /\b(?:e-?mail|email address|phone|phone number|mobile|cell|address|handle|username)(?: is| was|:)/i,
  },
  // "My manager ...", "his job ...": a possessive pronoun on a personal attribute.
  {
    name: "pronoun_attribute",
    kind: "profile_fact",
    pattern: new RegExp(`\\b(?:my|his|her|their) ${PERSONAL_ATTRIBUTE}\\b`, "i"),
  },
  // "Priya is married", "her husband Tom".
  { name: "family_status", kind: "profile_fact", pattern: /\b(?:married|divorced|widowed|engaged to|husband|wife|spouse|fianc[eé]e?)\b/i },
  // "Priya studied at MIT", "a degree in physics".
  {
    name: "education",
    kind: "profile_fact",
    pattern: /\b(?:studied|graduated|majored) (?:at|from|in)\b|\b(?:degree|phd|mba) (?:in|from)\b|\balma mater\b/i,
  },
  // "Acme's renewal date is May 1", "their contract ends in June", "founded in 2009".
  {
    name: "organisation_terms",
    kind: "profile_fact",
    pattern: new RegExp(
      [
        "\\b(?:renewal|contract|subscription|plan|tier) (?:date|term|ends?|renews?|expires?|is|was)\\b",
        "\\brenews? (?:on|in)\\b",
        "\\b(?:headquartered|incorporated|founded) (?:in|on)\\b",
        "\\bheadcount\\b",
      ].join("|"),
      "i",
    ),
  },
  // "Priya is a designer", "Acme is an enterprise customer" (person subjects only, see above).
  { name: "is_a", kind: "profile_fact", pattern: /(?:\b(?:is|am|are|was)|'s|'m|'re) (?:a|an|the) /i, needsPerson: true },
  // "Priya works at Acme", "employed by".
  { name: "works_at", kind: "profile_fact", pattern: /\b(?:works?|working|worked|employed) (?:at|for|as|by)\b/i, needsPerson: true },
  // "Priya lives in Lisbon", "Acme is based in Berlin", "moved to Oslo".
  {
    name: "lives_in",
    kind: "profile_fact",
    pattern: /\b(?:lives?|living|lived|resides?|residing) in\b|\bbased (?:in|out of)\b|\bmoved to\b|\bgrew up in\b|\bhometown\b/i,
    needsPerson: true,
  },
  // "Priya reports to Tom".
  { name: "reports_to", kind: "profile_fact", pattern: /\breports? (?:directly )?to\b/i, needsPerson: true },
  // "Priya speaks Hindi", "fluent in German".
  { name: "speaks", kind: "profile_fact", pattern: /\bspeaks?\b|\bfluent in\b|\bnative (?:speaker|language)\b/i, needsPerson: true },
  // "Priya is from India": case-sensitive so a capitalised place follows ("from home" is not one).
  { name: "from_place", kind: "profile_fact", pattern: /\b(?:is|am|are|was|comes?|came|originally) from \p{Lu}/u, needsPerson: true },
  // "Priya has two kids".
  {
    name: "family",
    kind: "profile_fact",
    pattern:
      /\b(?:has|have|had) (?:a|an|one|two|three|four|five|\d{1,2}) (?:kids?|children|sons?|daughters?|pets?|dogs?|cats?|siblings?|brothers?|sisters?)\b/i,
    needsPerson: true,
  },
  // "Priya's role is staff engineer", "his title: VP Sales".
  {
    name: "role_attribute",
    kind: "profile_fact",
    pattern: /\b(?:role|title|job|position|occupation|profession|department|pronouns|nationality|time ?zone)(?: is| was|:)/i,
    needsPerson: true,
  },
];

/** The kind when nothing above fires. */
export const DEFAULT_KIND_RULE = "default_observation";
