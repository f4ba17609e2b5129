import { expect, test } from "bun:test";
import { NAME_RULES, SPEAKER_PREFIX, TEAM_RULES } from "../../src/capture/rules/subject";
import { ANA, explain, NAMELESS, type Extra } from "./helpers";

type Row = [text: string, extra: Extra, subject: string, subjectType: string, rule: string];

const PRIYA = ["Priya Shah", "Tom Lee"];

/** Positive examples: the rule named last is the one that must decide. */
const positives: Row[] = [
  ["Priya's manager is Tom", { endUser: ANA }, "Ana", "end_user", "end_user"],
  ["likes tea with oat milk", { endUser: NAMELESS }, "u_42", "end_user", "end_user"],
  ["We deploy on Fridays", { endUser: ANA }, "Ana", "end_user", "end_user"],
  ["priya's laptop is broken", { members: PRIYA }, "Priya Shah", "team", "team_member"],
  ["Yesterday Tom Lee decided to ship", { members: PRIYA }, "Tom Lee", "team", "team_member"],
  ["Priya: we should cut scope", { members: PRIYA }, "Priya Shah", "team", "team_member"],
  ["After lunch PRIYA SHAH approved the plan", { members: PRIYA }, "Priya Shah", "team", "team_member"],
  ["Will is on call this week", { members: ["Will"] }, "Will", "team", "team_member"],
  ["Caroline: I went hiking last weekend", {}, "Caroline", "workspace", "speaker_prefix"],
  ["Caroline: we went to the beach with the kids", {}, "Caroline", "workspace", "speaker_prefix"],
  ["Jean-Luc Picard: make it so", {}, "Jean-Luc Picard", "workspace", "speaker_prefix"],
  ["We deploy on Fridays", {}, "team", "team", "team_we_start"],
  ["Let's use Postgres for everything", {}, "team", "team", "team_we_start"],
  ["Our deploy pipeline runs on Fridays", {}, "team", "team", "team_our_start"],
  ["The team meets every Tuesday", {}, "team", "team", "team_noun_start"],
  ["Priya said we should migrate", {}, "team", "team", "team_we_anywhere"],
  ["Last quarter the team shipped billing", {}, "team", "team", "team_noun_start"],
  ["Since March the team's budget doubled", {}, "team", "team", "team_noun_subject"],
  ["Priya prefers tea", {}, "Priya", "workspace", "name_at_start"],
  ["Acme's renewal date is May 1", {}, "Acme", "workspace", "name_at_start"],
  ["Yesterday Priya decided to leave", {}, "Priya", "workspace", "name_at_start"],
  ["Priya Sharma lives in Berlin", {}, "Priya Sharma", "workspace", "name_at_start"],
  ["Zoë's birthday is in March", {}, "Zoë", "workspace", "name_at_start"],
  ["Note: Priya is out until Monday", {}, "Priya", "workspace", "name_at_start"],
  ["After the outage, Priya's team wrote a postmortem", {}, "Priya", "workspace", "name_possessive"],
  ["IBM's contract renews in June", {}, "IBM", "workspace", "name_possessive"],
  ["The manager of Priya is Tom", {}, "Priya", "workspace", "name_of_possessive"],
  ["The deploy pipeline runs on Fridays", {}, "deploy pipeline", "workspace", "topic"],
  ["The API is slow", {}, "api", "workspace", "topic"],
  ["API latency is high after deploys", {}, "api latency", "workspace", "topic"],
  ["Latency increased at noon", {}, "latency", "workspace", "topic"],
  ["Monday standups are cancelled", {}, "monday standups", "workspace", "topic"],
  ["When the build fails, page the on-call", {}, "build", "workspace", "topic"],
  ["I prefer dark mode", {}, "dark mode", "workspace", "topic"],
  ["Node.js 22 is the runtime", {}, "node.js 22", "workspace", "topic"],
  ["😀😀😀 🎉", {}, "general", "workspace", "fallback_general"],
  ["", {}, "general", "workspace", "fallback_general"],
];

test.each(positives)("subject of %j %o -> %s (%s) by %s", (text, extra, subject, subjectType, rule) => {
  const result = explain(text, extra);
  expect(result.analysis.subject).toBe(subject);
  expect(result.analysis.subjectType).toBe(subjectType as never);
  expect(result.rules.subject).toBe(rule);
});

/** Negative examples: a rule that must NOT decide, and what decides instead. */
const negatives: [text: string, extra: Extra, notRule: string, subject: string][] = [
  // Priya is only the object here: "we" is the subject.
  ["We asked Priya for the numbers", { members: PRIYA }, "team_member", "team"],
  ["The outage was fixed by Priya Shah", { members: PRIYA }, "team_member", "outage"],
  // Two members share the first name "Priya", so "Priya" alone names neither.
  ["Priya is out today", { members: ["Priya Shah", "Priya Patel"] }, "team_member", "Priya"],
  // "will" is a modal unless capitalised like a name.
  ["We will ship on Monday", { members: ["Will"] }, "team_member", "team"],
  ["It may rain, so the offsite moves", { members: ["May"] }, "team_member", "rain"],
  ["Note: the staging DB is slow", {}, "speaker_prefix", "staging db"],
  ["Password: hunter2", {}, "speaker_prefix", "password"],
  ["The Acme deal closed", {}, "name_at_start", "acme deal"],
  ["This is fine", {}, "name_at_start", "fine"],
  ["Deployment takes ten minutes", {}, "name_at_start", "deployment"],
  ["It's done", {}, "name_possessive", "done"],
  ["Users want dark mode", {}, "name_at_start", "users"],
  ["SQL migrations are slow", {}, "name_at_start", "sql migrations"],
  ["Today's standup is cancelled", {}, "name_possessive", "standup"],
];

test.each(negatives)("subject of %j %o is not decided by %s (-> %s)", (text, extra, notRule, subject) => {
  const result = explain(text, extra);
  expect(result.rules.subject).not.toBe(notRule);
  expect(result.analysis.subject).toBe(subject);
});

test("every subject rule is exercised by a positive example", () => {
  const names = [SPEAKER_PREFIX, ...TEAM_RULES, ...NAME_RULES].map((r) => r.name);
  const fired = new Set(positives.map((row) => row[4]));
  for (const name of [...names, "end_user", "team_member", "topic", "fallback_general"]) expect(fired).toContain(name);
});

test("the subject is never empty and never longer than 200 characters", () => {
  for (const text of ["...", "   ", "a".repeat(4000), `${"Abcdefghij".repeat(20)} prefers tea`, "\u0000\u0001"]) {
    const { subject } = explain(text).analysis;
    expect(subject.length).toBeGreaterThan(0);
    expect(subject.length).toBeLessThanOrEqual(200);
  }
});
