/**
 * A value as a claim keeps it: the span a template's {v} slot took, cut where the value ends (a
 * clause, a time adjunct, a reason), checked against the attribute's value type, and written in
 * one form so "45 s" and "45 seconds", "+1 415 555 0100" and "415-555-0100" compare equal.
 */
import { wordTable } from "../rules/lexicon";
import type { Token } from "../tokens";
import type { ValueType } from "./record";

/** Words that end a value: what follows is another clause, a reason or a comparison. */
const VALUE_ENDS: ReadonlySet<string> = new Set([
  "to",
  "and",
  "but",
  "or",
  "because",
  "since",
  "after",
  "before",
  "when",
  "while",
  "so",
  "although",
  "though",
  "until",
  "which",
  "who",
  "where",
  "instead",
  "rather",
  "from",
  "replacing",
  "effective",
  "starting",
  "as",
  "with",
  "due",
  "per",
  "via",
]);
const END_PUNCT: ReadonlySet<string> = new Set([",", ";", "(", ")", "!", "?", ".", "—", "–", '"']);
/** Words that open a time adjunct after an adposition: "in May", "on Monday", "at the end of Q2". */
const TIME_WORDS: ReadonlySet<string> = new Set(
  (
    "january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec " +
    "monday tuesday wednesday thursday friday saturday sunday week weekend month year quarter spring summer autumn fall winter end start beginning " +
    "q1 q2 q3 q4 h1 h2 morning evening today yesterday tomorrow"
  ).split(" "),
);
/** Words that are a time adjunct by themselves: "last month", "yesterday", "two weeks ago". */
const TIME_OPENERS: ReadonlySet<string> = new Set([
  "last",
  "next",
  "this",
  "yesterday",
  "today",
  "tomorrow",
  "earlier",
  "recently",
  "ago",
  "lately",
  "anymore",
]);
const DROPPED_FRONT: ReadonlySet<string> = new Set([
  "now",
  "the",
  "a",
  "an",
  "my",
  "our",
  "his",
  "her",
  "their",
  "its",
  "your",
  "this",
  "that",
  "new",
  "current",
  "another",
]);
const DROPPED_BACK: ReadonlySet<string> = new Set(["now", "anymore", "too", "again", "instead", "though", "either", "full-time", "fulltime"]);
const LEADING_ADPOSITIONS: ReadonlySet<string> = new Set(["in", "on", "at"]);
/** Types whose value is itself a time: their span is not cut at a time word. */
const TIMED: ReadonlySet<ValueType> = new Set(["date", "time", "duration", "frequency"]);

/** The value span, cut and checked: its normalised text, or null when it is no value of this type. */
export function readValue(tokens: readonly Token[], from: number, to: number, type: ValueType): string | null {
  let end = valueEnd(tokens, from, to, type);
  let start = from;
  // "HQ is in Toronto", "launch is on June 20": the adposition belongs to the verb.
  if (LEADING_ADPOSITIONS.has(tokens[start]?.lower ?? "")) start++;
  if (tokens[start]?.lower === "for" && type !== "duration") return null;
  while (start < end && DROPPED_FRONT.has(tokens[start]!.lower)) start++;
  while (end > start && (DROPPED_BACK.has(tokens[end - 1]!.lower) || tokens[end - 1]!.pos === "PUNCT")) end--;
  if (end <= start || end - start > 8) return null;
  const span = tokens.slice(start, end);
  return typed(span, type);
}

/** Where a span that starts at `from` stops being one value of the type (a clause, a reason, a time). */
export function valueEnd(tokens: readonly Token[], from: number, to: number, type: ValueType): number {
  let end = from;
  while (end < to && !endsValue(tokens, end, from, type)) end++;
  return end;
}

