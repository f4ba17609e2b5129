/**
 * Reading time in a question: a labelled set of expressions (what window each names, read at a
 * fixed instant), what is not a date, order questions, the time a fact names, and the lift's shape.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { TIME_MAX_CHARS, readFactTime, readQueryTime, timeLift, withoutExpressions } from "../../../src/memory/time/query-time";
import { HOLIDAYS } from "../../../src/memory/time/words";

/** Saturday 11 March 2023, 05:28 UTC: the instant every case is read at. */
const INSTANT = Date.UTC(2023, 2, 11, 5, 28);
const DAY = 86_400_000;
const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`);

/**
 * Each case: the query, the expression found, a day inside its window, a day outside it, and
 * whether the expression is relative (its words are then not search terms).
 */
const LABELLED: readonly { query: string; expression: string; inside: string; outside: string; relative: boolean }[] = [
  {
    query: "I visited a museum two months ago. Was it with a friend?",
    expression: "two months ago",
    inside: "2023-01-11",
    outside: "2023-03-01",
    relative: true,
  },
  {
    query: "What was the airline I flew with on Valentine's day?",
    expression: "Valentine's day",
    inside: "2023-02-14",
    outside: "2023-02-16",
    relative: false,
  },
  {
    query: "the order of the trips I took in the past three months",
    expression: "past three months",
    inside: "2023-01-05",
    outside: "2022-11-01",
    relative: true,
  },
  { query: "What was the social media activity 5 days ago?", expression: "5 days ago", inside: "2023-03-06", outside: "2023-03-08", relative: true },
  { query: "Which bike did I service the past weekend?", expression: "past weekend", inside: "2023-03-04", outside: "2023-03-07", relative: true },
  { query: "Who did I meet for lunch last Tuesday?", expression: "last Tuesday", inside: "2023-03-07", outside: "2023-03-09", relative: true },
  { query: "Which shoes did I clean last month?", expression: "last month", inside: "2023-02-20", outside: "2023-03-05", relative: true },
  { query: "what did we decide yesterday", expression: "yesterday", inside: "2023-03-10", outside: "2023-03-11", relative: true },
  { query: "what happened last week", expression: "last week", inside: "2023-03-03", outside: "2023-03-10", relative: true },
  { query: "What did I do in March?", expression: "March", inside: "2023-03-20", outside: "2023-02-20", relative: false },
  { query: "What did I buy on May 3rd?", expression: "May 3rd", inside: "2022-05-03", outside: "2023-05-03", relative: false },
  { query: "what happened in 2022", expression: "in 2022", inside: "2022-07-01", outside: "2023-01-02", relative: false },
  { query: "where did we go last summer", expression: "last summer", inside: "2022-07-15", outside: "2022-10-01", relative: true },
  { query: "the party on Christmas 2021", expression: "Christmas 2021", inside: "2021-12-25", outside: "2022-12-25", relative: false },
  { query: "what did I cook on Thanksgiving", expression: "Thanksgiving", inside: "2022-11-24", outside: "2022-11-17", relative: false },
  { query: "who called on Monday", expression: "on Monday", inside: "2023-03-06", outside: "2023-03-13", relative: true },
  { query: "what changed in the last 2 weeks", expression: "last 2 weeks", inside: "2023-03-01", outside: "2023-02-10", relative: true },
  { query: "where was Calvin in the last week of October 2022?", expression: "October 2022", inside: "2022-10-27", outside: "2022-09-27", relative: false },
  {
    query: "What did they plan for the Saturday after October 28, 2022?",
    expression: "October 28, 2022",
    inside: "2022-10-28",
    outside: "2022-10-20",
    relative: false,
  },
];

describe("time expressions in a question", () => {
  test.each(LABELLED)("$query", ({ query, expression, inside, outside, relative }) => {
    const time = readQueryTime(query, INSTANT);
    expect(time.windows.map((w) => w.expression)).toEqual([expression]);
    const [window] = time.windows;
    expect(day(inside)).toBeGreaterThanOrEqual(window!.from - DAY);
    expect(day(inside)).toBeLessThan(window!.to);
    expect(day(outside) >= window!.to || day(outside) + DAY <= window!.from).toBe(true);
    expect(withoutExpressions(query, time).includes(expression)).toBe(!relative);
  });

  test.each([
    "we march on",
    "I sat down with the team",
    "may I ask about the billing plan",
    "the deploy runs at 5pm",
    "What time do I wake up on Saturday mornings?",
    "What time did I go to bed the day before my appointment?",
    "we have 3 servers and version 2.3",
    "how do I configure the firewall",
    "Helga uses the mobile app every Monday",
    "Project Harbor is 18 percent done",
    "Sun Microsystems was bought by Oracle",
    "I bought my valentine's gift",
    "what did we ship two weeks before the launch",
    "in the year of the move",
    "where did Ana fly 14288638 weeks ago",
  ])("no date in %j", (query) => {
    expect(readQueryTime(query, INSTANT).windows).toEqual([]);
  });

  test("a capitalised month or weekday is read, lower-case alone it is an everyday word", () => {
    expect(readQueryTime("budget approved March", INSTANT).windows).toHaveLength(1);
    expect(readQueryTime("budget approved march", INSTANT).windows).toHaveLength(0);
  });

  test.each([
    ["2024-05-31T10:00:00Z", "last month", "2024-04-01", "2024-05-01"],
    ["2024-12-31T10:00:00Z", "last month", "2024-11-01", "2024-12-01"],
    ["2023-03-29T10:00:00Z", "last month", "2023-02-01", "2023-03-01"],
    ["2024-01-15T10:00:00Z", "last year", "2023-01-01", "2024-01-01"],
    ["2024-05-31T10:00:00Z", "this month", "2024-05-01", "2024-06-01"],
  ] as const)("at %s, %s is the calendar span %s to %s", (at, query, from, to) => {
    const [window] = readQueryTime(`what did we ship ${query}`, Date.parse(at)).windows;
    expect([window!.from, window!.to]).toEqual([day(from), day(to)]);
  });

  test("this week holds today: the last seven days", () => {
    for (const at of ["2024-05-20T09:00:00Z", "2024-05-24T18:00:00Z", "2024-05-26T23:00:00Z"]) {
      const [window] = readQueryTime("what did we ship this week", Date.parse(at)).windows;
      expect(window!.to).toBe(Date.parse(at));
      expect(window!.from).toBe(Date.parse(at) - 7 * DAY);
    }
  });

  test("the read's instant decides: the same words name another window a year later", () => {
    const now = readQueryTime("what did I do last month", INSTANT).windows[0]!;
    const later = readQueryTime("what did I do last month", INSTANT + 365 * DAY).windows[0]!;
    expect(later.from - now.from).toBeGreaterThan(360 * DAY);
  });

  test("a query longer than a question is not read for time; at most four windows are kept", () => {
    expect(readQueryTime(`what did we ship last week? ${"and then some more context ".repeat(25)}`, INSTANT).windows).toEqual([]);
    expect(readQueryTime("last Tuesday, 7/22, in March, on Valentine's day, two weeks ago and in 2021", INSTANT).windows).toHaveLength(4);
  });

  test("a query with no digit and no time word is not parsed at all", () => {
    expect(readQueryTime("who owns the billing service", INSTANT)).toEqual({ windows: [], spans: [], order: false });
  });

  test.each([
    ["Which event did I attend first, the workshop or the webinar?", true],
    ["What is the order of the three trips I took?", true],
    ["List the museums from earliest to latest", true],
    ["In which order did we ship the releases?", true],
    ["Which device did I set up first, the thermostat or the router?", true],
    ["Who was my first client?", false],
    ["what is the latest on the migration", false],
    ["what is the status of the order for Acme", false],
    ["the earliest flight to Oslo", false],
    ["which config do I need in order to deploy", false],
  ] as const)("order question %j: %p", (query, order) => {
    expect(readQueryTime(query, INSTANT).order).toBe(order);
  });
});

describe("the holidays' dates", () => {
  const dateOf = (name: string, year: number): string => {
    const [month, dayOfMonth] = HOLIDAYS.find((h) => h.names.includes(name))!.date(year);
    return `${month}-${dayOfMonth}`;
  };
  test.each([
    ["thanksgiving", 2022, "11-24"],
    ["thanksgiving", 2023, "11-23"],
    ["easter", 2024, "3-31"],
    ["easter", 2025, "4-20"],
    ["mother's day", 2023, "5-14"],
    ["memorial day", 2023, "5-29"],
    ["father's day", 2023, "6-18"],
    ["labor day", 2023, "9-4"],
    ["christmas", 2023, "12-25"],
    ["black friday", 2023, "11-24"],
  ] as const)("%s %d is %s", (name, year, expected) => {
    expect(dateOf(name, year)).toBe(expected);
  });

  test("a holiday without a year is the latest one not after the instant", () => {
    const [window] = readQueryTime("what did I do on Halloween", INSTANT).windows;
    expect(new Date(window!.from).toISOString().slice(0, 10)).toBe("2022-10-31");
  });
});

describe("the time a fact names", () => {
  const observed = Date.UTC(2023, 4, 24, 12);
  test("read at the fact's observation", () => {
    const about = readFactTime("I cleaned my white sneakers last month", observed)!;
    expect(new Date(about[0]).toISOString().slice(0, 10)).toBe("2023-04-01");
    expect(new Date(about[1]).toISOString().slice(0, 10)).toBe("2023-05-01");
  });
  test("none when it names no date, or is longer than a fact is read for", () => {
    expect(readFactTime("Ana prefers tea over coffee", observed)).toBeNull();
    expect(readFactTime(`I moved last month. ${"x".repeat(TIME_MAX_CHARS)}`, observed)).toBeNull();
  });
});

describe("the lift", () => {
  const [window] = readQueryTime("what did we ship last month", INSTANT).windows;
  const windows = [window!];
  test("1 inside the window, fading outside it to 0, never below", () => {
    expect(timeLift(windows, window!.from)).toBe(1);
    expect(timeLift(windows, window!.to - 1)).toBe(1);
    const near = timeLift(windows, window!.to + DAY);
    const far = timeLift(windows, window!.to + 5 * DAY);
    expect(near).toBeLessThan(1);
    expect(far).toBeLessThan(near);
    expect(timeLift(windows, window!.to + window!.fade)).toBe(0);
    expect(timeLift(windows, window!.from - 10 * window!.fade)).toBe(0);
  });
  test("a span the fact names lifts when it overlaps the window", () => {
    expect(timeLift(windows, window!.from - 40 * DAY, window!.from + DAY)).toBe(1);
    expect(timeLift(windows, window!.to + 2 * window!.fade, window!.to + 3 * window!.fade)).toBe(0);
  });
});

describe("any text", () => {
  const pieces = fc.constantFrom(
    "two months ago",
    "last",
    "Tuesday",
    "on",
    "Valentine's day",
    "in",
    "March",
    "2023",
    "7/22",
    "31/02/2023",
    "the 5th",
    "of",
    "after",
    "every",
    "Monday",
    "mornings",
    "past",
    "three",
    "weeks",
    "Christmas",
    "9999",
    "0000-00-00",
    "summer",
    "?",
    "’",
    "\u0000",
    "14288638",
    "999999999",
    "ago",
    "years",
  );
  const texts = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.array(pieces, { maxLength: 12 }).map((words) => words.join(" ")),
  );
  const instants = fc.integer({ min: Date.UTC(-9000, 0, 1), max: Date.UTC(9000, 0, 1) });

  test("reads without throwing: finite, non-empty windows and spans inside the text", () => {
    fc.assert(
      fc.property(texts, instants, (text, instant) => {
        const time = readQueryTime(text, instant);
        for (const w of time.windows) {
          expect(w.from < w.to && w.fade > 0).toBe(true);
          // explain writes them as ISO 8601: they must be dates JavaScript can hold.
          expect(() => [new Date(w.from).toISOString(), new Date(w.to).toISOString()]).not.toThrow();
        }
        for (const [start, end] of time.spans) expect(0 <= start && start < end && end <= text.length).toBe(true);
        const about = readFactTime(text, instant);
        if (about !== null) expect(Number.isFinite(about[0]) && about[0] < about[1]).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
