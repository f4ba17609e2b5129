/**
 * Claim rules written over tokens: the general shapes of attribute statements, and the sentences
 * that name the value they replace ("switched from Postgres to CockroachDB"). Each rule is a
 * record: a token pattern with named slots, how its claim is built, and its exceptions. They run
 * after the older sentence rules in rules/claim.ts, which stay first for the shapes they cover.
 */
import { ATTRIBUTE_HEADS, CURRENCIES, DAYS, SINGLE_VALUED_VERBS, VALUE_HEADS } from "./lexicon";
import { optional, phrase, pos, some, slot, tail, word, lemma, type TokenPattern, type TokenTest } from "./pattern";

export interface TokenClaimRule {
  readonly name: string;
  readonly pattern: TokenPattern;
  /**
   * How the slots make a claim. "attribute": subject + attribute (a fixed `attribute`, or the
   * attribute slot plus its qualifier) = value. "count": the attribute slot counted. "verb": the
   * attribute the verb lexicon gives the verb slot. "schedule": a recurring day or time of the
   * owner's thing. "replacement": the fact names the value it replaces (slot "replaced").
   * "headed": the value's head noun (slot "attribute") is the attribute. "handover": the thing
   * (slot "subject") passed from a giver (the replaced value) to a new holder. "taken": a new
   * holder of the thing's "<noun> owner". "object": a noun phrase (slot "thing") ending in the
   * attribute, and naming its owner first when that is a name or number ("the Q4 priority"),
   * else the actor's own ("we tightened the support SLA"). "decided": a decision whose question
   * is the attribute slot's words ("decided deploy" = wednesday).
   */
  readonly builds: "attribute" | "count" | "verb" | "schedule" | "replacement" | "headed" | "handover" | "taken" | "object" | "decided";
  /** Words one of which the sentence must contain: a cheap check before tagging it. */
  readonly cue: readonly string[];
  /** And one of these too, when `cue` alone is common ("'s" needs a copula as well). */
  readonly cueAlso?: readonly string[];
  readonly attribute?: string;
  /** Words added after the named attribute: "extended to" dates the attribute's "end date". */
  readonly suffix?: string;
  /** The value's head must be one of these lemmas (a currency, a day). */
  readonly valueIn?: ReadonlySet<string>;
  /** Exceptions: the rule makes no claim when any token of the tail passes this test. */
  readonly notIfTail?: TokenTest;
}

/** Verbs that schedule a recurring thing ("releases ship on Tuesdays", "retros happen on Fridays"). */
const SCHEDULE_VERBS = ["ship", "go", "happen", "run", "start", "go out", "deploy", "land", "occur", "release", "take"];

const NOUNISH = ["PROPN", "NOUN", "NUM", "ADJ", "X", "SYM"];
/** A thing and its attribute in one noun phrase: "the Q4 priority", "the guest Wi-Fi password". */
const THING: TokenTest = { pos: ["PROPN", "NOUN", "NUM", "ADJ", "PUNCT"], notWord: [",", ".", ";", ":", "'s"] };
/** Stems of SHIFT_VERBS as written in a sentence, for the cue check. */
const SHIFT_CUES = [
  "chang",
  "set ",
  "moved",
  "updat",
  "raise",
  "lowered",
  "cut ",
  "increas",
  "reduc",
  "bump",
  "push",
  "revise",
  "tighten",
  "loosen",
  "rotat",
  "rename",
  "ramp",
  "slip",
  "extend",
  "shift",
  "reset",
  "dropped",
  "lifted",
  "adjust",
];
/** Verbs of an attribute taking a new value: "changed the Q4 priority to ...", "was renamed to ...". */
const SHIFT_VERBS = [
  "change",
  "set",
  "move",
  "update",
  "raise",
  "lower",
  "cut",
  "increase",
  "reduce",
  "bump",
  "push",
  "revise",
  "tighten",
  "loosen",
  "rotate",
  "rename",
  "ramp",
  "slip",
  "extend",
  "shift",
  "reset",
  "drop",
  "lift",
  "adjust",
];
const THE = optional(pos("DET"));
/** A subject: a name or a noun phrase, or a pronoun the resolver maps ("I", "we"). */
const SUBJECT = phrase("subject", { pos: ["PROPN", "NOUN", "NUM", "PRON"], notWord: ["he", "she", "they", "it", "this", "that"], orWord: ["&"] }, 6);
/** Adverbs and auxiliaries between a subject and its verb ("now", "has", "was"). */
const VERBISH = some({ pos: ["ADV", "AUX", "PART"] }, 3);
const OWN = optional(pos("DET", "PRON"));
const value = (name = "value"): TokenPattern[number] => phrase(name, { pos: NOUNISH, notWord: ["instead", "now"] }, 6);

