/**
 * A sentence that joins independent statements, split into them: "I work in Leeds, and I have a
 * dog called Biscuit" is two facts, so that when one of them changes later ("I quit and moved to
 * Manchester") the other is not hidden with it. A join splits only when the part after it opens
 * with its own subject and verb and the part before is itself a statement: "I like tea and
 * coffee", "Ana and Bo moved to Lisbon" and "I quit the cafe and started at a fintech" stay whole,
 * since a half of them would be a fragment. Read on the project's part-of-speech tags (capture/tokens.ts).
 */
import { fires } from "./parse";
import { MODALITY_RECORDS } from "./parse/modality";
import { type Token, tokenize } from "./tokens";

/** Words that join two statements after a comma or a semicolon ("…, and I …", "…; but she …"). */
const JOINS_AFTER_PUNCT: ReadonlySet<string> = new Set(["and", "but", "so", "while", "whereas"]);
/** Words that join two statements with no comma: "I love hiking and Biscuit loves walks". */
const BARE_JOINS: ReadonlySet<string> = new Set(["and", "but"]);
/** Subjects that can only be subjects: "and she likes jazz" never continues a list of objects. */
const SUBJECT_PRONOUNS: ReadonlySet<string> = new Set(["i", "we", "he", "she", "they"]);
/** Determiners that open a subject of its own: "and my sister lives in Oslo". */
const POSSESSIVES: ReadonlySet<string> = new Set(["my", "our", "his", "her", "their"]);
/** The tagger reads "I'm" as one name: it is a subject and its verb. */
const SUBJECT_WITH_VERB: ReadonlySet<string> = new Set(["i'm", "im"]);
/**
 * Verbs whose object may be the subject of a clause: in "I know Ana and Bo like jazz" the "and"
 * joins Ana and Bo, so after these a bare "and" splits only before a pronoun subject.
 */
const CLAUSE_VERBS: ReadonlySet<string> = new Set([
  "know",
  "see",
  "notice",
  "realise",
  "realize",
  "feel",
  "hope",
  "expect",
  "bet",
  "wish",
  "mean",
  "remember",
  "find",
  "learn",
  "understand",
  "doubt",
]);
/** Tags that may stand between a subject and its verb: "I also have", "she never did". */
const BEFORE_VERB: ReadonlySet<string> = new Set(["ADV", "PART"]);
/** Tags after which an "-s" noun that follows a noun is a verb: "my sister lives in Oslo". */
const AFTER_VERB: ReadonlySet<string> = new Set(["ADP", "DET", "ADV", "PRON", "NUM", "ADJ", "PART"]);
/** Longer text is pasted, not said: it is kept whole. */
const MAX_SPLIT_CHARS = 1000;

interface Join {
  /** Index of the first token of the part after the join. */
  next: number;
  /** Joined by a word alone, no comma or semicolon. */
  bare: boolean;
}

/** The statements a sentence joins, each ending with a period and capitalised; the sentence itself when it joins none. */
export function clausesOf(sentence: string): string[] {
  if (sentence.length > MAX_SPLIT_CHARS) return [sentence];
  const tokens = tokenize(sentence);
  const starts = offsetsOf(sentence, tokens);
  if (starts === null) return [sentence];
  const parts: string[] = [];
  let from = 0;
  for (let i = 1; i < tokens.length; i++) {
    const join = joinAt(tokens, i);
    if (join === null) continue;
    // A mode said before the join ("If I get the job, …", "I think …") may hold over what follows it.
    if (MODALITY_RECORDS.some((record) => fires(record, tokens.slice(0, i)))) break;
    const before = tokens.slice(from, i);
    const subject = subjectAt(tokens, join.next);
    if (subject === null || !hasClause(before)) continue;
    if (join.bare && subject === "phrase" && takesClause(before)) continue;
    parts.push(sentence.slice(starts[from], starts[i]));
    from = join.next;
    i = join.next;
  }
  if (parts.length === 0) return [sentence];
  parts.push(sentence.slice(starts[from]));
  return parts.map(asStatement);
}

