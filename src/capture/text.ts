/**
 * Text preparation shared by every capture rule. Nothing here changes what is stored: the original
 * fact text is kept byte-for-byte elsewhere; these are keys and views for matching only.
 */

/** The characters `normalizeForDuplicates` drops from the end (sentence punctuation and spaces). */
const TRAILING_DROP = new Set([".", "!", "?", ";", ",", " "]);

/** Drops trailing characters from `chars` with a loop: a `[...]+$` regex would be quadratic on long runs. */
export function dropTrailing(text: string, chars: ReadonlySet<string>): string {
  let end = text.length;
  while (end > 0 && chars.has(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

/**
 * The exact-duplicate key: "Priya prefers tea." and "priya  prefers tea" are the same fact.
 * NFC first so composed and decomposed accents agree; NFC again because lower-casing can decompose.
 */
export function normalizeForDuplicates(text: string): string {
  const lowered = text.normalize("NFC").toLowerCase().normalize("NFC");
  const folded = lowered.replace(/\s+/gu, " ").trim();
  return dropTrailing(folded, TRAILING_DROP);
}

/**
 * The view the rules read. Format characters (zero-width spaces, bidi overrides) are removed so
 * "pass\u200Bword" cannot dodge the sensitive rules; control characters become spaces so they still
 * separate words; curly quotes become straight ones so patterns need only one apostrophe.
 */
export function prepareForAnalysis(text: string): string {
  return text
    .normalize("NFC")
    .replace(/\p{Cf}/gu, "")
    .replace(/\p{Cc}/gu, " ")
    .replace(/[\u2018\u2019\u02BC\u2032]/gu, "'")
    .replace(/[\u201C\u201D\u2033]/gu, '"')
    .replace(/\s+/gu, " ")
    .trim();
}

/** Abbreviations whose full stop does not end a sentence ("Dr. Tom", "Acme Inc. is ..."). */
const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "inc", "ltd", "co", "corp", "vs", "etc", "e.g", "i.e", "approx", "no"]);

const SENTENCE_END = new Set([".", "!", "?", ";"]);

/**
 * The first sentence, terminator included. A terminator ends the sentence only when followed by
 * a space or the end of the text, so "v1.2", "node.js" and "3.5%" stay whole.
 */
export function firstSentence(text: string): string {
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charAt(i);
    if (!SENTENCE_END.has(ch)) continue;
    const next = text.charAt(i + 1);
    if (next !== "" && next !== " ") continue;
    if (ch === "." && ABBREVIATIONS.has(lastWord(text, i))) continue;
    return text.slice(0, i + 1);
  }
  return text;
}

/** The lower-cased word ending just before `end`, for the abbreviation check. */
function lastWord(text: string, end: number): string {
  const start = text.lastIndexOf(" ", end - 1) + 1;
  return text.slice(start, end).toLowerCase();
}

/** Letters, digits, marks and underscore: what counts as "inside a word" for whole-word checks. */
const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;

/** True when the character at `index` does not continue a word (or is outside the text). */
export function isWordEdge(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return true;
  return !WORD_CHAR.test(text.charAt(index));
}

/** Capital first letter, judged on Unicode so "Émile" and "Zoë" count. */
export function startsUpper(word: string): boolean {
  return /^\p{Lu}/u.test(word);
}