/**
 * Tried before every other claim rule, being more specific than any: sentences that name the
 * value they replace, and values whose head noun names their attribute.
 */
export const FIRST_RULES: readonly TokenClaimRule[] = [
  {
    // "Orion switched from Postgres to CockroachDB", "Vandelay migrated off Salesforce to HubSpot".
    name: "switched_from_to",
    cue: ["switch", "moved", "move ", "migrat", "chang", "transition", "convert", "upgrad", "downgrad", "went ", "gone ", "transfer", "shift"],
    cueAlso: [" from ", " off "],
    builds: "replacement",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("switch", "move", "migrate", "change", "transition", "convert", "upgrade", "downgrade", "go", "transfer", "shift"),
      some({ pos: ["PRON", "DET", "NOUN", "ADP"], notWord: ["from", "off"] }, 3),
      optional(word("away")),
      word("from", "off"),
      OWN,
      value("replaced"),
      word("to", "onto"),
      OWN,
      value(),
      tail,
    ],
  },
  {
    // "We replaced Datadog with Grafana."
    name: "replaced_with",
    cue: ["replac", "swap"],
    builds: "replacement",
    pattern: [THE, SUBJECT, VERBISH, lemma("replace", "swap"), OWN, value("replaced"), word("with", "for"), OWN, value(), tail],
  },
  {
    // "Hannah traded in her Civic for a Rivian R1S", "I sold the Mazda and bought a Polestar 2".
    name: "traded_for",
    cue: ["trade", "sold", "sell", "drop", "ditch", "dump", "quit"],
    builds: "replacement",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("trade", "sell", "drop", "ditch", "dump", "quit"),
      optional(word("in")),
      OWN,
      value("replaced"),
      word("for", "and"),
      some({ pos: ["ADV", "AUX", "VERB", "ADP", "DET", "PART", "PRON", "SCONJ"] }, 5),
      value(),
      tail,
    ],
  },
  {
    // "Quantum Foods now buys direct instead of through Ingram".
    name: "instead_of",
    cue: ["instead of"],
    builds: "replacement",
    pattern: [
      THE,
      SUBJECT,
      some({}, 10),
      phrase("value", { pos: [...NOUNISH, "ADV"], notWord: ["instead", "now"] }, 6),
      word("instead"),
      word("of"),
      optional(pos("ADP")),
      OWN,
      value("replaced"),
      tail,
    ],
  },
  {
    // "Camille handed Project Tamarind over to Emeka": the thing's holder was Camille, is now Emeka.
    name: "handed_over",
    cue: ["handed", "hands ", "passed", "transferred"],
    cueAlso: [" to "],
    builds: "handover",
    pattern: [
      phrase("giver", { pos: ["PROPN"] }, 3),
      VERBISH,
      lemma("hand", "pass", "transfer"),
      optional(word("over")),
      THE,
      phrase("subject", { pos: ["PROPN", "NOUN", "NUM", "ADJ"], notWord: ["lead", "ownership", "owner"] }, 5),
      optional(word("lead", "ownership")),
      optional(word("over")),
      word("to"),
      value(),
      tail,
    ],
  },
  {
    // "Noah's visa was extended to May 2027": the visa's end date, as "expires on" says it.
    name: "possessive_extended",
    cue: ["extended", "renewed"],
    builds: "attribute",
    suffix: "end date",
    pattern: [
      SUBJECT,
      word("'s", "'"),
      phrase("attribute", { pos: ["NOUN", "ADJ", "PROPN"] }, 3),
      VERBISH,
      lemma("extend", "renew"),
      word("to", "until", "through", "till"),
      slot("value", undefined, 6),
    ],
  },
  {
    // "Peter is based in the London office", "Sofia transferred to the Platform team": the office, the team.
    name: "headed_value",
    cue: [...VALUE_HEADS].map((head) => ` ${head}`),
    cueAlso: [" is ", " are ", " was ", "based", "work", " sit", "moved", "transfer", "switch", "join", "relocat", "assign", " put "],
    builds: "headed",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("be", "base", "work", "sit", "move", "transfer", "switch", "join", "relocate", "go", "put", "assign", "reassign"),
      some({ word: ["in", "out", "of", "to", "into", "on", "at", "from", "onto"] }, 2),
      pos("DET"),
      phrase("value", { pos: ["PROPN", "NOUN", "ADJ", "NUM"] }, 4),
      slot("attribute", { lemma: [...VALUE_HEADS] }, 1),
      tail,
    ],
    notIfTail: { word: ["too", "also", "and"] },
  },
];

