/**
 * The predicate lexicon: how many values a relation holds at once. A change statement replaces a
 * fact only where both say the same relation of the same subject, and a relation that holds many
 * values ("supports", "speaks", "has") gains one by "now": it is never replaced by an addition,
 * only by a denial ("no longer supports ...").
 *
 * Records, not regexes: each names its lemmas, its cardinality and why; `preposition` narrows a
 * record to one reading of the verb ("works at" an employer is one value, "works on" a project one
 * of many). A lemma with no record has no known cardinality: the topic rules still decide for it,
 * but the same-relation rule (a new value by itself) does not.
 */

export type Cardinality = "one" | "many";

export interface PredicateRecord {
  lemmas: readonly string[];
  cardinality: Cardinality;
  /** The record applies only with this preposition after the verb ("work at"); else to any. */
  preposition?: string;
  why: string;
}

export const PREDICATES: readonly PredicateRecord[] = [
  { lemmas: ["live", "reside", "base", "locate", "sit", "stay"], cardinality: "one", why: "one home or seat at a time" },
  { lemmas: ["work"], preposition: "at", cardinality: "one", why: "one employer at a time" },
  { lemmas: ["work"], preposition: "for", cardinality: "one", why: "one employer at a time" },
  { lemmas: ["work"], preposition: "from", cardinality: "one", why: "one place or hours of work" },
  { lemmas: ["work"], preposition: "on", cardinality: "many", why: "people work on several things" },
  { lemmas: ["report"], preposition: "to", cardinality: "one", why: "one manager" },
  { lemmas: ["run"], preposition: "on", cardinality: "one", why: "a system runs on one platform or version" },
  { lemmas: ["host"], preposition: "on", cardinality: "one", why: "hosted in one place" },
  { lemmas: ["cost", "charge", "price", "earn", "weigh", "measure"], cardinality: "one", why: "one amount at a time" },
  { lemmas: ["pay"], preposition: "by", cardinality: "one", why: "one way of paying" },
  { lemmas: ["last", "end", "expire", "close", "open", "start", "begin", "launch"], preposition: "on", cardinality: "one", why: "one date" },
  { lemmas: ["last", "end", "expire", "run"], preposition: "until", cardinality: "one", why: "one end date" },
  { lemmas: ["lead", "head", "manage", "chair", "own"], cardinality: "one", why: "one role over a thing; a person's other roles are other subjects' claims" },
  { lemmas: ["meet", "happen", "occur"], preposition: "on", cardinality: "one", why: "a recurring event keeps one slot" },
  {
    lemmas: ["have", "support", "use", "speak", "like", "love", "enjoy", "offer", "sell", "include", "add", "know", "play", "visit", "attend"],
    cardinality: "many",
    why: "a subject has, supports, uses or likes several things: one more is no replacement",
  },
  {
    lemmas: ["integrate", "accept", "serve", "cover", "hire", "collect", "build", "teach", "read", "watch", "ship", "release", "answer"],
    cardinality: "many",
    why: "one more of its objects adds to the others",
  },
  { lemmas: ["allow", "block", "track", "send", "publish", "store", "keep"], cardinality: "many", why: "a rule or a store holds several" },
];

/**
 * Words that say a relation without its verb: "I'd rather have meetings after lunch" prefers, as
 * "I prefer morning meetings" does; "started a new job at Nimbrook" works at Nimbrook. The
 * preposition after the word is the relation's ("job at").
 */
export const RELATION_WORDS: Readonly<Record<string, string>> = { rather: "prefer", favorite: "prefer", favourite: "prefer", job: "work" };

/**
 * Words that make a many-valued relation's value the one there is: "We support only Safari 15 and
 * up" replaces "We support Safari 14 and up", and "Tomás has a new number now" his number, as one
 * more supported browser or one more phone would not.
 */
export const EXCLUSIVE_WORDS: ReadonlySet<string> = new Set(["only", "exclusively", "solely", "new"]);

const byLemma = new Map<string, PredicateRecord[]>();
for (const record of PREDICATES) {
  for (const lemma of record.lemmas) byLemma.set(lemma, [...(byLemma.get(lemma) ?? []), record]);
}

/** The cardinality of a relation (a verb's lemma and the preposition after it, if any); null when unknown. */
export function cardinalityOf(lemma: string, preposition: string | null): Cardinality | null {
  const records = byLemma.get(lemma) ?? [];
  const exact = records.find((r) => r.preposition !== undefined && r.preposition === preposition);
  return (exact ?? records.find((r) => r.preposition === undefined))?.cardinality ?? null;
}

/**
 * Verbs that frame a claim rather than make one: "We decided to use Terraform" claims "use";
 * "We agreed that the SLA is 4 hours" claims "be". The claim is the next verb after them.
 */
export const FRAME_VERBS: ReadonlySet<string> = new Set([
  "decide",
  "agree",
  "choose",
  "plan",
  "vote",
  "confirm",
  "announce",
  "say",
  "think",
  "want",
  "try",
  "continue",
  "keep",
  "go",
  "get",
  "begin",
  "start",
]);
