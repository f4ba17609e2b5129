/**
 * Time in a question (docs/memory.md, "Time in the question"): "two months ago", "last Tuesday",
 * "in March", "on Valentine's day", "the past three months", read relative to the read's instant
 * (`as_of`, else now) into windows of observed time. A window lifts the facts observed inside it
 * and fades outside it: never a filter, since people misremember by a week. A relative
 * expression's words are not search terms. Dates are read in UTC, like the packet's dates.
 */
import type { ParsedComponents, ParsedResult, ParsingContext } from "chrono-node";
import { casual } from "chrono-node/en";
import {
  ANCHOR_WORDS,
  EVERYDAY_WORDS,
  HABITUAL_BEFORE,
  HABITUAL_NEXT,
  HOLIDAYS,
  NOT_A_DATE,
  ORDER_CUES,
  RELATIVE_WORDS,
  SEASONS,
  TIME_WORDS,
  UNIT_MS,
  WEEKDAY_ABBREVIATIONS,
} from "./words";

export interface TimeWindow {
  /** The expression as written in the query. */
  expression: string;
  /** Facts observed in [from, to), epoch milliseconds, get the full lift. */
  from: number;
  to: number;
  /** How far outside the window the lift fades to nothing, milliseconds. */
  fade: number;
}

export interface QueryTime {
  windows: TimeWindow[];
  /** Character ranges [start, end) of the relative expressions ("two months ago"): their words are not search terms. */
  spans: (readonly [number, number])[];
  /** The question asks about order ("which came first", "in what order"). */
  order: boolean;
}

const DAY_MS = UNIT_MS.day!;
/** The furthest instant from 1970 a Date can hold, either way. */
const MAX_DATE_MS = 8.64e15;
/**
 * The least fade: a week either side, however precise the expression ("yesterday" may be the day
 * before). A longer window fades over half its length ("in March" reaches into February).
 */
const MIN_FADE_MS = 7 * DAY_MS;
const FADE_SHARE = 0.5;

