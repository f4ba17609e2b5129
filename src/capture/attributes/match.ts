/**
 * Reads a claim off the parse with the attribute lexicon: the template whose literal words stand
 * in the sentence (fillers, auxiliaries and negations between them read past) with the most words
 * wins, and its slots give the subject and the value.
 */
import type { Token } from "../tokens";
import { compiledLexicon, type Step, type Template } from "./compile";
import type { AttributeRecord } from "./record";

/** Words read past between a template's words: they say when or how sure, not what. */
const FILLERS: ReadonlySet<string> = new Set([
  "now",
  "just",
  "recently",
  "currently",
  "finally",
  "officially",
  "actually",
  "already",
  "newly",
  "new",
  "still",
  "again",
  "back",
  "then",
  "today",
  "also",
  "permanently",
  "formally",
  "eventually",
  "basically",
  "really",
]);
/** Words that deny what follows, or end it ("no longer"). */
const NEGATIONS: ReadonlySet<string> = new Set(["not", "n't", "never", "no", "longer", "anymore", "nobody"]);
const AUXILIARIES: ReadonlySet<string> = new Set(["be", "have", "do", "get", "will", "would", "'s", "been", "being"]);

export interface LexiconMatch {
  template: Template;
  /** Token spans [from, to) of the slots. */
  subject: readonly [number, number] | null;
  value: readonly [number, number] | null;
  /** Where the matched words start and end. */
  start: number;
  end: number;
  /** A negation stood among or before the matched words. */
  negated: boolean;
  /** "also" stood among the matched words: the fact adds a value. */
  adds: boolean;
  /** The matched verb is in a past form ("lived", "was", "has lived"): what was, not what is. */
  past: boolean;
  /** "will" or "'ll" stands before the matched words: what is to be, not what is. */
  future: boolean;
  /** A slot holds the head of one of the record's nouns ("as on-call lead"). */
  namesAttribute: boolean;
}

/** Whether the token is the step's word (or one of its words). */
const stepIs = (t: Token | undefined, step: Step): boolean =>
  t !== undefined &&
  ("literal" in step ? t.lemma === step.literal || t.lower === step.literal : "anyOf" in step && (step.anyOf.has(t.lemma) || step.anyOf.has(t.lower)));
const POSSESSIVES: ReadonlySet<string> = new Set(["its", "their", "his", "her", "my", "our", "your"]);
const skippable = (t: Token): boolean =>
  FILLERS.has(t.lower) || NEGATIONS.has(t.lower) || AUXILIARIES.has(t.lemma) || t.pos === "DET" || POSSESSIVES.has(t.lower);

/** How far before its anchor a template's first word may stand. */
const ANCHOR_REACH = 8;

/** Every lexicon match in the tokens, best first (see `outranks`). */
export function matchLexicon(tokens: readonly Token[]): LexiconMatch[] {
  const { byAnchor } = compiledLexicon();
  const found: LexiconMatch[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const candidates = t.lemma === t.lower ? byAnchor.get(t.lemma) : [...(byAnchor.get(t.lemma) ?? []), ...(byAnchor.get(t.lower) ?? [])];
    for (const template of candidates ?? []) {
      const first = template.steps.findIndex((s) => !("slot" in s));
      if (first === template.anchor) {
        const match = matchAt(tokens, template, i);
        if (match !== null) found.push(match);
        continue;
      }
      // The anchor stands after the template's first word ("{x} SHIFT {s} NOUN to {v}"): look back for it.
      for (let j = Math.max(0, i - ANCHOR_REACH); j < i; j++) {
        if (!stepIs(tokens[j], template.steps[first]!)) continue;
        const match = matchAt(tokens, template, j);
        if (match !== null) found.push(match);
      }
    }
  }
  return found.sort((a, b) => (outranks(a, b) ? -1 : outranks(b, a) ? 1 : 0));
}

/**
 * More words of the attribute win; then a match whose slots name the record's own nouns ("took
 * over as on-call lead" is the on-call lead's, not the account manager's); then a phrase with a
 * value over a closed state; then the earlier.
 */
function outranks(a: LexiconMatch, b: LexiconMatch): boolean {
  if (a.template.weight !== b.template.weight) return a.template.weight > b.template.weight;
  if (a.namesAttribute !== b.namesAttribute) return a.namesAttribute;
  const stateA = a.template.role === "state";
  if (stateA !== (b.template.role === "state")) return !stateA;
  return a.start < b.start;
}

