/**
 * The token layer: each sentence is tokenised and tagged once (wink-nlp with its English model),
 * and claim patterns read tokens instead of characters. A name is a proper noun and is never
 * stemmed or de-pluralised: "Adams" stays "adams".
 *
 * Trade-off: the small web model is fast (tens of microseconds a fact) but misreads a few shapes
 * our facts use all the time; the fix-ups below correct those as data, each with its reason.
 */
import type { Model, WinkMethods } from "wink-nlp";

export interface Token {
  /** As written. */
  text: string;
  /** Lower-cased. */
  lower: string;
  /** Dictionary form, lower-cased; a name's is its lower-cased text. */
  lemma: string;
  /** Whether whitespace came before it, so a span can be written back as it was. */
  spaced: boolean;
  /** Universal part of speech: NOUN, PROPN, VERB, AUX, ADP, DET, NUM, PRON, ADJ, ADV, PART, PUNCT, ... */
  pos: string;
}

let loaded: { nlp: WinkMethods; its: WinkMethods["its"] } | null = null;

/**
 * The model loads on first use (about 0.2 s and 30 MB), so commands and requests that never
 * capture never pay for it; `require` keeps the library and its model out of the import graph until then.
 *
 * Only the part-of-speech step runs (lemmas come with it): sentence boundaries, entities,
 * negation and sentiment were half of the tagging time, capture reads none of them, and the
 * tagger's POS step does not read them either (tokens, tags, lemmas and spacing are identical
 * over 22,517 LoCoMo, LongMemEval, labelled and synthetic texts).
 */
function tagger(): { nlp: WinkMethods; its: WinkMethods["its"] } {
  if (loaded === null) {
    type WinkNLP = (model: Model, pipe?: string[]) => WinkMethods;
    const library = require("wink-nlp") as WinkNLP & { default?: WinkNLP };
    const winkNLP = library.default ?? library;
    const model = require("wink-eng-lite-web-model") as { default?: Model } & Model;
    const nlp = winkNLP(model.default ?? model, ["pos"]);
    loaded = { nlp, its: nlp.its };
  }
  return loaded;
}

/**
 * Recently tagged sentences, least recently used first. A change statement is compared with up to
 * fifty recent facts of its scope, and the next statement of the same scope meets most of them
 * again: tagging is most of capture's CPU, so the cache holds a few thousand sentences (a few MB).
 */
const recent = new Map<string, readonly Token[]>();
const RECENT_MAX = 4096;

/** Tokens of one sentence, tagged, with the fix-ups applied. */
export function tokenize(sentence: string): readonly Token[] {
  const known = recent.get(sentence);
  if (known !== undefined) {
    recent.delete(sentence);
    recent.set(sentence, known);
    return known;
  }
  const tagged = tag(sentence);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
  recent.set(sentence, tagged);
  return tagged;
}

function tag(sentence: string): Token[] {
  const { nlp, its } = tagger();
  const doc = nlp.readDoc(sentence);
  const tokens = doc.tokens();
  const text = tokens.out() as string[];
  const pos = tokens.out(its.pos) as string[];
  // wink-nlp's types declare `its.lemma` with a third parameter that `out` does not accept.
  const lemma = tokens.out(its.lemma as unknown as typeof its.value) as string[];
  const spaces = tokens.out(its.precedingSpaces) as string[];
  const tagged: Token[] = text.map((t, i) => {
    const tag = pos[i] ?? "X";
    const lower = t.toLowerCase();
    return { text: t, lower, spaced: (spaces[i] ?? "") !== "", pos: tag, lemma: tag === "PROPN" ? lower : (lemma[i] ?? lower) };
  });
  splitPossessives(tagged);
  joinHyphenated(tagged);
  for (const fix of TAG_FIXES) {
    for (let i = 0; i < tagged.length; i++) {
      const fixed = fix.apply(tagged, i);
      if (fixed) tagged[i] = fixed;
    }
  }
  return tagged;
}

/**
 * "Tom's" is "Tom" and "'s", always. wink-nlp's tokenizer learns from what it reads: once it has
 * seen "Tom'sU" it keeps "Tom's" whole for the rest of the process, so a claim's subject would
 * depend on what the server read before. Splitting here keeps the reading deterministic.
 */
