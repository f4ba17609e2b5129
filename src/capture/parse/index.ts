/**
 * The one parse of a fact that every claim stage reads: the views of its text (speaker prefix and
 * leading filler split off), the tokens of the sentence that makes the claim, and the modes in
 * which the fact is said (capture/parse/modality.ts). Built once per fact by `parseFact`.
 */
import { attributeSubject, viewOf, type SubjectResult, type TextView } from "../subject";
import { wordTable } from "../rules/lexicon";
import { firstSentence, prepareForAnalysis } from "../text";
import { tokenize, type Token } from "../tokens";
import type { CaptureInput } from "../types";
import { MARKUP_RECORDS, MODALITY_RECORDS, type Modality, type ModalityRecord } from "./modality";

export interface FactParse {
  input: CaptureInput;
  view: TextView;
  subject: SubjectResult;
  /** Tokens of the claim's sentence (the lead's first sentence), contractions split ("I'm" -> "I", "be"). */
  tokens: readonly Token[];
  /**
   * The tokens of the sentence after it, in a short fact, when it is said plainly (no mode of its
   * own): "Dave: it's great to see you! Fixing cars is an art" says its piece in the second one.
   */
  next: readonly Token[] | null;
  /** The modes that keep this fact from replacing another; empty for a plain assertion. */
  modalities: readonly Modality[];
}

/** How many characters of a fact are read for its claim: a claim is made in its first sentence. */
const CLAIM_SPAN = 400;
/** A fact this short is a note of a sentence or two: its second sentence may hold the claim. */
const SHORT_FACT = 240;

export function parseFact(input: CaptureInput): FactParse {
  return parseFrame(frameFact(input));
}

/** What every fact's analysis reads before its claim's sentence: its views, its subject, whether it carries markup. */
export interface FactFrame {
  input: CaptureInput;
  view: TextView;
  subject: SubjectResult;
  markup: boolean;
}

export function frameFact(input: CaptureInput): FactFrame {
  const view = viewOf(prepareForAnalysis(input.text));
  return { input, view, subject: attributeSubject(input, view), markup: markupIn(input.text) };
}

/** The claim's sentence of a framed fact, tokenised, and the modes it is said in. */
export function parseFrame(frame: FactFrame): FactParse {
  const { input, view, subject } = frame;
  const sentence = firstSentence(view.lead).slice(0, CLAIM_SPAN);
  const tokens = splitContractions(tokenize(sentence));
  const modalities: Modality[] = frame.markup ? ["markup"] : [];
  for (const record of MODALITY_RECORDS) if (fires(record, tokens)) modalities.push(record.modality);
  const rest = view.lead.slice(sentence.length).trim();
  const second = rest === "" || view.lead.length > SHORT_FACT ? "" : firstSentence(rest);
  const nextTokens = second === "" ? null : splitContractions(tokenize(second));
  const next = nextTokens !== null && !MODALITY_RECORDS.some((r) => fires(r, nextTokens)) ? nextTokens : null;
  return { input, view, subject, tokens, next, modalities };
}

/** Whether the raw text (newlines kept) holds markup or a line opened by a role name. */
export function markupIn(raw: string): boolean {
  const lower = raw.toLowerCase();
  const lines = lower.split("\n").map((line) => line.trimStart());
  return MARKUP_RECORDS.some(
    (r) =>
      (r.contains ?? []).some((c) => lower.includes(c)) ||
      (r.lineOpeners ?? []).some((o) => lines.some((line) => line.startsWith(o))) ||
      lines.some((line) => (r.roles ?? []).includes(roleOf(line))),
  );
}

/** The word a line opens with before a colon, brackets and emphasis dropped ("[[assistant]]:" -> "assistant"). */
function roleOf(line: string): string {
  const colon = line.indexOf(":");
  if (colon < 0 || colon > 24) return "";
  return [...line.slice(0, colon)].filter((ch) => ch >= "a" && ch <= "z").join("");
}

/** A record's cues and openers split into words once, its cues indexed by their first word. */
interface CompiledModality {
  openers: readonly (readonly string[])[];
  cuesByFirst: ReadonlyMap<string, readonly (readonly string[])[]>;
}

const compiledModalities = new WeakMap<ModalityRecord, CompiledModality>();

function compiledOf(record: ModalityRecord): CompiledModality {
  let compiled = compiledModalities.get(record);
  if (compiled === undefined) {
    const cuesByFirst = new Map<string, (readonly string[])[]>();
    for (const cue of record.cues) {
      const words = cue.split(" ");
      cuesByFirst.set(words[0]!, [...(cuesByFirst.get(words[0]!) ?? []), words]);
    }
    compiled = { openers: (record.openers ?? []).map((o) => o.split(" ")), cuesByFirst };
    compiledModalities.set(record, compiled);
  }
  return compiled;
}

/** Whether a modality record's cue stands in the tokens (openers only at the start). */
export function fires(record: ModalityRecord, tokens: readonly Token[]): boolean {
  const { openers, cuesByFirst } = compiledOf(record);
  const start = Math.max(
    0,
    tokens.findIndex((t) => t.pos !== "PUNCT"),
  );
  if (openers.some((o) => phraseAt(tokens, start, o))) return true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const cues = t.lemma === t.lower ? cuesByFirst.get(t.lemma) : [...(cuesByFirst.get(t.lemma) ?? []), ...(cuesByFirst.get(t.lower) ?? [])];
    if (cues?.some((cue) => phraseAt(tokens, i, cue))) return true;
  }
  return false;
}

/**
 * Whether the phrase's words (lemma or lower-cased form) stand at `at`. A name never is a cue
 * word ("May 1" is a date, "Will" a person), and a one-word modal cue must be tagged a modal.
 */
function phraseAt(tokens: readonly Token[], at: number, words: readonly string[]): boolean {
  return words.every((w, k) => {
    const t = tokens[at + k];
    // The first word is capitalised by the sentence, not because it is a name.
    if (t === undefined || (t.pos === "PROPN" && at + k > 0) || !(t.lemma === w || t.lower === w)) return false;
    return !(words.length === 1 && MODALS.has(w) && t.pos !== "AUX");
  });
}

const MODALS: ReadonlySet<string> = new Set(["may", "might", "could", "will", "would"]);

/** "I'm" is tagged as one name; "can't" keeps its parts. */
const CONTRACTIONS: Readonly<Record<string, readonly [string, string]>> = wordTable({
  "i'm": ["i", "be"],
  im: ["i", "be"],
  "i've": ["i", "have"],
  "i'd": ["i", "would"],
  "i'll": ["i", "will"],
});

function splitContractions(tokens: readonly Token[]): Token[] {
  return tokens.flatMap((t) => {
    const parts = CONTRACTIONS[t.lower];
    if (parts === undefined) return [t];
    const [pronoun, verb] = parts;
    return [
      { ...t, text: t.text.slice(0, 1), lower: pronoun, lemma: pronoun, pos: "PRON" },
      { ...t, text: t.text.slice(1), lower: verb, lemma: verb, pos: "AUX", spaced: false },
    ];
  });
}