function endsValue(tokens: readonly Token[], at: number, from: number, type: ValueType): boolean {
  const t = tokens[at]!;
  // "db-03.prod.internal", "v2.1": a full stop inside a word does not end it.
  const inWord = t.text === "." && tokens[at + 1] !== undefined && !tokens[at + 1]!.spaced && tokens[at + 1]!.pos !== "PUNCT";
  if (at > from && END_PUNCT.has(t.text) && !inWord && !(t.text === "." && isDigits(tokens[at + 1]?.text))) {
    // "Hackney, in east London" says where Hackney is: one place.
    return !(type === "place" && t.text === "," && tokens[at + 1]?.lower === "in");
  }
  if (at === from) return false;
  if (VALUE_ENDS.has(t.lower) || t.pos === "SCONJ" || t.pos === "CCONJ") return !(TIMED.has(type) && t.lower === "and");
  if (TIMED.has(type)) return false;
  if (TIME_OPENERS.has(t.lower)) return true;
  const next = tokens[at + 1];
  if (t.pos === "ADP" && next !== undefined) {
    const word = next.pos === "DET" ? tokens[at + 2] : next;
    if (word !== undefined && (TIME_WORDS.has(word.lower) || /^\d{4}$/u.test(word.text))) return true;
  }
  // "for legal reasons", "in full": a purpose or a manner, not the value.
  if (t.lower === "for") return true;
  if (t.lower === "in" && (next?.lower === "full" || next?.lower === "order")) return true;
  return t.lower === "at" ? type === "place" || type === "person" : false;
}

const isDigits = (text: string | undefined): boolean => text !== undefined && /^\d/u.test(text);

/** Number words as digits, so "three years" and "3 years" are one value (here and in capture/relation.ts). */
export const NUMBER_WORDS: Readonly<Record<string, string>> = wordTable({
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  ten: "10",
  eleven: "11",
  twelve: "12",
  fifteen: "15",
  twenty: "20",
  thirty: "30",
  forty: "40",
  fifty: "50",
  sixty: "60",
  ninety: "90",
});
const UNITS: Readonly<Record<string, string>> = wordTable({
  ms: "millisecond",
  millisecond: "millisecond",
  s: "second",
  sec: "second",
  secs: "second",
  second: "second",
  min: "minute",
  mins: "minute",
  minute: "minute",
  h: "hour",
  hr: "hour",
  hrs: "hour",
  hour: "hour",
  day: "day",
  week: "week",
  month: "month",
  year: "year",
});
const FREQUENCIES: ReadonlySet<string> = new Set([
  "daily",
  "nightly",
  "hourly",
  "weekly",
  "monthly",
  "quarterly",
  "yearly",
  "annually",
  "annual",
  "biweekly",
  "every",
  "once",
  "twice",
  "each",
]);

function typed(span: readonly Token[], type: ValueType): string | null {
  // "s." is "s"; a full stop alone inside a host name stays.
  const words = span.map((t) => (t.lower.length > 1 ? t.lower.replace(/\.$/u, "") : t.lower));
  // Written back with the text's own spacing: "Gdańsk" is three tokens and one word.
  const text = words.map((w, i) => (i > 0 && span[i]!.spaced ? ` ${w}` : w)).join("");
  const digits = text.replace(/\D/gu, "");
  switch (type) {
    case "phone":
      return digits.length >= 5 ? digits.slice(-10) : null;
    case "email":
      return text.includes("@") ? text.replace(/\s/gu, "") : null;
    case "url":
    case "host":
      // A name with a dot, a scheme, or a host and port ("db-03:5432"); "10:15" is a time.
      return /[a-z0-9]\.[a-z]/u.test(text) || text.includes("://") || /[a-z][\w.-]*:\d/u.test(text) ? text.replace(/\s/gu, "") : null;
    case "count":
    case "money": {
      const numbers = words.map((w) => NUMBER_WORDS[w] ?? w).filter((w) => /\d/u.test(w));
      return numbers.length > 0 ? numbers.join(" ").replace(/,/gu, "") : null;
    }
    case "duration": {
      // "two-week" is "2 week".
      const parts = words.flatMap((w) => w.split("-")).map((w) => NUMBER_WORDS[w] ?? w);
      const number = parts.find((w) => /^\d/u.test(w));
      const unit = parts.map((w) => UNITS[w.replace(/s$/u, "")] ?? UNITS[w]).find((u) => u !== undefined);
      if (number === undefined) return null;
      const glued = /^(\d+(?:\.\d+)?)([a-z]+)$/u.exec(number);
      if (glued) return `${glued[1]} ${UNITS[glued[2]!] ?? glued[2]}`;
      return unit === undefined ? number : `${number} ${unit}`;
    }
    case "frequency":
      return words.some((w) => FREQUENCIES.has(w) || /^\d/u.test(w)) ? words.map((w) => NUMBER_WORDS[w] ?? w).join(" ") : null;
    case "time":
      return /\d/u.test(text) || words.some((w) => w === "noon" || w === "midnight") ? text.replace(/\s+(?=[ap]\.?m)/u, "") : null;
    case "date":
      // A date names a day, month, quarter or year from its first word; "10:15" is a time, "55 percent" a share.
      if (/^\d{1,2}:\d{2}/u.test(text) || words.includes("percent") || text.includes("%")) return null;
      return /^\d/u.test(words[0] ?? "") || DATE_WORDS.has(words[0] ?? "") || DATE_OPENERS.has(words[0] ?? "") ? text : null;
    case "role":
      return span.some((t) => ROLE_WORDS.has(t.lower) || ROLE_WORDS.has(t.lemma)) && !span.some(clausal) ? text : null;
    case "version":
      return /\d/u.test(text) ? text : null;
    case "person":
    case "organization":
      return span.some(named) && !span.some(clausal) ? text : null;
    case "place":
      return span.some(named) || span.some((t) => PLACE_NOUNS.has(t.lemma)) ? text : null;
    default:
      return span.some((t) => t.pos !== "PRON") ? text : null;
  }
}

