/**
 * The words and dates time in a question is read with (docs/memory.md, "Time in the question"),
 * as data: chrono-node reads the expressions; these records say when to ask it, which of its
 * readings to distrust, and the dates it does not know.
 */

/**
 * A query holding none of these words and no digit has no time expression chrono-node would
 * find: it is not parsed at all (most queries, and the parser is the costly part of reading one).
 */
export const TIME_WORDS: ReadonlySet<string> = new Set([
  // relative days and periods
  ...["ago", "yesterday", "today", "tonight", "tomorrow", "last", "past", "previous", "this", "next", "within"],
  ...["day", "days", "week", "weeks", "weekend", "weekends", "month", "months", "year", "years"],
  // month names and their abbreviations
  ...["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"],
  ...["jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"],
  // weekdays and their abbreviations
  ...["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
  ...["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"],
  // the first word of each holiday and season below
  ...["christmas", "xmas", "valentine", "valentine's", "valentines", "halloween", "thanksgiving", "easter", "new", "independence", "fourth", "black"],
  ...["mother's", "mothers", "father's", "fathers", "memorial", "labor", "labour", "boxing", "st", "saint", "april"],
  ...["spring", "summer", "autumn", "fall", "winter"],
]);

/**
 * Readings chrono-node makes of a lone everyday word: "we march on" is not March. Such a reading
 * counts only when the word is written capitalised ("in March", "budget approved May"), or the
 * expression holds more than the word ("May 3").
 */
export const EVERYDAY_WORDS: ReadonlySet<string> = new Set(["march", "may", "second", "fall"]);

/** A weekday's abbreviation alone is never read: "I sat down", "Sun Microsystems". With more ("last Sat") it is. */
export const WEEKDAY_ABBREVIATIONS: ReadonlySet<string> = new Set(["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"]);

/** What chrono-node reads as a date that names none: "the day before I had a doctor's appointment". */
export const NOT_A_DATE: ReadonlySet<string> = new Set([
  ...["the day before", "the day after", "day before", "day after", "the next day", "next day"],
  ...["the year", "in the year"],
]);

/**
 * A reading followed by one of these is anchored to the date after it, not to the read's instant:
 * "the last week of October 2023", "the Saturday after October 28". It is left out; the date it
 * is anchored to is read on its own.
 */
export const ANCHOR_WORDS: ReadonlySet<string> = new Set(["of", "after", "before", "following", "preceding"]);

/**
 * A weekday followed by one of these names a habit, not a day: "on Saturday mornings", "on
 * Monday nights" (a plural weekday, "on Saturdays", is never read as a date).
 */
export const HABITUAL_NEXT: ReadonlySet<string> = new Set(["mornings", "afternoons", "evenings", "nights"]);

/** A reading right after one of these names a habit too: "every Monday", "each Friday". */
export const HABITUAL_BEFORE: ReadonlySet<string> = new Set(["every", "each"]);

/**
 * Words that make an expression relative to when it is said: "two months ago", "last Tuesday",
 * "this year". Their words are not search terms: a fact said "two months ago" at another time
 * means another time. An absolute date ("in March", "on 7/22", "on Valentine's day") stays a term
 * as well as a window, since facts name such dates in the same words.
 */
export const RELATIVE_WORDS: ReadonlySet<string> = new Set([
  ...["ago", "last", "past", "previous", "next", "this", "within", "yesterday", "today", "tonight", "tomorrow"],
  ...["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"],
  ...["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"],
]);

/** A date a holiday falls on in a given year: [month 1-12, day]. */
type HolidayDate = (year: number) => readonly [number, number];

/** The n-th (1-based; -1 for the last) given weekday (0 = Sunday) of a month, as [month, day]. */
function nthWeekday(month: number, weekday: number, n: number): HolidayDate {
  return (year) => {
    if (n > 0) {
      const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
      return [month, 1 + ((weekday - first + 7) % 7) + 7 * (n - 1)];
    }
    const lastDay = new Date(Date.UTC(year, month, 0));
    return [month, lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7)];
  };
}

