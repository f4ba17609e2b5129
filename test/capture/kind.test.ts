import { expect, test } from "bun:test";
import { DEFAULT_KIND_RULE, KIND_RULES } from "../../src/capture/rules/kind";
import { ANA, explain, type Extra } from "./helpers";

type Row = [text: string, extra: Extra, kind: string, rule: string];

/** Positive examples: each names the rule that must classify it. */
const positives: Row[] = [
  ["Decision: freeze the API until launch", {}, "decision", "decision_label"],
  ["We decided to use Postgres", {}, "decision", "decided"],
  ["The final decision is to ship on Friday", {}, "decision", "decided"],
  ["We decided not to ship on Friday", {}, "decision", "decided"],
  ["The team agreed to freeze deploys in December", {}, "decision", "agreed"],
  ["We chose Bun over Node", {}, "decision", "chose"],
  ["We will use Postgres for the queue", {}, "decision", "will_use"],
  ["We'll go with option B", {}, "decision", "will_use"],
  ["The budget was approved on Monday", {}, "decision", "approved"],
  ["Legal signed off on the new contract", {}, "decision", "signed_off"],
  ["We settled on weekly releases", {}, "decision", "settled_on"],
  ["We're going with Stripe for billing", {}, "decision", "going_with"],
  ["Priya opted for the annual plan", {}, "decision", "opted_for"],
  ["From now on, deploys happen on Tuesdays", {}, "decision", "standing_rule"],
  ["Priya prefers async updates", {}, "preference", "prefers"],
  ["Tom likes long walks", {}, "preference", "likes"],
  ["I'd like shorter meetings", {}, "preference", "likes"],
  ["Priya loves Thai food", {}, "preference", "loves"],
  ["Tom hates long meetings", {}, "preference", "dislikes"],
  ["Ana can't stand Jira", {}, "preference", "dislikes"],
  ["The customer wants weekly reports", {}, "preference", "wants"],
  ["Her favourite editor is Vim", {}, "preference", "favourite"],
  ["She'd rather meet in person", {}, "preference", "rather"],
  ["Please don't schedule calls before 10am", {}, "preference", "please_request"],
  ["Priya's manager is Tom", {}, "profile_fact", "manager"],
  ["The manager of Priya is Tom", {}, "profile_fact", "manager"],
  ["Priya was born in Lisbon", {}, "profile_fact", "born"],
  ["Tom is 34 years old", {}, "profile_fact", "age"],
  ["Her email is priya@acme.com", {}, "profile_fact", "contact_detail"],
  ["My role changed last month", { endUser: ANA }, "profile_fact", "pronoun_attribute"],
  ["Priya is married to Sam", {}, "profile_fact", "family_status"],
  ["Tom studied at MIT", {}, "profile_fact", "education"],
  ["Acme's renewal date is May 1", {}, "profile_fact", "organisation_terms"],
  ["Priya is a staff engineer", {}, "profile_fact", "is_a"],
  ["Acme is an enterprise customer", {}, "profile_fact", "is_a"],
  ["We are a ten-person startup", {}, "profile_fact", "is_a"],
  ["Tom works at Acme", {}, "profile_fact", "works_at"],
  ["Acme is based in Berlin", {}, "profile_fact", "lives_in"],
  ["I live in Paris", { endUser: ANA }, "profile_fact", "lives_in"],
  ["She lives in Oslo", {}, "profile_fact", "lives_in"],
  ["Priya reports to Tom", {}, "profile_fact", "reports_to"],
  ["Priya speaks Hindi and English", {}, "profile_fact", "speaks"],
  ["Priya is from India", {}, "profile_fact", "from_place"],
  ["Tom has two kids", {}, "profile_fact", "family"],
  ["Priya's role is staff engineer", {}, "profile_fact", "role_attribute"],
  ["The deploy pipeline runs on Fridays", {}, "observation", DEFAULT_KIND_RULE],
];

test.each(positives)("kind of %j %o -> %s by %s", (text, extra, kind, rule) => {
  const result = explain(text, extra);
  expect(result.analysis.kind).toBe(kind as never);
  expect(result.rules.kind).toBe(rule);
});

/** Negative examples: sentences that look like a kind but are not. */
const negatives: [text: string, expected: string, why: string][] = [
  ["We haven't decided on a database yet", "observation", "undecided"],
  ["The database is yet to be decided", "observation", "undecided"],
  ["Undecided items go to the backlog", "observation", "'undecided' is not 'decided'"],
  ["The design is not approved yet", "observation", "not approved"],
  ["Priya went with Tom to the conference", "observation", "'went with' needs a deciding subject"],
  ["The script uses 2GB of memory", "observation", "present tense is not a commitment"],
  ["The page looks like a mess", "observation", "'like' as a comparison"],
  ["It is rather slow today", "observation", "'rather' as a degree adverb"],
  ["The API is slow", "observation", "'is' with a non-person subject"],
  ["The API is a bottleneck", "observation", "'is a' needs a person subject"],
  ["The config lives in /etc/memoryd", "observation", "'lives in' needs a person subject"],
  ["The service works at scale", "observation", "'works at' needs a person subject"],
  ["The package manager is npm", "observation", "software managers are not managers"],
  ["The project was born out of frustration", "observation", "'born' needs in/on/at"],
  ["The job reports to Datadog", "observation", "'reports to' needs a person subject"],
  ["Priya is from home today", "observation", "'from' needs a capitalised place"],
  ["Caroline: I went to a support group yesterday", "observation", "a speaker prefix alone is not a profile"],
];

test.each(negatives)("kind of %j -> %s (%s)", (text, expected) => {
  expect(explain(text).analysis.kind).toBe(expected as never);
});

test("every kind rule is exercised by a positive example", () => {
  const fired = new Set(positives.map((row) => row[3]));
  for (const rule of KIND_RULES) expect(fired).toContain(rule.name);
});

test("decision outranks preference, preference outranks profile", () => {
  expect(explain("We decided Priya prefers email").analysis.kind).toBe("decision");
  expect(explain("Priya prefers her manager to be in Lisbon").analysis.kind).toBe("preference");
});