const parser = timeParser();
/** A word as the time words are listed: letters or digits, with an apostrophe's ending ("valentine's"). */
const WORD = /[a-z0-9]+(?:['’][a-z]+)?/g;

/** The time expressions of a query, read at `instant` (epoch milliseconds). */
export function readQueryTime(query: string, instant: number): QueryTime {
  if (query.length > TIME_MAX_CHARS) return { windows: [], spans: [], order: false };
  const words = query.toLowerCase().match(WORD) ?? [];
  const order = asksOrder(words);
  if (!mayNameATime(query, words)) return { windows: [], spans: [], order };
  const windows: TimeWindow[] = [];
  const spans: (readonly [number, number])[] = [];
  for (const { result, from, to } of datesIn(query, instant).slice(0, MAX_WINDOWS)) {
    windows.push({ expression: result.text, from, to, fade: fadeOf(from, to) });
    if ((result.text.toLowerCase().match(WORD) ?? []).some((w) => RELATIVE_WORDS.has(w))) spans.push([result.index, result.index + result.text.length]);
  }
  return { windows, spans, order };
}

/**
 * Texts longer than this (queries and facts) are not read for time: a pasted note or chat turn
 * names many times, and reading costs in proportion to length (a few µs per 100 characters).
 */
export const TIME_MAX_CHARS = 600;
/** The most windows a query keeps: a question names a time or two; each is tested per fact scored. */
const MAX_WINDOWS = 4;

/**
 * The time a fact is about, when it names one, read at its observation: "I cleaned my sneakers
 * last month", observed on 24 May, is about April. The first date it names counts; null when none.
 */
export function readFactTime(text: string, observed: number): readonly [number, number] | null {
  if (text.length > TIME_MAX_CHARS || !mayNameATime(text, text.toLowerCase().match(WORD) ?? [])) return null;
  const first = datesIn(text, observed)[0];
  return first === undefined ? null : [first.from, first.to];
}

/**
 * Digits that may write a date: 7/22, 2023-01-05, 01.05.2023, a year (2022), an ordinal day (the
 * 5th). Other numbers (18 percent, 11:30, p95) name no date unless a time word comes with them.
 */
const DATE_DIGITS = /\b\d{1,4}[/.-]\d{1,2}\b|\b(?:19|20)\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)\b/;

/** A text with no time word and no digits that may write a date names no date chrono-node would read: it is not parsed. */
function mayNameATime(text: string, words: readonly string[]): boolean {
  return words.some((w) => TIME_WORDS.has(w)) || DATE_DIGITS.test(text);
}

/** The dates a text names, read at `instant`, each with the window [from, to) it names. */
function datesIn(text: string, instant: number): { result: ParsedResult; from: number; to: number }[] {
  const dates: { result: ParsedResult; from: number; to: number }[] = [];
  const results = parser.parse(text, { instant: new Date(instant), timezone: 0 }, { forwardDate: false });
  for (const result of results) {
    const window = namesADate(text, result, results) ? windowOf(result, instant) : null;
    // "14288638 weeks ago" lies outside the dates JavaScript can hold; a range that ends before it starts names nothing.
    if (window !== null && window[0] < window[1] && Math.abs(window[0]) <= MAX_DATE_MS && Math.abs(window[1]) <= MAX_DATE_MS) {
      dates.push({ result, from: window[0], to: window[1] });
    }
  }
  return dates;
}

const fadeOf = (from: number, to: number): number => Math.max(MIN_FADE_MS, FADE_SHARE * (to - from));

/** The query with the expressions' characters blanked: what is left to search by words. */
export function withoutExpressions(query: string, time: QueryTime): string {
  let text = query;
  for (const [start, end] of time.spans) text = text.slice(0, start) + " ".repeat(end - start) + text.slice(end);
  return text;
}

/**
 * How much a fact is lifted by the query's windows: 1 when the time it is about overlaps one,
 * fading to 0 outside; the best window counts. The time is its observation (`from` alone), or
 * the span [from, to) it names (readFactTime).
 */
export function timeLift(windows: readonly TimeWindow[], from: number, to: number = from): number {
  let best = 0;
  for (const w of windows) {
    const distance = to < w.from ? w.from - to : from >= w.to ? from - w.to : 0;
    best = Math.max(best, 1 - distance / w.fade);
  }
  return best;
}

function asksOrder(words: readonly string[]): boolean {
  return ORDER_CUES.some((cue) => (cue.with === undefined || words.includes(cue.with)) && words.some((_, i) => cue.words.every((w, j) => words[i + j] === w)));
}

/**
 * Whether a reading names a date of its own: not an everyday word, a habit ("on Saturday
 * mornings", "every Monday"), a day relative to an event, or a part of the date after it ("the
 * last week of October 2023").
 */
function namesADate(query: string, result: ParsedResult, all: readonly ParsedResult[]): boolean {
  const text = result.text.toLowerCase();
  if (NOT_A_DATE.has(text) || WEEKDAY_ABBREVIATIONS.has(text) || (EVERYDAY_WORDS.has(text) && result.text[0] === text[0])) return false;
  // "two weeks before the launch": a time relative to an event memory does not date.
  if (/\b(?:before|after)$/.test(text)) return false;
  const end = result.index + result.text.length;
  const next = /^(s?)\s*,?\s*([a-z]*)\s*/i.exec(query.slice(end))!;
  const word = next[2]!.toLowerCase();
  const anchored = ANCHOR_WORDS.has(word) && all.some((other) => other.index > end && other.index <= end + next[0].length + 4);
  const before = /([a-z]+)\W*$/i.exec(query.slice(0, result.index))?.[1]?.toLowerCase() ?? "";
  return next[1] === "" && !HABITUAL_NEXT.has(word) && !HABITUAL_BEFORE.has(before) && !anchored;
}

const startOfDay = (t: number): number => Math.floor(t / DAY_MS) * DAY_MS;

/** The window [from, to) a parsed expression names, or null when it names no date (a time of day, an ambiguous word). */
function windowOf(result: ParsedResult, instant: number): readonly [number, number] | null {
  const text = result.text.toLowerCase();
  const start = result.start;
  const unit = /\b(day|week|month|year)s?\b/.exec(text)?.[1];
  // "last month", "this year": the calendar month or year counted from the instant's own (chrono
  // reads "last month" on 31 May as "31 April", which is 1 May).
  const calendar = /^(last|previous|this)\s+(month|year)$/.exec(text);
  if (calendar !== null) return calendarSpan(instant, calendar[2] === "month", calendar[1] === "this" ? 0 : -1);
  // "this week": the last seven days, today included.
  if (text === "this week") return [instant - 7 * DAY_MS, instant];
  // "the past three months", "last 2 weeks", "within the past year": from then until now.
  if (unit !== undefined && /^(?:the\s+)?(?:past|within)\b|^(?:last|previous)\s+\S+\s/.test(text)) {
    return [Math.min(start.date().getTime(), instant), instant];
  }
  // "two months ago", "a week ago", "last week", "next week": a unit's length around the day it names.
  if (unit !== undefined && unit !== "day" && /\bago$|^(?:last|next)\s+week$/.test(text)) {
    const centre = start.date().getTime();
    return [centre - UNIT_MS[unit]! / 2, centre + UNIT_MS[unit]! / 2];
  }
  const from = spanOf(start, text, instant);
  if (from === null) return null;
  const to = result.end ? (spanOf(result.end, text, instant)?.[1] ?? from[1]) : from[1];
  return [from[0], Math.max(to, from[1])];
}

/** The calendar month (else year) `offset` months (years) from the one `instant` falls in. */
function calendarSpan(instant: number, month: boolean, offset: number): readonly [number, number] {
  const d = new Date(instant);
  const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
  return month ? [Date.UTC(y, m + offset, 1), Date.UTC(y, m + offset + 1, 1)] : [Date.UTC(y + offset, 0, 1), Date.UTC(y + offset + 1, 0, 1)];
}

/** The day, month or year a parsed date names, by what it states for certain; shifted back when it would lie ahead. */
function spanOf(date: ParsedComponents, text: string, instant: number): readonly [number, number] | null {
  const at = date.date().getTime();
  const year = date.get("year")!;
  const month = date.get("month")!;
  let span: [number, number];
  if (date.isCertain("day") || date.isCertain("weekday") || /\b(?:morning|afternoon|evening|tonight|night)\b/.test(text)) {
    let from = startOfDay(at);
    let days = 1;
    // "the past weekend" reads as its Sunday: the window is the Saturday and the Sunday.
    if (text.includes("weekend")) {
      if (new Date(from).getUTCDay() === 0) from -= DAY_MS;
      days = 2;
    }
    span = [from, from + days * DAY_MS];
    // Memory is about the past: "on Monday" asked on a Saturday is the Monday gone, not the next.
    if (span[0] > instant && !date.isCertain("year")) {
      const back = date.isCertain("month") ? yearBack(span[0]) - span[0] : -7 * DAY_MS;
      span = [span[0] + back, span[1] + back];
    }
  } else if (date.isCertain("month")) {
    span = [Date.UTC(year, month - 1, 1), Date.UTC(year, month, 1)];
    if (span[0] > instant && !date.isCertain("year")) span = [Date.UTC(year - 1, month - 1, 1), Date.UTC(year - 1, month, 1)];
  } else if (date.isCertain("year")) {
    span = [Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)];
  } else {
    return null;
  }
  return span;
}

