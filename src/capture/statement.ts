/**
 * Whether a fact is one short statement that something changed ("Phoenix has moved into
 * development", "Mobile releases go out Thursdays now"), and the statement's tokens: the half of
 * change statements (capture/change.ts) that reads one fact alone.
 */
import { escapeRegex, matches } from "./rules/rule";
import { tokenize, type Token } from "./tokens";
import { ADDITIVE_WORDS, CHANGE_MARKERS, CHANGE_VERBS, HEDGE_WORDS, QUESTION_WORDS, TIME_UNITS } from "./rules/lexicon";

/** A plural's singular, as the change rules compare words: "meetings" -> "meeting". */
export const singular = (word: string): string => word.replace(/s$/u, "");

/** Longer facts are narratives or chat turns, not statements of one state. */
const MAX_TOKENS = 24;
const MAX_CHARS = 240;

// "move" without its "e" also begins "moving".
const CHANGE_STEMS: readonly string[] = Object.keys(CHANGE_VERBS).map((lemma) => lemma.replace(/e$/u, ""));

/**
 * A word (a run of letters and apostrophes) that is a change marker or begins with a change verb
 * ("moved"): one pattern, as it runs on every short fact.
 */
const CHANGE_WORD = new RegExp(
  `(?<![\\p{L}'])(?:(?:${Object.keys(CHANGE_MARKERS).map(escapeRegex).join("|")})(?![\\p{L}'])|${CHANGE_STEMS.map(escapeRegex).join("|")})`,
  "iu",
);

/**
 * A cheap test before tagging: a word that is a change marker or begins with a change verb. Run
 * without its lookbehind (rules/lookbehind.ts): it runs on every short fact under the capture lock.
 */
function mentionsChangeWord(text: string): boolean {
  return matches(CHANGE_WORD, text);
}

/**
 * The sentence's tokens when it is one short declarative statement, else null: a request ("now
 * explain it", "please change ..."), a question or a narrative states no state to replace.
 */
export function statementTokens(text: string): readonly Token[] | null {
  // Counted before tagging, as most candidates of a statement are long chat turns or notes.
  if (text.length > MAX_CHARS || spacedWords(text) > MAX_TOKENS) return null;
  const tokens = tokenize(text.trim());
  let statement = statements.get(tokens);
  if (statement === undefined) {
    statement = isStatement(tokens);
    statements.set(tokens, statement);
  }
  return statement ? tokens : null;
}

/** Per tagged sentence (the tagger's cache hands out the same tokens for the same text): a candidate is judged once. */
const statements = new WeakMap<readonly Token[], boolean>();

function isStatement(tokens: readonly Token[]): boolean {
  if (tokens.length > MAX_TOKENS) return false;
  // One statement: no sentence end before the last token ("stg.acme.net" has no space after its dots).
  if (tokens.slice(0, -1).some((t, i) => (t.text === "." || t.text === "!" || t.text === "?") && tokens[i + 1]?.spaced !== false)) return false;
  if (tokens.some((t) => t.text === "?" || t.lower === "please")) return false;
  const opening = openingOf(tokens);
  // A verb first is a request ("now explain it"), an auxiliary first a question ("can we ...").
  return !(opening === undefined || opening.pos === "VERB" || opening.pos === "AUX" || QUESTION_WORDS.has(opening.lower));
}

/**
 * Runs between spaces, tabs and line breaks that hold an ASCII letter or digit: the tagger gives
 * each such run at least one token of its own, so a text has at least this many tokens. (Runs of
 * symbols or other white space alone may vanish into a neighbour: "a-\n\u00a0 n't" tags as two
 * tokens.)
 */
function spacedWords(text: string): number {
  let words = 0;
  let inRun = false;
  let counted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      inRun = false;
      continue;
    }
    if (!inRun) counted = false;
    inRun = true;
    if (!counted && ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) {
      words += 1;
      counted = true;
    }
  }
  return words;
}

/** The word that opens the statement, after speakers' names ("user: alicia: ..."), an opening "now" and a phrase set off by a comma. */
export function openingOf(tokens: readonly Token[]): Token | undefined {
  let at = speakersEnd(tokens);
  if (tokens[at]?.lower === "now") at += tokens[at + 1]?.text === "," ? 2 : 1;
  // An opening phrase set off by a comma ("Going forward, ...", "After the move, ...").
  const comma = tokens.findIndex((t, i) => i > at && i <= at + 5 && t.text === ",");
  if (comma > 0 && (isMarker(tokens, comma - 1) || tokens[at]?.pos === "ADP")) at = comma + 1;
  return tokens[at];
}

/** Where the speakers' names before a statement ("user: alicia: ...") end. */
export function speakersEnd(tokens: readonly Token[]): number {
  let at = 0;
  while (tokens[at + 1]?.text === ":") at += 2;
  return at;
}

/** Whether a fact says that something changed, and does not hedge, ask or merely add. */
export function isChangeStatement(text: string): boolean {
  // Most facts hold no change word: they are never tagged here.
  if (text.length > MAX_CHARS || !mentionsChangeWord(text)) return false;
  const tokens = statementTokens(text);
  if (tokens === null) return false;
  if (tokens.some((t, i) => adds(tokens, i) || hedges(tokens, i) || t.text === "?")) return false;
  return tokens.some((_, i) => isMarker(tokens, i) || reportsChange(tokens, i));
}

/**
 * A change verb in a form that reports a change ("moved", "shifts", "has quit"), not a request or
 * a plan ("promote it", "to switch").
 */
function reportsChange(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  if (t.pos !== "VERB" || CHANGE_VERBS[t.lemma] === undefined) return false;
  const before = tokens[i - 1];
  // Inflected, after "has"/"was", or after its subject ("Standups move to 10:15").
  if (t.lower !== t.lemma || before?.pos === "NOUN" || before?.pos === "PROPN") return true;
  return before?.pos === "AUX" && (before.lemma === "have" || before.lemma === "be");
}

function hedges(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  // "in May" is a month: a name, or a capitalised noun past the sentence's start.
  if (t.pos === "PROPN" || (t.pos === "NOUN" && i > 0 && t.text !== t.lower)) return false;
  const hedge = HEDGE_WORDS[t.lemma];
  if (hedge === undefined || (hedge.unlessBefore?.includes(tokens[i + 1]?.lower ?? "") ?? false)) return false;
  // Within the two words before it: "no longer plan", "cancelled the plan".
  return !tokens.slice(Math.max(0, i - 2), i).some((u) => hedge.unlessAfter?.includes(u.lemma) ?? false);
}

/** Whether the token at `i` adds to what is known ("also", "as well") rather than replacing it. */
function adds(tokens: readonly Token[], i: number): boolean {
  const additive = ADDITIVE_WORDS[tokens[i]!.lower];
  return additive !== undefined && (additive.after === undefined || additive.after.includes(tokens[i - 1]?.lower ?? ""));
}

/** Whether the token at `i` is a change marker in its place ("going forward", not "looking forward"). */
function isMarker(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  const marker = CHANGE_MARKERS[t.lower];
  if (marker === undefined) return false;
  const before = tokens[i - 1];
  if (marker.after !== undefined) return marker.after.includes(before?.lower ?? "");
  // "for three years now": how long, not what changed.
  return !(t.lower === "now" && before !== undefined && TIME_UNITS.has(singular(before.lemma)));
}