const DATE_WORDS: ReadonlySet<string> = new Set([...TIME_WORDS, "tomorrow", "tonight", "eod", "eow", "eom", "eoy", "midnight", "noon", "later", "soon", "tbd"]);

/** Words a date may open with before its day or month: "end of June", "mid-March", "next Friday". */
const DATE_OPENERS: ReadonlySet<string> = new Set([
  "end",
  "mid",
  "early",
  "late",
  "next",
  "this",
  "the",
  "first",
  "last",
  "second",
  "third",
  "beginning",
  "middle",
]);

/** A name: tagged as one, or capitalised inside the sentence ("I" is neither). */
const named = (t: Token): boolean => t.pos !== "PRON" && (t.pos === "PROPN" || /^[A-Z]/u.test(t.text));

/** Words that make a phrase a job or role. */
const ROLE_WORDS: ReadonlySet<string> = new Set(
  (
    "manager director head lead chief officer president vp vice chair chairman chairwoman founder cofounder co-founder principal " +
    "engineer developer programmer architect designer analyst scientist researcher consultant specialist coordinator administrator admin " +
    "ceo cto cfo coo cio ciso cmo cpo cro svp evp intern associate assistant executive owner supervisor foreman " +
    "nurse doctor physician surgeon teacher professor lecturer lawyer attorney accountant paralegal pharmacist dentist therapist " +
    "writer editor journalist photographer artist musician chef cook baker barista carpenter plumber electrician mechanic pilot driver " +
    "salesperson recruiter marketer strategist producer instructor coach trainer tutor librarian technician operator clerk cashier " +
    "sre devops dba pm tpm qa tester"
  ).split(" "),
);

/** Whether a word names a job or role ("designer", "CEO"). */
export const isRoleWord = (word: string): boolean => ROLE_WORDS.has(word);

/**
 * A verb in a value means the span ran into a clause: "Linda Park stepped down and ...". A verb
 * before a noun is the tagger's misreading of a modifier ("engineering manager").
 */
const clausal = (t: Token, i: number, span: readonly Token[]): boolean =>
  t.pos === "AUX" || (t.pos === "VERB" && !/^[A-Z]/u.test(t.text) && !(span[i + 1]?.pos === "NOUN" || span[i + 1]?.pos === "PROPN"));

/** Nouns that are places without a name: "moved to a flat", "lives in the countryside". */
const PLACE_NOUNS: ReadonlySet<string> = new Set([
  "flat",
  "apartment",
  "house",
  "home",
  "countryside",
  "suburb",
  "city",
  "town",
  "village",
  "coast",
  "country",
  "abroad",
  "downtown",
  "neighborhood",
  "neighbourhood",
  "area",
  "condo",
  "studio",
  "farm",
  "island",
]);
