/**
 * The *updates* reader: a newer statement that says something changed ("Swapped on-call: Devon is
 * covering payments now", "v4.2 slipped to the 19th") about what an older fact of the same scope
 * says ("On-call for payments this week is Alicia", "v4.2 ships on the 12th"). It hides nothing:
 * readers put the newer fact first (memory/index/freshness.ts). Change words and shared words are
 * weak evidence, which is why they may only ever make this link (capture/links.ts has the one gate
 * that hides).
 */
import { termOf } from "../memory/index/terms";
import { FUNCTION_WORDS } from "./rules/lexicon";

/**
 * Words that say a state changed, as written (no stemming: "moved" is a change, "movie" is not).
 * Each record is a cue, the forms it is written in, and whether it says a change by itself
 * (`strong`: "switched", "slipped") or only in company ("now", "new", "started": common in any
 * chat), in which case the two facts must share two content words.
 */
const CHANGE_CUES: readonly { cue: string; strong: boolean; forms: readonly string[] }[] = [
  { cue: "no longer", strong: true, forms: ["anymore", "longer", "instead"] },
  { cue: "now", strong: false, forms: ["now", "nowadays", "currently", "again", "effective", "starting", "forward"] },
  {
    cue: "switch",
    strong: true,
    forms: ["switch", "switched", "switching", "swap", "swapped", "swapping", "trade", "traded", "replaced", "replacing", "replaces", "handed", "handing"],
  },
  {
    cue: "move",
    strong: true,
    forms: ["moved", "moving", "moves", "relocated", "relocating", "migrated", "migrating", "transferred", "reassigned", "rehomed"],
  },
  { cue: "leave", strong: true, forms: ["left", "leaving", "quit", "quitting", "resigned", "dropped", "sold", "ended", "stopped", "cancelled", "canceled"] },
  {
    cue: "start",
    strong: false,
    forms: ["joined", "started", "became", "took", "taking", "covering", "hired", "bought", "adopted", "returned", "back", "gave"],
  },
  { cue: "promote", strong: true, forms: ["promoted", "demoted"] },
  { cue: "reschedule", strong: true, forms: ["pushed", "slipped", "delayed", "postponed", "rescheduled", "bumped", "extended", "shortened"] },
  {
    cue: "amount",
    strong: true,
    forms: ["increased", "decreased", "raised", "lowered", "doubled", "halved", "reduced", "expanded", "shrank"],
  },
  {
    cue: "retire",
    strong: true,
    forms: ["retired", "deprecated", "sunset", "sunsetted", "decommissioned", "discontinued", "renegotiated", "rolled", "reverted", "favour", "favor"],
  },
  { cue: "change", strong: true, forms: ["changed", "changing", "updated", "upgraded", "downgraded", "renamed", "revised"] },
  { cue: "new", strong: false, forms: ["change", "update", "new", "went"] },
];
const CUE_OF: ReadonlyMap<string, { cue: string; strong: boolean }> = new Map(
  CHANGE_CUES.flatMap(({ cue, strong, forms }) => forms.map((form) => [form, { cue, strong }] as const)),
);
/** Two words that say a change where each alone is weak or none: "gave up the bus", "Lena took over", "is now". */
const STRONG_PAIRS: ReadonlySet<string> = new Set([
  "gave up",
  "took over",
  "taken over",
  "handed over",
  "ripped out",
  "got rid",
  "is now",
  "are now",
  "moved off",
]);

/** Words too general to say two facts are about one thing. */
const NOT_TOPICS: ReadonlySet<string> = new Set(["week", "month", "year", "day", "today", "time", "thing", "last", "next", "this", "that", "there"]);

/** A fact as the updates reader compares it. */
export interface UpdateSide {
  /** Content words, lower case, without function words or change words: what candidates are looked up by. */
  words: readonly string[];
  /** Their stems (the search index's, so "renews" meets "renewal"): what two facts are compared on. */
  content: ReadonlySet<string>;
  /** Runs of capitalised words ("cobalt textiles"), lower case, without a lone capital that opens the sentence. */
  names: readonly string[];
  /** The stems of the words that name one thing: the names' words and identifiers ("v4.2", "ec2"). */
  named: ReadonlySet<string>;
  /** The change word the fact holds, a strong one before a weak one, if any. */
  cue: { cue: string; strong: boolean } | undefined;
}

/** Words: letters, digits and the dots and hyphens inside them ("v4.2", "fly.io", "on-call"). */
const WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}.-]*[\p{L}\p{N}])?/gu;