/** The template matched with its first literal word at token `at`. */
function matchAt(tokens: readonly Token[], template: Template, at: number): LexiconMatch | null {
  const steps = template.steps;
  const firstLiteral = steps.findIndex((s) => !("slot" in s));
  const lead = steps.slice(0, firstLiteral);
  // A template opens with at most one slot (compile.ts), which takes what stands before its first word.
  const spans = new Map<string, [number, number]>();
  const literals: number[] = [];
  if (lead.length === 1) {
    const slot = (lead[0] as { slot: "s" | "v" | "x" }).slot;
    const end = trimBack(tokens, 0, at);
    // "Sprint planning moved to Monday": an attribute named first needs no subject before it;
    // "Traded the Fit in for a Kia": a chat note that opens with a past verb is the speaker's.
    if (end <= 0 && !(slot === "s" && (template.nounFrame || speakerImplied(tokens, at)))) return null;
    const start = phraseStart(tokens, end);
    // "Oliver is on paternity leave": a noun after a preposition is its object, not a subject.
    if (slot === "s" && start > 1 && tokens[start - 1]!.pos === "ADP" && start < end) return null;
    spans.set(slot, [start, end]);
  }
  // A verb phrase's first word used as a noun ("on paternity leave", "service number 3") says nothing.
  if (!template.nounFrame && usedAsNoun(tokens, at)) return null;
  const rest = walk(tokens, steps, firstLiteral, at, spans, literals);
  if (rest === null) {
    if (!template.valueOptional) return null;
    // "Acme churned": an ending with no value.
    const literalsOnly = steps.filter((s) => !("slot" in s && s.slot === "v"));
    const bare = walk(tokens, literalsOnly, firstLiteral, at, spans, literals);
    if (bare === null) return null;
    return finish(tokens, template, spans, at, bare, literals);
  }
  return finish(tokens, template, spans, at, rest, literals);
}

const headsByRecord = new WeakMap<AttributeRecord, ReadonlySet<string>>();

/** The last word of each of a record's nouns and of its name: "lead" for "on-call lead". */
function nounHeads(record: AttributeRecord): ReadonlySet<string> {
  let heads = headsByRecord.get(record);
  if (heads === undefined) {
    heads = new Set([record.attribute, ...(record.nouns ?? [])].map((n) => n.split(" ").at(-1)!));
    headsByRecord.set(record, heads);
  }
  return heads;
}

/** A sentence that opens with a verb in the past tells what its speaker did ("Sold the Civic"). */
function speakerImplied(tokens: readonly Token[], at: number): boolean {
  const t = tokens[at];
  return (
    t !== undefined &&
    tokens.slice(0, at).every((u) => u.pos === "PUNCT") &&
    t.pos === "VERB" &&
    t.lower !== t.lemma &&
    !t.lower.endsWith("s") &&
    !t.lower.endsWith("ing")
  );
}

/** A noun after an article, an adjective or another noun. */
function usedAsNoun(tokens: readonly Token[], at: number): boolean {
  const before = tokens[at - 1];
  return tokens[at]?.pos === "NOUN" && before !== undefined && (before.pos === "DET" || before.pos === "ADJ" || before.pos === "NOUN");
}

/** Matches steps from `si` at token `ti`; returns the token index after the last literal, filling `spans`. */
function walk(
  tokens: readonly Token[],
  steps: readonly Step[],
  si: number,
  ti: number,
  spans: Map<string, [number, number]>,
  literals: number[],
): number | null {
  if (si >= steps.length) return ti;
  const step = steps[si]!;
  if (!("slot" in step)) {
    let k = ti;
    while (k < tokens.length && !stepIs(tokens[k], step) && skippable(tokens[k]!) && k - ti < 3) k++;
    if (!stepIs(tokens[k], step)) return null;
    const after = walk(tokens, steps, si + 1, k + 1, spans, literals);
    if (after !== null) literals.push(k);
    return after;
  }
  if (si === steps.length - 1) {
    // A closing slot takes the rest of the sentence; the value reader trims it.
    if (ti >= tokens.length) return null;
    spans.set(step.slot, [ti, tokens.length]);
    return ti;
  }
  // A slot between words: the shortest span after which the rest matches.
  for (let end = ti + 1; end < tokens.length; end++) {
    const after = walk(tokens, steps, si + 1, end, spans, literals);
    if (after !== null) {
      spans.set(step.slot, [ti, end]);
      return after;
    }
  }
  return null;
}

/** Parts of speech a noun phrase is made of ("Oluwaseun's work email", "the Q3 launch"). */
const PHRASE_POS: ReadonlySet<string> = new Set(["PROPN", "NOUN", "ADJ", "DET", "NUM", "PRON", "X", "SYM"]);
/** Adpositions inside a noun phrase, between two nouns: "sprint planning for Apollo", "the head of sales". */
const PHRASE_ADPOSITIONS: ReadonlySet<string> = new Set(["of", "for"]);