/** The general shapes of attribute statements: tried when no sentence rule matched. */
export const ATTRIBUTE_RULES: readonly TokenClaimRule[] = [
  {
    // "Carlos's preferred language for meetings is English": an attribute qualified by what it is for.
    name: "possessive_qualified",
    cue: ["'s ", "' "],
    cueAlso: [" is ", " are ", " was "],
    builds: "attribute",
    pattern: [
      SUBJECT,
      word("'s", "'"),
      phrase("attribute", { pos: ["ADJ", "NOUN", "VERB"] }, 3),
      slot("link", { pos: ["ADP"] }, 1),
      OWN,
      phrase("qualifier", { pos: ["NOUN", "PROPN"] }, 3),
      lemma("be"),
      optional(word("now")),
      slot("value", undefined, 8),
    ],
  },
  {
    // "Aoife got a new number: 086 555 7710".
    name: "got_new_attribute",
    cue: [" new "],
    cueAlso: [" got ", " has ", " have ", " gets "],
    builds: "attribute",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("get", "have"),
      word("a"),
      word("new"),
      phrase("attribute", { pos: ["NOUN", "ADJ"] }, 3),
      word(":", ",", "-", "of"),
      slot("value", undefined, 8),
    ],
  },
  {
    // "Tina took over the Hooli account": the account's owner.
    name: "took_over",
    cue: ["took over", "takes over", "taking over", "take over", "taken over"],
    builds: "taken",
    pattern: [
      phrase("value", { pos: ["PROPN"] }, 3),
      VERBISH,
      lemma("take"),
      word("over"),
      THE,
      phrase("subject", { pos: ["PROPN", "NOUN", "NUM"] }, 4),
      slot("attribute", { lemma: ["account", "project", "team", "deal", "relationship"] }, 1),
      tail,
    ],
  },
  {
    // "The reporting pipeline is written in Scala" -> "was rewritten in Elixir".
    name: "written_in",
    cue: ["written", "built", "implemented", "coded", "ported"],
    builds: "attribute",
    attribute: "language",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("write", "rewrite", "build", "rebuild", "implement", "reimplement", "code", "port"),
      word("in", "with", "to", "using"),
      OWN,
      phrase("value", { pos: [...NOUNISH, "VERB"], notWord: ["instead", "now"] }, 4),
      tail,
    ],
    notIfTail: { word: ["and", "too", "also"] },
  },
  {
    // "The inventory sync runs every 15 minutes" -> "was changed to run every 5 minutes".
    name: "runs_every",
    cue: ["every", "hourly", "daily", "nightly", "weekly"],
    builds: "attribute",
    attribute: "frequency",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      optional(lemma("change", "set", "move", "switch")),
      optional(word("to")),
      lemma("run", "sync", "execute", "fire", "poll", "refresh", "back"),
      optional(word("up")),
      slot("value", { notWord: ["and"] }, 4),
    ],
    valueIn: new Set(["minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "hourly", "daily", "nightly", "weekly", "second", "seconds"]),
  },
  {
    // "Ingrid's birthday falls on 9 October".
    name: "possessive_falls_on",
    cue: ["falls on", "lands on", "fell on"],
    builds: "attribute",
    pattern: [
      SUBJECT,
      word("'s", "'"),
      phrase("attribute", { pos: ["NOUN", "ADJ", "PROPN"] }, 3),
      lemma("fall", "land"),
      word("on"),
      slot("value", undefined, 6),
    ],
  },
  {
    // "Lumen AI crossed $2M ARR this quarter".
    name: "reached_amount",
    cue: ["crossed", "hit ", "reached", "passed", "topped", "surpassed"],
    builds: "attribute",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("cross", "hit", "reach", "pass", "top", "surpass"),
      phrase("value", { pos: ["SYM", "NUM"], orWord: ["k", "m", "b", "bn", "million", "billion", "thousand"] }, 4),
      phrase("attribute", { pos: ["PROPN", "NOUN"] }, 2),
      tail,
    ],
  },
  {
    // "Leadership changed the Q4 priority to reducing churn", "We tightened the support SLA to 8 hours".
    name: "changed_the_attribute",
    cue: SHIFT_CUES,
    cueAlso: [" to "],
    builds: "object",
    pattern: [
      THE,
      phrase("actor", { pos: ["PROPN", "NOUN", "PRON"] }, 4),
      VERBISH,
      lemma(...SHIFT_VERBS),
      pos("DET"),
      phrase("thing", THING, 5),
      word("to"),
      OWN,
      slot("value", undefined, 8),
    ],
  },
  {
    // "The Pegasus repo was renamed to acme/pegasus-core", "SOC 2 target date slipped to mid-Q3".
    name: "attribute_shifted",
    cue: SHIFT_CUES,
    cueAlso: [" to "],
    builds: "object",
    pattern: [THE, phrase("thing", THING, 5), VERBISH, lemma(...SHIFT_VERBS), word("to"), OWN, slot("value", undefined, 8)],
  },
  {
    // "I work as a financial controller now": a role.
    name: "works_as",
    cue: [" as "],
    cueAlso: ["work", "serv", "start"],
    builds: "attribute",
    attribute: "role",
    pattern: [THE, SUBJECT, VERBISH, lemma("work", "serve", "start"), word("as"), OWN, phrase("value", { pos: ["NOUN", "ADJ", "PROPN"] }, 4), tail],
    notIfTail: { word: ["and", "too", "also", "well"] },
  },
  {
    // "Fenwick & Gale belongs to Crestline Group" -> "was sold to Arbor Equity".
    name: "belongs_to",
    cue: ["belong", "sold", "acquired", "bought"],
    builds: "attribute",
    attribute: "owner",
    pattern: [THE, SUBJECT, VERBISH, lemma("belong", "sell", "acquire", "buy"), word("to", "by"), OWN, value(), tail],
  },
  {
    // "We settled on Wednesday deploys": the deploys' day is decided.
    name: "settled_on",
    cue: ["settled", "opted", "went with", "going with"],
    builds: "decided",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("settle", "opt", "go"),
      word("on", "for", "with"),
      phrase("value", { pos: ["PROPN", "ADJ", "NUM"], orWord: ["weekly", "daily", "monthly", "quarterly", "biweekly", "nightly"] }, 3),
      slot("attribute", { pos: ["NOUN", "VERB"] }, 1),
      tail,
    ],
  },
  {
    // "We picked Vercel to host the marketing site": what is picked for that job.
    name: "picked_to",
    cue: ["picked", "chose", "selected", "chosen"],
    builds: "decided",
    pattern: [THE, SUBJECT, VERBISH, lemma("pick", "choose", "select"), value(), word("to"), slot("attribute", undefined, 8)],
  },
  {
    // "Launch comms will go out via email": the channel something goes out through.
    name: "goes_out_via",
    cue: [" via "],
    builds: "attribute",
    attribute: "channel",
    pattern: [THE, SUBJECT, VERBISH, lemma("go", "send", "be", "get"), optional(word("out", "sent")), word("via", "through", "over"), OWN, value(), tail],
  },
  {
    // "Acme has 50 seats on the team plan", "Ibrahim has two kids".
    name: "has_count",
    cue: ["has ", "have "],
    cueAlso: [..."0123456789", " one ", " two ", " three ", " four ", " five ", " six ", " seven ", " eight ", " nine ", " ten ", " a dozen "],
    builds: "count",
    pattern: [
      THE,
      SUBJECT,
      VERBISH,
      lemma("have"),
      optional(word("about", "around", "roughly", "approximately", "nearly", "over", "almost")),
      slot("value", { pos: ["NUM"] }, 2),
      phrase("attribute", { pos: ["NOUN", "ADJ"] }, 3),
      tail,
    ],
    notIfTail: { word: ["more", "left", "extra", "additional", "each", "per"] },
  },
  {
    // "Stark Logistics is up to roughly 340 employees", "the billing revamp is down to 4 engineers".
    name: "count_now",
    cue: [" up to ", " down to "],
    builds: "count",
    pattern: [
      THE,
      SUBJECT,
      lemma("be"),
      optional(word("now")),
      word("up", "down"),
      word("to"),
      optional(word("about", "around", "roughly", "approximately", "nearly")),
      slot("value", { pos: ["NUM"] }, 2),
      phrase("attribute", { pos: ["NOUN", "ADJ"] }, 3),
      tail,
    ],
  },
  {
    // "Hannah drives a Toyota Corolla": the verb names the attribute (a lexicon of single-valued verbs).
    name: "single_valued_verb",
    cue: Object.keys(SINGLE_VALUED_VERBS),
    builds: "verb",
    pattern: [THE, SUBJECT, VERBISH, slot("verb", { lemma: Object.keys(SINGLE_VALUED_VERBS), pos: ["VERB"] }, 1), OWN, value(), tail],
  },
  {
    // "Initech pays its invoices in euros", "asked to be billed in USD".
    name: "pays_in",
    cue: [" in "],
    cueAlso: ["pay", "bill", "invoic", "charg", "quot"],
    builds: "attribute",
    attribute: "billing currency",
    valueIn: CURRENCIES,
    pattern: [
      THE,
      SUBJECT,
      some({ pos: ["ADV", "AUX", "VERB", "PART"] }, 4),
      lemma("pay", "bill", "invoice", "charge", "quote"),
      OWN,
      some({ pos: ["NOUN"] }, 2),
      word("in"),
      OWN,
      value(),
      tail,
    ],
  },
  {
    // "Acme releases ship on Tuesdays": a plural thing's recurring day.
    name: "plural_schedule",
    cue: [...DAYS],
    builds: "schedule",
    valueIn: DAYS,
    pattern: [
      THE,
      phrase("owner", { pos: ["PROPN", "ADJ"] }, 3),
      slot("thing", { pos: ["NOUN"] }, 1),
      optional(word("now")),
      lemma(...SCHEDULE_VERBS),
      optional(word("out")),
      optional(word("on", "every")),
      phrase("value", { pos: ["PROPN", "NOUN"] }, 2),
      optional(word("now")),
      tail,
    ],
    notIfTail: { word: ["too", "also"] },
  },
  {
    // "The office Wi-Fi password is bluefinch77": a thing's attribute named by its head noun.
    name: "compound_attribute_head",
    cue: [...ATTRIBUTE_HEADS].flatMap((head) => [`${head} is `, `${head} was `, `${head} are `, `${head} is now`]),
    builds: "attribute",
    pattern: [
      THE,
      phrase("subject", { pos: ["PROPN", "NOUN", "ADJ", "PUNCT"], notWord: [",", ".", ";", ":"] }, 5),
      slot("attribute", { lemma: [...ATTRIBUTE_HEADS] }, 1),
      lemma("be"),
      optional(word("now")),
      slot("value", undefined, 8),
    ],
  },
];