/** Where a run of capitalised words ends: punctuation between words, or a dash set off by spaces. */
const SEGMENT_END = /[;,:!?()"“”]+|\.(?=\s|$)|\s[-–—]\s/u;

export function updateSideOf(text: string): UpdateSide {
  const content = new Set<string>();
  const looked = new Set<string>();
  const names: string[] = [];
  let cue: { cue: string; strong: boolean } | undefined;
  for (const segment of text.replace(/['’]s\b/gu, "").split(SEGMENT_END)) {
    let run: string[] = [];
    let runFrom = 0;
    const endRun = (): void => {
      // A lone capital that opens a sentence or clause is only its first word.
      if (run.length > 1 || (run.length === 1 && runFrom > 0)) names.push(run.join(" "));
      run = [];
    };
    const segmentWords = segment.match(WORD) ?? [];
    segmentWords.forEach((word, i) => {
      const lower = word.toLowerCase();
      const pair = `${lower} ${segmentWords[i + 1]?.toLowerCase() ?? ""}`;
      const said = STRONG_PAIRS.has(pair) ? { cue: pair, strong: true } : CUE_OF.get(lower);
      if (said !== undefined && (cue === undefined || (said.strong && !cue.strong))) cue = said;
      // Titles and initials ("Dr", "J") are not part of a name: two doctors are not one thing.
      if (/^\p{Lu}/u.test(word) && word.length > 2 && !FUNCTION_WORDS.has(lower) && !CUE_OF.has(lower)) {
        if (run.length === 0) runFrom = i;
        run.push(lower);
      } else endRun();
      // Short words say little, but an acronym ("QA", "HR") names a team or a thing.
      const short = lower.length < 3 && !/\d/u.test(lower) && !/^\p{Lu}{2}$/u.test(word);
      if (FUNCTION_WORDS.has(lower) || CUE_OF.has(lower) || NOT_TOPICS.has(lower) || short) return;
      looked.add(lower);
      content.add(termOf(lower));
    });
    endRun();
  }
  const named = new Set([...names.flatMap((n) => n.split(" ")), ...[...looked].filter((w) => IDENTIFIER.test(w))].map(termOf));
  return { words: [...looked], content, names, named, cue };
}

/**
 * Two names of two things: they share a word but neither holds the other ("Cobalt Freight",
 * "Cobalt Textiles"). A name within another is short for it ("Brightline" for "Brightline Dental",
 * "Falcon" for "Project Falcon").
 */
function namesConflict(older: UpdateSide, newer: UpdateSide): boolean {
  const within = (a: string, b: string): boolean => ` ${b} `.includes(` ${a} `);
  return older.names.some((o) => newer.names.some((n) => !within(o, n) && !within(n, o) && o.split(" ").some((w) => n.split(" ").includes(w))));
}

/**
 * Why the newer fact updates the older, or null: it says something changed, shares two content
 * words with it (or, after a strong change word, one that names the thing), and names no other
 * thing of the same kind ("Cobalt Freight" and "Cobalt Textiles",
 * "batch1" and "batch3"). Two facts that share words but say no change are left to the reader,
 * which puts the newer first only when both match a question alike (memory/index/freshness.ts).
 */
export function updateOf(newer: UpdateSide, older: UpdateSide): { reason: string; weak: boolean } | null {
  if (newer.cue === undefined || namesConflict(older, newer) || identifiersConflict(older, newer)) return null;
  const shared = [...newer.content].filter((w) => older.content.has(w));
  // One shared word after a strong change word: enough when it names the thing ("Vespa", "v4.2");
  // a common word ("bus") makes a weak link, which only reorders facts a question found.
  if (shared.length === 0 || (shared.length === 1 && !newer.cue.strong)) return null;
  const weak = shared.length === 1 && !shared.some((w) => newer.named.has(w) || older.named.has(w));
  const about = shared
    .slice(0, 3)
    .map((w) => `"${w}"`)
    .join(", ");
  return { reason: `updates${weak ? " (weakly)" : ""}: change word "${newer.cue.cue}", both about ${about}`, weak };
}

/** A word that names one thing of many by a number in it: "batch1", "sprint12", "ec2", "v4.2". */
const IDENTIFIER = /^\p{L}[\p{L}.-]*\d/u;

/** Each fact names things by identifiers and they share none: two crates, two sprints. */
function identifiersConflict(older: UpdateSide, newer: UpdateSide): boolean {
  const ids = (side: UpdateSide): string[] => side.words.filter((w) => IDENTIFIER.test(w));
  const a = ids(older);
  const b = ids(newer);
  return a.length > 0 && b.length > 0 && !a.some((w) => b.includes(w));
}