/** The same calendar day a year earlier. */
function yearBack(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear() - 1, d.getUTCMonth(), d.getUTCDate());
}

const asPattern = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/'/g, "['’]?");
const HOLIDAY_NAMES = HOLIDAYS.flatMap((h) => h.names.map((name) => ({ name, holiday: h }))).sort((a, b) => b.name.length - a.name.length);
const HOLIDAY_PATTERN = new RegExp(`\\b(${HOLIDAY_NAMES.map((n) => asPattern(n.name)).join("|")})(?:,?\\s+((?:19|20)\\d{2}))?\\b`, "i");
const SEASON_PATTERN = new RegExp(
  `\\b(?:(last|this|past)\\s+(${SEASONS.map((s) => s.name).join("|")})|(${SEASONS.map((s) => s.name).join("|")})\\s+(?:of\\s+)?((?:19|20)\\d{2}))\\b`,
  "i",
);
const YEAR_PATTERN = /\b(?:in|during|since|throughout|of)\s+((?:19|20)\d{2})\b(?!\s*(?:am|pm|[:./-]\d))/i;

/** A year's date of a holiday or season start, the latest one not after the reference unless the year is given. */
function latestYear(date: (year: number) => number, given: string | undefined, reference: Date): number {
  if (given !== undefined) return Number(given);
  const year = reference.getUTCFullYear();
  return date(year) <= reference.getTime() ? year : year - 1;
}

/** chrono-node's casual English, with the holidays, seasons and bare years ("in 2022") it does not read. */
function timeParser(): typeof casual {
  const parser = casual.clone();
  parser.parsers.push({
    pattern: () => HOLIDAY_PATTERN,
    extract: (context: ParsingContext, match: RegExpMatchArray) => {
      const spelled = match[1]!.toLowerCase().replace(/’/g, "'");
      const holiday = HOLIDAY_NAMES.find((n) => n.name === spelled || n.name.replace(/'/g, "") === spelled.replace(/'/g, ""))?.holiday;
      if (holiday === undefined) return null;
      const dayOf = (y: number): number => Date.UTC(y, holiday.date(y)[0] - 1, holiday.date(y)[1]);
      const year = latestYear(dayOf, match[2], context.refDate);
      const [month, day] = holiday.date(year);
      return { year, month, day };
    },
  });
  parser.parsers.push({
    pattern: () => SEASON_PATTERN,
    extract: (context: ParsingContext, match: RegExpMatchArray) => {
      const season = SEASONS.find((s) => s.name === (match[2] ?? match[3])!.toLowerCase())!;
      const startOf = (y: number): number => Date.UTC(y, season.firstMonth - 1, 1);
      const endOf = (y: number): number => Date.UTC(y, season.firstMonth - 1 + season.months, 1);
      let year = latestYear(startOf, match[4], context.refDate);
      // "last summer" asked in August is the summer before this one.
      if (match[1]?.toLowerCase() === "last" && context.refDate.getTime() < endOf(year)) year -= 1;
      const end = new Date(Date.UTC(year, season.firstMonth - 1 + season.months, 0));
      return context.createParsingResult(
        match.index!,
        match[0],
        { year, month: season.firstMonth, day: 1 },
        {
          year: end.getUTCFullYear(),
          month: end.getUTCMonth() + 1,
          day: end.getUTCDate(),
        },
      );
    },
  });
  parser.parsers.push({ pattern: () => YEAR_PATTERN, extract: (_context: ParsingContext, match: RegExpMatchArray) => ({ year: Number(match[1]) }) });
  return parser;
}
