/**
 * The relation a statement claims of its subject, read from its tagged tokens: "The staging
 * database runs PostgreSQL 15" claims "run" (value "PostgreSQL 15"); "... now has nightly backups"
 * claims "have". Two statements make the same claim only where they say the same relation; a
 * change word never stands in for it (capture/change.ts).
 */
import { openingOf } from "./statement";
import type { Token } from "./tokens";
import { CHANGE_VERBS } from "./rules/lexicon";
import { cardinalityOf, EXCLUSIVE_WORDS, FRAME_VERBS, RELATION_WORDS, type Cardinality } from "./rules/predicates";

export interface Predicate {
  /** The verb's dictionary form ("run", "be", "have"). */
  lemma: string;
  /** The preposition right after the verb (adverbs skipped): "runs on", "is in", "reports to"; null when none. */
  preposition: string | null;
  /** Whether the verb is a copula with no verb after it ("is in beta", "is the head of sales"). */
  copula: boolean;
  cardinality: Cardinality | null;
  /** Whether the statement denies the relation ("no longer", "not", "never", "stopped"). */
  negated: boolean;
  /** Whether the verb says a change itself ("moved", "renamed", "switched"): what changed is in its object. */
  change: boolean;
  /** Whether the statement makes its values exclusive ("supports only Safari 15"). */
  exclusive: boolean;
  /** The nouns it counts ("18 stores": "store"): a count is one value whatever the verb. */
  counted: ReadonlySet<string>;
  /** Every lemma of the statement, to meet a relation said as a noun or adjective ("preferred time" and "prefers"). */
  lemmas: ReadonlySet<string>;
}

/** Frames that take a clause ("decided the team uses ..."), not only a verb right after them. */
const CLAUSE_FRAMES: ReadonlySet<string> = new Set(["decide", "agree", "choose", "plan", "vote", "confirm", "announce", "say", "think"]);
const DENIALS: ReadonlySet<string> = new Set(["not", "n't", "never", "longer", "anymore", "stop", "quit", "cease", "drop"]);
const SKIPPED: ReadonlySet<string> = new Set(["ADV", "PART"]);

const predicates = new WeakMap<readonly Token[], Predicate | null>();

/** The statement's predicate: the first verb after its subject that is not a frame, or null when it has none. */
export function predicateOf(tokens: readonly Token[]): Predicate | null {
  let known = predicates.get(tokens);
  if (known === undefined) {
    known = readPredicate(tokens);
    predicates.set(tokens, known);
  }
  return known;
}

function readPredicate(tokens: readonly Token[]): Predicate | null {
  const start = Math.max(0, tokens.indexOf(openingOf(tokens) ?? tokens[0]!));
  const lemmas = new Set(tokens.map((t) => t.lemma));
  const negated = tokens.some((t) => DENIALS.has(t.lemma) || DENIALS.has(t.lower));
  let copula: Token | null = null;
  for (let i = start; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos === "AUX" && (t.lemma === "be" || t.lemma === "have")) {
      copula ??= t;
      const next = nextWord(tokens, i);
      if (next !== null && next.token.pos !== "VERB") return predicate(t.lemma, tokens, next.at, true, negated, lemmas);
      continue;
    }
    if (t.pos !== "VERB") continue;
    if (isFrame(tokens, i)) continue;
    return predicate(t.lemma, tokens, i + 1, false, negated, lemmas);
  }
  return copula === null ? null : predicate(copula.lemma, tokens, tokens.indexOf(copula) + 1, true, negated, lemmas);
}

function predicate(verb: string, tokens: readonly Token[], after: number, copula: boolean, negated: boolean, lemmas: ReadonlySet<string>): Predicate {
  const saidAt = tokens.findIndex((t) => RELATION_WORDS[t.lower] !== undefined);
  const said = tokens[saidAt];
  let at = said === undefined ? after : saidAt + 1;
  while (tokens[at] !== undefined && SKIPPED.has(tokens[at]!.pos)) at += 1;
  const preposition = tokens[at]?.pos === "ADP" ? tokens[at]!.lower : null;
  const lemma = said === undefined ? verb : RELATION_WORDS[said.lower]!;
  return {
    lemma,
    preposition,
    copula: copula && said === undefined,
    cardinality: cardinalityOf(lemma, preposition),
    negated,
    change: CHANGE_VERBS[lemma] !== undefined,
    exclusive: tokens.some((t) => EXCLUSIVE_WORDS.has(t.lower)),
    counted: new Set(tokens.filter((t, i) => t.pos === "NOUN" && tokens[i - 1]?.pos === "NUM").map((t) => t.lemma)),
    lemmas,
  };
}

/** The next token that is no adverb or particle ("is now in beta": "in"). */
function nextWord(tokens: readonly Token[], i: number): { token: Token; at: number } | null {
  for (let at = i + 1; at < tokens.length; at++) if (!SKIPPED.has(tokens[at]!.pos)) return { token: tokens[at]!, at };
  return null;
}

/**
 * Whether the verb at `i` frames the claim: "decided to use", "agreed that the SLA is", "started
 * eating fish". "Started a weekly check-in" is no frame: its object follows.
 */
function isFrame(tokens: readonly Token[], i: number): boolean {
  const lemma = tokens[i]!.lemma;
  if (!FRAME_VERBS.has(lemma)) return false;
  const later = tokens.slice(i + 1).some((t) => t.pos === "VERB" || (t.pos === "AUX" && t.lemma === "be"));
  if (CLAUSE_FRAMES.has(lemma)) return later;
  const next = nextWord(tokens, i);
  return next !== null && (next.token.pos === "VERB" || tokens[i + 1]?.lower === "to") && later;
}

/**
 * Whether two statements say the same relation of their subject, so that one may replace the
 * other: the same verb (or one's verb named in the other, "prefers" and "preferred time"), never
 * a relation that holds many values unless the newer denies it or makes it exclusive. A copula
 * ("is") meets any relation, as do two counts of one thing ("operates 18 stores", "now has 15
 * stores"), a verb of change ("moved", "renamed") and a denial either way ("no longer uses", or
 * "launch a free tier after all" after "will not offer one"): what they change is in their words,
 * which the topic, shape and direction rules compare.
 */
export function relationsMeet(newer: Predicate | null, older: Predicate | null): boolean {
  if (newer === null || older === null) return true;
  if (newer.negated || older.negated || newer.change) return true;
  if ([...newer.counted].some((noun) => older.counted.has(noun))) return true;
  if (newer.cardinality === "many" && !newer.exclusive && !newer.copula) return false;
  if (newer.copula || older.copula) return true;
  return newer.lemma === older.lemma || older.lemmas.has(newer.lemma) || newer.lemmas.has(older.lemma);
}

/**
 * Whether the newer statement gives another value of the same one-valued relation: "now runs on
 * OpenSearch 2" after "runs on Elasticsearch 7", "now pays by credit card" after "pays by wire".
 */
export function sameOneValuedRelation(newer: Predicate | null, older: Predicate | null): boolean {
  return (
    newer !== null &&
    older !== null &&
    !newer.copula &&
    !older.copula &&
    newer.lemma === older.lemma &&
    newer.preposition === older.preposition &&
    newer.cardinality === "one"
  );
}
