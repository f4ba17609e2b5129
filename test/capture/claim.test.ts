import { expect, test } from "bun:test";
import { CLAIM_BLOCKERS, CLAIM_RULES } from "../../src/capture/rules/claim";
import { ANA, explain, type Extra } from "./helpers";

type Row = [text: string, extra: Extra, key: string, value: string, rule: string];

/** Positive examples: the claim key and value, and the rule that extracts them. */
const positives: Row[] = [
  ["Priya's manager is Tom", {}, "priya|manager", "tom", "possessive_attribute"],
  ["Priya's manager is Alex.", {}, "priya|manager", "alex", "possessive_attribute"],
  ["Acme's renewal date is May 1", {}, "acme|renewal date", "may 1", "possessive_attribute"],
  ["Priya's boss: Tom", {}, "priya|manager", "tom", "possessive_attribute"],
  ["Priya's e-mail is priya@acme.com", {}, "priya|email", "priya@acme.com", "possessive_attribute"],
  ["Priya's favourite editor is Vim", {}, "priya|favorite editor", "vim", "possessive_attribute"],
  ["Priya's manager is Tom, who joined in May", {}, "priya|manager", "tom", "possessive_attribute"],
  ["Priya's manager is Dr. Tom Lee.", {}, "priya|manager", "dr. tom lee", "possessive_attribute"],
  ["Priya's manager is Tom", { members: ["Priya Shah"] }, "priya shah|manager", "tom", "possessive_attribute"],
  ["Our team's on-call day is Monday", {}, "team|on-call day", "monday", "possessive_attribute"],
  ["The team's standup time is 9:30", {}, "team|standup time", "9:30", "possessive_attribute"],
  ["Ana's boss is Tom", { endUser: ANA }, "user:U-7|manager", "tom", "possessive_attribute"],
  ["My manager is Tom", { endUser: ANA }, "user:U-7|manager", "tom", "my_attribute"],
  ["Our budget is 10k", {}, "team|budget", "10k", "our_attribute"],
  ["The manager of Priya is Tom", {}, "priya|manager", "tom", "attribute_of"],
  ["Priya lives in Lisbon", {}, "priya|lives in", "lisbon", "lives_in"],
  ["Priya now lives in Berlin, Germany.", {}, "priya|lives in", "berlin, germany", "lives_in"],
  ["I live in Paris", { endUser: ANA }, "user:U-7|lives in", "paris", "lives_in"],
  ["Caroline: I live in Paris", {}, "caroline|lives in", "paris", "lives_in"],
  ["The config lives in /etc/memoryd", {}, "config|lives in", "/etc/memoryd", "lives_in"],
  ["Tom works at Acme Corp", {}, "tom|works at", "acme corp", "works_at"],
  ["Tom works for the BBC", {}, "tom|works at", "the bbc", "works_at"],
  ["Priya reports to Tom", {}, "priya|manager", "tom", "reports_to"],
  ["I report to Tom", { endUser: ANA }, "user:U-7|manager", "tom", "reports_to"],
  ["Priya prefers email", {}, "priya|prefers", "email", "prefers"],
  ["Priya prefers Slack for status updates", {}, "priya|prefers for status updates", "slack", "prefers"],
  ["We prefer squash merges", {}, "team|prefers", "squash merges", "prefers"],
  ["Acme is based in Berlin", {}, "acme|based in", "berlin", "based_in"],
  ["I'm based in Lisbon", { endUser: ANA }, "user:U-7|based in", "lisbon", "based_in"],
];

test.each(positives)("claim of %j %o -> %s = %s by %s", (text, extra, key, value, rule) => {
  const result = explain(text, extra);
  expect(result.analysis.claim).toEqual({ key, value });
  expect(result.rules.claim).toBe(rule);
});

/** Negative examples: no claim, and the reason. */
const negatives: [text: string, extra: Extra, refusedBy: string | null][] = [
  ["Priya's manager is not Tom", {}, "negation"],
  ["Priya's manager isn't Tom", {}, null],
  ["Priya's manager is no longer Tom", {}, "negation"],
  ["Priya's manager is Tom?", {}, "question"],
  ["Priya's manager is probably Tom", {}, "hedge"],
  ["Apparently Priya's manager is Tom", {}, "hedge"],
  ["Is Priya's manager Tom?", {}, null],
  ["I think Priya's manager is Tom", {}, "hedge"],
  ["If Priya's manager is Tom, escalate to Alex", {}, "hedge"],
  ["We decided Priya's manager is Tom", {}, "other_subject"],
  ["Priya doesn't live in Lisbon", {}, null],
  ["Priya's been promoted", {}, null],
  ["The deploy pipeline runs on Fridays", {}, null],
  ["Tom's manager is Alex", { endUser: ANA }, "other_subject"],
  ["Our budget is 10k", { endUser: ANA }, "other_subject"],
  ["My manager is Tom", {}, "other_subject"],
  ["I live in Paris", {}, "other_subject"],
  [`Priya's manager is ${"x".repeat(200)}`, {}, "no_value"],
];

test.each(negatives)("%j %o makes no claim (refused by %p)", (text, extra, refusedBy) => {
  const result = explain(text, extra);
  expect(result.analysis.claim).toBeNull();
  expect(result.rules.claimRefusedBy).toBe(refusedBy);
});

test("every claim rule and blocker is exercised", () => {
  const fired = new Set(positives.map((row) => row[4]));
  for (const rule of CLAIM_RULES) expect(fired).toContain(rule.name);
  const refused = new Set(negatives.map((row) => row[2]));
  for (const blocker of CLAIM_BLOCKERS) expect(refused).toContain(blocker.name);
});

test("'reports to' and 'manager is' are one claim, so each supersedes the other", () => {
  const before = explain("Priya reports to Tom").analysis.claim;
  const after = explain("Priya's manager is Alex").analysis.claim;
  expect(before?.key).toBe(after?.key ?? "");
  expect(before?.value).not.toBe(after?.value);
});

test("claims are per subject: the same attribute of different people never shares a key", () => {
  const priya = explain("Priya's manager is Tom").analysis.claim;
  const ana = explain("My manager is Tom", { endUser: ANA }).analysis.claim;
  const team = explain("Our manager is Tom").analysis.claim;
  expect(new Set([priya?.key, ana?.key, team?.key]).size).toBe(3);
});