/**
 * A word the tagger read as a verb inside a noun phrase: "the ingest service", "Checkout API calls"
 * (after a noun or article, and before a noun or at the phrase's end).
 */
export function misreadVerb(tokens: readonly Token[], i: number, end: number): boolean {
  const before = tokens[i - 1];
  const after = tokens[i + 1];
  if (tokens[i]!.pos !== "VERB" || before === undefined || !NOMINAL_BEFORE.has(before.pos)) return false;
  // At the phrase's end only a plural-looking word ("Checkout API calls"): "the team asked" is a clause.
  const plural = tokens[i]!.lower.endsWith("s") && !tokens[i]!.lower.endsWith("ss");
  return (i + 1 === end && plural) || after?.pos === "NOUN" || after?.pos === "PROPN";
}

const NOMINAL_BEFORE: ReadonlySet<string> = new Set(["NOUN", "PROPN", "DET", "ADJ"]);

/**
 * Where the noun phrase that ends at `end` starts: a leading slot takes the phrase just before
 * the attribute's words, not the clause before it ("After the migration, Ana's email became ...",
 * "Linda stepped down and Rafael is the new CEO").
 */
function phraseStart(tokens: readonly Token[], end: number): number {
  let start = end;
  while (start > 0) {
    const t = tokens[start - 1]!;
    const glued = !t.spaced || (tokens[start] !== undefined && !tokens[start]!.spaced);
    const inPhrase =
      PHRASE_POS.has(t.pos) ||
      misreadVerb(tokens, start - 1, end) ||
      /^[A-Z]/u.test(t.text) ||
      t.lower === "'s" ||
      t.lower === "'" ||
      t.lower === "-" ||
      t.lower === "&" ||
      (t.text === "." && glued && start < end) ||
      (PHRASE_ADPOSITIONS.has(t.lower) && start < end && (tokens[start - 2]?.pos === "NOUN" || tokens[start - 2]?.pos === "PROPN"));
    if (!inPhrase) break;
    start--;
  }
  return start;
}

/** The end of a leading span without the auxiliaries, fillers and negations before the verb. */
function trimBack(tokens: readonly Token[], from: number, to: number): number {
  let end = to;
  while (end > from && skippable(tokens[end - 1]!) && tokens[end - 1]!.pos !== "PRON") end--;
  return end;
}

function finish(
  tokens: readonly Token[],
  template: Template,
  spans: Map<string, [number, number]>,
  start: number,
  end: number,
  literals: readonly number[],
): LexiconMatch {
  const subject = spans.get("s") ?? null;
  const value = spans.get("v") ?? null;
  const from = subject === null ? start : Math.min(subject[1], start);
  const between = tokens.slice(from, value === null ? end : Math.max(end, value[0]));
  const negated = between.some((t) => NEGATIONS.has(t.lower));
  const adds = between.some((t) => t.lower === "also" || t.lower === "too");
  const past = literals.some((i) => isPast(tokens, i));
  const leading = template.steps[0] !== undefined && "slot" in template.steps[0] ? spans.get(template.steps[0].slot) : undefined;
  const future = tokens.slice(leading === undefined ? 0 : leading[1], start).some((t) => t.lemma === "will" || t.lower === "'ll" || t.lower === "shall");
  const heads = nounHeads(template.record);
  const namesAttribute = [subject, value, spans.get("x") ?? null].some(
    (span) => span !== null && tokens.slice(span[0], span[1]).some((t) => heads.has(t.lower)),
  );
  return { template, subject, value, start, end, negated, adds, past, future, namesAttribute };
}

const PAST_AUXILIARIES: ReadonlySet<string> = new Set(["was", "were", "had", "did", "has", "have", "'ve"]);
const PRESENT_BE: ReadonlySet<string> = new Set(["is", "are", "am", "'s", "'re", "'m", "be"]);

/**
 * Whether the verb at `i` tells of the past: "was", "lived", "ate", "has lived". A participle after
 * a present "be" is a state ("is based in"), not the past.
 */
function isPast(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  if (t.pos !== "VERB" && t.pos !== "AUX") return false;
  if (t.lower === "was" || t.lower === "were") return true;
  if (t.lower === t.lemma || t.lower.endsWith("s") || t.lower.endsWith("ing")) return false;
  let k = i - 1;
  while (k >= 0 && FILLERS.has(tokens[k]!.lower)) k--;
  const before = tokens[k];
  if (before !== undefined && PRESENT_BE.has(before.lower)) return false;
  return before === undefined || PAST_AUXILIARIES.has(before.lower) || t.pos === "VERB";
}