/** Where each token starts in the sentence, or null if a token's text is not found as written. */
function offsetsOf(sentence: string, tokens: readonly Token[]): number[] | null {
  const starts: number[] = [];
  let cursor = 0;
  for (const t of tokens) {
    const at = sentence.indexOf(t.text, cursor);
    if (at < 0) return null;
    starts.push(at);
    cursor = at + t.text.length;
  }
  return starts;
}

/** The join that opens at token `i`, if any: ", and", "; but", ";" or a bare "and". */
function joinAt(tokens: readonly Token[], i: number): Join | null {
  const t = tokens[i]!;
  const word = tokens[i + 1]?.lower ?? "";
  if (t.text === ",") return JOINS_AFTER_PUNCT.has(word) ? { next: i + 2, bare: false } : null;
  if (t.text === ";") return { next: JOINS_AFTER_PUNCT.has(word) ? i + 2 : i + 1, bare: false };
  return BARE_JOINS.has(t.lower) && tokens[i - 1]!.pos !== "PUNCT" ? { next: i + 1, bare: true } : null;
}

/**
 * Whether a subject and its verb open the tokens at `at`: "pronoun" for a subject pronoun, "phrase"
 * for a name or a possessive's noun phrase ("my sister", "Biscuit"), null when they do not.
 */
function subjectAt(tokens: readonly Token[], at: number): "pronoun" | "phrase" | null {
  const first = tokens[at];
  if (first === undefined) return null;
  if (SUBJECT_WITH_VERB.has(first.lower)) return "pronoun";
  if (SUBJECT_PRONOUNS.has(first.lower)) return verbFollows(tokens, at + 1) ? "pronoun" : null;
  if (!POSSESSIVES.has(first.lower) && first.pos !== "PROPN") return null;
  let end = POSSESSIVES.has(first.lower) ? at + 1 : at;
  while (isNominal(tokens[end]) && !isVerbAt(tokens, end)) end++;
  if (end === at + 1 && first.pos !== "PROPN") return null;
  return verbFollows(tokens, end) ? "phrase" : null;
}

function isNominal(t: Token | undefined): boolean {
  return t !== undefined && (t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "ADJ" || t.lower === "'s");
}

/** Whether a verb stands at `at`, after at most two adverbs ("also", "never", "not"). */
function verbFollows(tokens: readonly Token[], at: number): boolean {
  let i = at;
  while (i < at + 2 && BEFORE_VERB.has(tokens[i]?.pos ?? "")) i++;
  return isVerbAt(tokens, i);
}

/** A verb, or an "-s" word after a noun that the tagger took for a plural ("my sister lives in Oslo"). */
function isVerbAt(tokens: readonly Token[], at: number): boolean {
  const t = tokens[at];
  if (t === undefined) return false;
  if (t.pos === "VERB" || t.pos === "AUX" || SUBJECT_WITH_VERB.has(t.lower)) return true;
  const before = tokens[at - 1]?.pos;
  return (
    t.pos === "NOUN" &&
    /[a-z]s$/u.test(t.text) &&
    !t.text.endsWith("ss") &&
    (before === "NOUN" || before === "PROPN") &&
    AFTER_VERB.has(tokens[at + 1]?.pos ?? "")
  );
}

/** Whether a verb of the tokens may take a clause as its object ("I know Ana and Bo like jazz"). */
function takesClause(tokens: readonly Token[]): boolean {
  return tokens.some((t, i) => CLAUSE_VERBS.has(t.lemma) && isVerbAt(tokens, i));
}

/** Whether the tokens say something: a verb after a subject ("Ana" alone does not). */
function hasClause(tokens: readonly Token[]): boolean {
  return tokens.some(
    (t, i) =>
      SUBJECT_WITH_VERB.has(t.lower) || (isVerbAt(tokens, i) && tokens.slice(0, i).some((s) => s.pos === "PRON" || s.pos === "NOUN" || s.pos === "PROPN")),
  );
}

/** A part as a statement of its own: the join's punctuation dropped, capitalised, ending with a period. */
function asStatement(part: string): string {
  const text = part.trim().replace(/[,;:]+$/u, "");
  const ended = /[.!?]$/u.test(text) ? text : `${text}.`;
  return ended.charAt(0).toUpperCase() + ended.slice(1);
}