/** Easter Sunday in the Gregorian calendar (the anonymous algorithm, Meeus/Jones/Butcher). */
function easter(year: number): readonly [number, number] {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((8 * b + 13) / 25)) / 3) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return [month, ((h + l - 7 * m + 114) % 31) + 1];
}

export interface Holiday {
  /** The ways it is written, lower-case; an apostrophe may be left out or typed as ’. */
  names: readonly string[];
  date: HolidayDate;
  /** Where the date comes from, when it is not one fixed day. */
  why?: string;
}

/** The holidays chrono-node does not know; the moving ones are the United States' dates. */
export const HOLIDAYS: readonly Holiday[] = [
  { names: ["new year's day", "new years day"], date: () => [1, 1] },
  { names: ["valentine's day", "valentines day", "valentine day"], date: () => [2, 14] },
  { names: ["st patrick's day", "st. patrick's day", "saint patrick's day", "st patricks day"], date: () => [3, 17] },
  { names: ["april fools' day", "april fool's day", "april fools day"], date: () => [4, 1] },
  { names: ["easter", "easter sunday"], date: easter, why: "the Gregorian computus" },
  { names: ["mother's day", "mothers day"], date: nthWeekday(5, 0, 2), why: "the second Sunday of May (United States)" },
  { names: ["memorial day"], date: nthWeekday(5, 1, -1), why: "the last Monday of May" },
  { names: ["father's day", "fathers day"], date: nthWeekday(6, 0, 3), why: "the third Sunday of June (United States)" },
  { names: ["independence day", "fourth of july", "4th of july"], date: () => [7, 4], why: "the United States' Independence Day" },
  { names: ["labor day", "labour day"], date: nthWeekday(9, 1, 1), why: "the first Monday of September (United States)" },
  { names: ["halloween"], date: () => [10, 31] },
  { names: ["thanksgiving", "thanksgiving day"], date: nthWeekday(11, 4, 4), why: "the fourth Thursday of November (United States)" },
  { names: ["black friday"], date: (year) => [11, nthWeekday(11, 4, 4)(year)[1] + 1], why: "the day after Thanksgiving" },
  { names: ["christmas eve"], date: () => [12, 24] },
  { names: ["christmas", "christmas day", "xmas"], date: () => [12, 25] },
  { names: ["boxing day"], date: () => [12, 26] },
  { names: ["new year's eve", "new years eve"], date: () => [12, 31] },
];

export interface Season {
  name: string;
  /** The month it starts in (1-12) and how many months it lasts; northern hemisphere, by meteorological seasons. */
  firstMonth: number;
  months: number;
}

export const SEASONS: readonly Season[] = [
  { name: "spring", firstMonth: 3, months: 3 },
  { name: "summer", firstMonth: 6, months: 3 },
  { name: "autumn", firstMonth: 9, months: 3 },
  { name: "fall", firstMonth: 9, months: 3 },
  { name: "winter", firstMonth: 12, months: 3 },
];

/** How long each unit a relative expression counts in lasts, in milliseconds (a month and a year on average). */
export const UNIT_MS: Readonly<Record<string, number>> = {
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30.44 * 86_400_000,
  year: 365.25 * 86_400_000,
};

export interface OrderCue {
  /** Consecutive words of the query (lower-case) that ask about order. */
  words: readonly string[];
  /** A word the query must also hold, else the cue means something else ("my first client"). */
  with?: string;
}

/**
 * What makes a question about order: which happened first, in what order. Such a question's
 * context packet lists the retrieved facts of each subject in the order they were observed.
 */
export const ORDER_CUES: readonly OrderCue[] = [
  { words: ["first"], with: "or" },
  { words: ["happened", "first"] },
  { words: ["came", "first"] },
  { words: ["earliest", "to", "latest"] },
  { words: ["oldest", "to", "newest"] },
  { words: ["chronological"] },
  { words: ["chronologically"] },
  { words: ["the", "order", "of"] },
  { words: ["the", "order", "in"] },
  { words: ["what", "order"] },
  { words: ["which", "order"] },
];