function splitPossessives(tokens: Token[]): void {
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!;
    const possessive = /^(\p{L}[\p{L}\p{N}.-]*)(['’]s)$/u.exec(t.text);
    if (possessive === null) continue;
    const base = possessive[1]!;
    const lower = base.toLowerCase();
    tokens.splice(
      i,
      1,
      { ...t, text: base, lower, lemma: t.pos === "PROPN" ? lower : t.lemma.replace(/['’]s$/u, "") },
      { text: possessive[2]!, lower: possessive[2]!.toLowerCase(), spaced: false, pos: "PART", lemma: possessive[2]!.toLowerCase() },
    );
  }
}

/**
 * "in-app", "Wi-Fi", "six-week" are one word: the model splits them at the hyphen. The joined
 * word takes the last part's tag (a name if any part is one).
 */
function joinHyphenated(tokens: Token[]): void {
  for (let i = tokens.length - 2; i > 0; i--) {
    const hyphen = tokens[i]!;
    const before = tokens[i - 1]!;
    const after = tokens[i + 1]!;
    if (hyphen.text !== "-" || hyphen.spaced || after.spaced || before.pos === "PUNCT" || after.pos === "PUNCT") continue;
    const text = `${before.text}-${after.text}`;
    const pos = before.pos === "PROPN" || after.pos === "PROPN" ? "PROPN" : after.pos;
    tokens.splice(i - 1, 3, { text, lower: text.toLowerCase(), spaced: before.spaced, pos, lemma: text.toLowerCase() });
    i -= 1;
  }
}

interface TagFix {
  name: string;
  /** The corrected token, or null to leave it. */
  apply: (tokens: readonly Token[], at: number) => Token | null;
}

const isVerbal = (t: Token): boolean => t.pos === "VERB" || t.pos === "AUX";

/** "lives" -> "live", "coaches" -> "coach", "carries" -> "carry". */
export function verbBase(word: string): string {
  if (/ies$/u.test(word)) return `${word.slice(0, -3)}y`;
  if (/(?:ch|sh|ss|x|z|o)es$/u.test(word)) return word.slice(0, -2);
  return word.replace(/s$/u, "");
}

/** Corrections to the model's tags, applied in order. */
const TAG_FIXES: readonly TagFix[] = [
  {
    // "Adams lives in Leeds", "Hannah drives a Honda": after a name, in a sentence with no verb,
    // an "-s" word is the verb, not a plural noun (the model reads "lives" as the plural of "life").
    name: "verb_after_name",
    apply: (tokens, at) => {
      const t = tokens[at]!;
      if (t.pos !== "NOUN" || !/[a-z]s$/u.test(t.text) || /ss$/u.test(t.text)) return null;
      if (tokens[at - 1]?.pos !== "PROPN" || tokens.some(isVerbal)) return null;
      // "Acme releases ship on Tuesdays": a plural noun before another noun is the subject's.
      if (tokens[at + 1]?.pos === "NOUN") return null;
      return { ...t, pos: "VERB", lemma: verbBase(t.lower) };
    },
  },
  {
    // "Acme releases ship on Tuesdays": in a sentence with no verb, a noun between a plural noun
    // and a preposition or adverb is the verb.
    name: "verb_after_plural",
    apply: (tokens, at) => {
      const t = tokens[at]!;
      const before = tokens[at - 1];
      const after = tokens[at + 1];
      if (t.pos !== "NOUN" || before?.pos !== "NOUN" || !/[a-z]s$/u.test(before.text) || tokens.some(isVerbal)) return null;
      return after !== undefined && (after.pos === "ADP" || after.pos === "ADV") ? { ...t, pos: "VERB" } : null;
    },
  },
  {
    // "Launch comms will go out via email": a sentence's first word before a noun and a later verb
    // is a modifier of that noun, not an imperative.
    name: "noun_before_noun_at_start",
    apply: (tokens, at) => {
      const t = tokens[at]!;
      if (at !== 0 || t.pos !== "VERB" || tokens[1]?.pos !== "NOUN" || !tokens.slice(2).some(isVerbal)) return null;
      return { ...t, pos: "NOUN", lemma: t.lower };
    },
  },
  {
    // "Acme has 50 seats": "has" before what is had is the main verb, not an auxiliary.
    name: "have_as_verb",
    apply: (tokens, at) => {
      const t = tokens[at]!;
      const next = tokens[at + 1];
      if (t.pos !== "AUX" || t.lemma !== "have" || next === undefined) return null;
      return ["DET", "NUM", "NOUN", "ADJ", "PROPN", "PRON"].includes(next.pos) ? { ...t, pos: "VERB" } : null;
    },
  },
];
