import { describe, expect, test } from "bun:test";
import { claimKey } from "../../src/capture/claim-key";
import { relateClaims } from "../../src/capture/relation";
import { CLAIM_BLOCKERS } from "../../src/capture/rules/claim";
import { ANA, explainSentenceRules as explain, type Extra } from "./helpers";

type Row = [text: string, extra: Extra, key: string, value: string, negated: boolean, rule: string];

/** Positive examples: the claim key, value and polarity, and the rule that extracts them. */
const positives: Row[] = [
  ["Priya's manager is Tom", {}, "one:priya|manager", "tom", false, "possessive_attribute"],
  ["Acme's renewal date is May 1", {}, "one:acme|renewal date", "may 1", false, "possessive_attribute"],
  ["Priya's boss: Tom", {}, "one:priya|manager", "tom", false, "possessive_attribute"],
  ["Priya's e-mail is priya@acme.com", {}, "one:priya|email", "priya@acme.com", false, "possessive_attribute"],
  ["Priya's favourite colour is green", {}, "one:priya|favorite color", "green", false, "possessive_attribute"],
  ["Priya's manager is Tom, who joined in May", {}, "one:priya|manager", "tom", false, "possessive_attribute"],
  ["Priya's manager is Tom", { members: ["Priya Shah"] }, "one:priya shah|manager", "tom", false, "possessive_attribute"],
  ["Ana's boss is Tom", { endUser: ANA }, "one:user:U-7|manager", "tom", false, "possessive_attribute"],
  ["My manager is Tom", { endUser: ANA }, "one:user:U-7|manager", "tom", false, "my_attribute"],
  ["Our budget is 10k", {}, "one:team|budget", "10k", false, "compound_attribute"],
  ["The manager of Priya is Tom", {}, "one:priya|manager", "tom", false, "attribute_of"],
  ["The Atlas launch date is March 3.", {}, "one:atlas|launch date", "march 3", false, "compound_attribute"],
  ["Mateo's address changed to 48 Oak Avenue.", {}, "one:mateo|address", "48 oak avenue", false, "possessive_shifted"],
  ["Initech changed its domain to initech.io", {}, "one:initech|domain", "initech.io", false, "changed_own_attribute"],
  ["Priya's manager is no longer Tom", {}, "one:priya|manager", "tom", true, "possessive_attribute"],
  ["Priya lives in Lisbon", {}, "one:priya|location", "lisbon", false, "lives_in"],
  ["Priya moved to Berlin.", {}, "one:priya|location", "berlin", false, "moved_to"],
  ["I live in Paris", { endUser: ANA }, "one:user:U-7|location", "paris", false, "lives_in"],
  ["Caroline: I live in Paris", {}, "one:caroline|location", "paris", false, "lives_in"],
  ["Tom works at Acme Corp", {}, "one:tom|employer", "acme corp", false, "works_at"],
  ["Tom Becker joined Initech last month.", {}, "one:tom becker|employer", "initech", false, "joined"],
  ["Lucia left Stripe and joined Figma.", {}, "one:lucia|employer", "stripe", true, "left_employer"],
  ["Priya reports to Tom", {}, "one:priya|manager", "tom", false, "reports_to"],
  ["Priya is married to Sam", {}, "one:priya|partner", "sam", false, "partner"],
  ["Tom is 34.", {}, "one:tom|age", "34", false, "age"],
  ["Acme Corp is on the starter plan.", {}, "one:acme corp|plan", "starter", false, "headed_value"],
  ["Acme Corp is subscribed to the starter plan.", {}, "one:acme corp|plan", "starter", false, "on_plan"],
  ["Acme Corp upgraded to the business plan.", {}, "one:acme corp|plan", "business", false, "changed_plan"],
  ["Acme has 50 seats.", {}, "one:acme|seat count", "50", false, "count"],
  ["Atlas launches on May 1.", {}, "one:atlas|launch date", "may 1", false, "dated_verb"],
  ["The billing service is owned by Ana.", {}, "one:billing service|owner", "ana", false, "owned_by"],
  ["Atlas is in beta.", {}, "one:atlas|status", "beta", false, "status"],
  ["Releases ship on Tuesdays.", {}, "one:release|day", "tuesdays", false, "schedule"],
  ["Standup moved to 10:00.", {}, "one:standup|time", "10:00", false, "schedule"],
  ["Maya Lopez is the CFO of Acme Corp.", {}, "one:maya lopez|role at acme corp", "cfo", false, "title"],
  ["Tom was promoted to senior engineer", {}, "one:tom|role", "senior engineer", false, "promoted"],
  ["We use Jira for bug tracking.", {}, "one:team|use for bug tracking", "jira", false, "use_for"],
  ["We decided to release on Tuesdays.", {}, "one:team|decided release", "tuesdays", false, "decision"],
  ["The team decided to use Postgres for the job queue.", {}, "one:team|use for job queue", "postgres", false, "decision"],
  ["We decided that releases ship on Thursdays.", {}, "one:release|day", "thursdays", false, "schedule"],
  ["Maya prefers email", {}, "many:maya|prefers|email", "email", false, "prefers"],
  ["Maya prefers tea over coffee", {}, "one:maya|prefers between coffee / tea", "tea", false, "prefers"],
  ["Priya prefers Slack for status updates", {}, "one:priya|prefers for status updates", "slack", false, "prefers"],
  ["Tom speaks French.", {}, "many:tom|speaks|french", "french", false, "speaks"],
  ["Sam stopped playing the guitar.", {}, "many:sam|plays|guitar", "guitar", true, "plays"],
  ["Li is no longer allergic to peanuts.", {}, "many:li|allergic to|peanuts", "peanuts", true, "allergic to"],
  ["Tom is no longer vegetarian.", {}, "one:tom|diet", "vegetarian", true, "value_class:diet"],
  ["Tess switched to dark mode.", {}, "one:tess|color scheme", "dark", false, "value_class:color scheme"],
  // A shifted possessive is read as the new value, not as the value "raised to ...".
  ["Blue Sun's rate limit was raised to 5,000 requests per minute.", {}, "one:blue sun|rate limit", "5,000 requests per minute", false, "possessive_shifted"],
  // Attribute synonyms: a modifier that names no second slot, an abbreviation, an "of" phrase.
  ["Blue Sun's API rate limit is 1,000 requests per minute.", {}, "one:blue sun|rate limit", "1,000 requests per minute", false, "possessive_attribute"],
  ["Mateo's home address is 12 Elm Street.", {}, "one:mateo|address", "12 elm street", false, "possessive_attribute"],
  ["Oceanic Air's ACV is $85k.", {}, "one:oceanic air|contract value", "$85k", false, "possessive_attribute"],
  ["Acme's main point of contact is Dana Wu.", {}, "one:acme|contact", "dana wu", false, "possessive_attribute"],
  ["Vantage's monthly bill is $2,400.", {}, "one:vantage|price", "$2,400", false, "possessive_attribute"],
  // Value classes: open sets by pattern, a subject up to its verb, attributes that hold the class.
  ["The billing service runs on Node 18.", {}, "one:billing service|node version", "18", false, "value_class:node version"],
  ["The search service is deployed in us-east-1.", {}, "one:search service|region", "us-east-1", false, "value_class:region"],
  ["Northwind's data region is EU-West.", {}, "one:northwind|region", "eu-west", false, "possessive_attribute"],
  ["Cyberdyne moved to premium support.", {}, "one:cyberdyne|support tier", "premium", false, "value_class:support tier"],
  ["Aiden's OS is Windows 11.", {}, "one:aiden|operating system", "windows", false, "possessive_attribute"],
  ["Our code style uses tabs.", {}, "one:team|indentation", "tabs", false, "value_class:indentation"],
  ["We switched our code style to spaces.", {}, "one:team|indentation", "spaces", false, "changed_own_attribute"],
  ["Ana's laptop runs Linux.", {}, "one:ana|operating system", "linux", false, "value_class:operating system"],
  // Events that end a state name the state they end.
  ["Hank Scorpio stepped down as Globex CEO.", {}, "one:globex|ceo", "hank scorpio", true, "stepped_down"],
  ["Hank Scorpio resigned as CEO of Globex.", {}, "one:globex|ceo", "hank scorpio", true, "stepped_down_of"],
  ["Iris is on parental leave.", {}, "one:iris|leave", "parental", false, "on_leave"],
  ["Iris is back from parental leave.", {}, "one:iris|leave", "parental", true, "on_leave"],
  // "on vacation" is a leave, not version "acation" ("on v2.4").
  ["Iris is on vacation.", {}, "one:iris|leave", "vacation", false, "on_leave"],
  ["Acme Corp is a beta tester for Insights.", {}, "many:acme corp|member of|insights beta", "insights beta", false, "member of"],
  ["Acme Corp left the Insights beta.", {}, "many:acme corp|member of|insights beta", "insights beta", true, "member of"],
  ["Work on the analytics dashboard has resumed.", {}, "one:analytics dashboard|status", "resumed", false, "status_verb"],
  // Lengths of time written one way; working hours; event dates.
  ["Vandelay Industries is on a 12-month contract.", {}, "one:vandelay industries|contract term", "12 months", false, "contract_term"],
  ["Helen now works 10 to 6.", {}, "one:helen|working hours", "10 to 6", false, "working_hours"],
  ["Helen's working hours are 9 to 5.", {}, "one:helen|working hours", "9 to 5", false, "possessive_attribute"],
  ["Atlas code freeze: May 27", {}, "one:atlas|code freeze", "may 27", false, "compound_attribute"],
  ["The team pushed the API v1 deprecation to September 1.", {}, "one:api v1|deprecation date", "september 1", false, "moved_event"],
  // Decisions: a dated event is the thing's date; a purpose verb with a tool is a tool for a purpose.
  ["The team decided to deprecate API v1 on June 1.", {}, "one:api v1|deprecation date", "june 1", false, "decision"],
  ["We decided to host on GCP instead.", {}, "one:team|use for hosting", "gcp", false, "decision"],
  ["We decided to deploy on Fridays.", {}, "one:team|decided deploy", "fridays", false, "decision"],
  ["Tom is no longer shy.", {}, "many:tom|is|shy", "shy", true, "state"],
  ["Bianca doesn't run marathons anymore.", {}, "many:bianca|run|marathons", "marathons", true, "habit"],
];

test.each(positives)("claim of %j %o -> %s = %s (negated %p) by %s", (text, extra, key, value, negated, rule) => {
  const result = explain(text, extra);
  const claim = result.analysis.claim;
  expect(claim && { key: claimKey(claim), value: claim.value, negated: claim.negated }).toEqual({ key, value, negated });
  expect(result.rules.claim).toBe(rule);
});

/** Negative examples: no claim, and the reason. */
const negatives: [text: string, extra: Extra, refusedBy: string | null][] = [
  ["Priya's manager is Tom?", {}, "question"],
  ["Priya's manager is probably Tom", {}, "hedge"],
  // A second value beside the first ("also", "as well", "too") replaces nothing.
  ["The search service also runs in eu-west-1.", {}, "addition"],
  ["Priya works at Globex too.", {}, "addition"],
  ["Apparently Priya's manager is Tom", {}, "hedge"],
  ["Is Priya's manager Tom?", {}, null],
  ["I think Priya's manager is Tom", {}, "hedge"],
  ["If Priya's manager is Tom, escalate to Alex", {}, "hedge"],
  ["Maya might move to Berlin.", {}, null],
  ["Priya's manager is Tom, not Alex", {}, "negation"],
  ["Priya's been promoted", {}, null],
  ["Tom's manager is Alex", { endUser: ANA }, "other_subject"],
  ["Our budget is 10k", { endUser: ANA }, "other_subject"],
  ["My manager is Tom", {}, "other_subject"],
  ["I live in Paris", {}, "other_subject"],
  ["Maya's hobbies are painting and chess", {}, "many_values"],
  ["Maya's hobby is painting", {}, "many_values"],
  ["We decided to hire two engineers.", {}, "no_value"],
  ["We decided to use Postgres.", {}, "no_value"],
  [`Priya's manager is ${"x".repeat(150)}`, {}, "no_value"],
  ["manager of Ana", {}, null],
  // A region named by an event is no deployment; tabs without a code-style context are no indentation.
  ["Northwind had an outage in us-east-1.", {}, null],
  ["Sam closed all his browser tabs.", {}, null],
  // "back from" a place is no leave ending.
  ["Tom is back from Tokyo.", {}, null],
];

test.each(negatives)("%j %o makes no claim (refused by %p)", (text, extra, refusedBy) => {
  const result = explain(text, extra);
  expect(result.analysis.claim).toBeNull();
  expect(result.rules.claimRefusedBy).toBe(refusedBy);
});

test("every blocker is exercised", () => {
  const refused = new Set(negatives.map((row) => row[2]));
  for (const blocker of CLAIM_BLOCKERS) expect(refused).toContain(blocker.name);
});

describe("relateClaims: what a newer claim does to a live older one with the same key", () => {
  const relate = (newer: string, older: string, extra: Extra = {}): string => {
    const a = explain(newer, extra).analysis.claim;
    const b = explain(older, extra).analysis.claim;
    if (!a || !b || claimKey(a) !== claimKey(b)) return "different claims";
    return relateClaims(a.cardinality, a, b);
  };
  test.each([
    ["Priya's manager is Alex", "Priya reports to Tom", "supersede"],
    ["Priya reports to Tom.", "Priya's manager is Tom", "duplicate"],
    ["Priya's manager is no longer Tom", "Priya's manager is Tom", "supersede"],
    ["Priya's manager is no longer Tom", "Priya's manager is Alex", "coexist"],
    ["Priya's manager is Tom", "Priya's manager is no longer Tom", "supersede"],
    ["Maya prefers coffee over tea", "Maya prefers tea over coffee", "supersede"],
    ["Tom speaks German", "Tom speaks French", "different claims"],
    ["Maya loves jazz", "Maya likes jazz", "coexist"],
    ["Maya no longer likes jazz", "Maya loves jazz", "supersede"],
    ["Aiden switched to macOS.", "Aiden uses Windows.", "supersede"],
    ["Aiden uses Windows at work and Linux at home.", "Aiden uses Windows.", "different claims"],
    ["Sam no longer plays the guitar", "Sam plays guitar", "supersede"],
    ["Sam plays the guitar again", "Sam stopped playing guitar", "supersede"],
    ["We decided to release on Thursdays", "We decided to release on Tuesdays", "supersede"],
    ["We decided to use Redis for the job queue", "We decided to release on Tuesdays", "different claims"],
    ["Maya prefers dark mode in the app.", "Maya prefers email to phone calls.", "different claims"],
    ["Tom lives in Berlin", "Maya lives in Berlin", "different claims"],
    // Roles are held at an organisation: two at two organisations are both true.
    ["Xavier is a board member of Lumen Textiles.", "Xavier is the CFO of Kestrel Textiles.", "different claims"],
    ["Xavier is now the CTO of Kestrel Textiles.", "Xavier is the CFO of Kestrel Textiles.", "supersede"],
    ["Maya is head of sales at Acme.", "Maya is the CFO of Acme.", "supersede"],
    // A name is never de-pluralised: two people whose names differ by a final "s".
    ["Adam lives in York.", "Adams lives in Leeds.", "different claims"],
    ["Chris moved to Oslo.", "Chri moved to Rome.", "different claims"],
    // A plural subject is the singular one ("Retros are" / "the retro is"), shown by its verb.
    ["Retros are now every Friday.", "The retro is every other Friday.", "supersede"],
    ["Releases ship on Thursdays.", "The release ships on Tuesdays.", "supersede"],
    ["Mateo's address changed to 48 Oak Avenue.", "Mateo's home address is 12 Elm Street.", "supersede"],
    ["Oceanic Air's ACV increased to $110k.", "Oceanic Air's annual contract value is $85k.", "supersede"],
    ["Cyberdyne moved to premium support.", "Cyberdyne's support tier is standard.", "supersede"],
    ["Northwind was migrated to the US-East region.", "Northwind's data region is EU-West.", "supersede"],
    ["The billing service was upgraded to Node 20.", "The billing service runs on Node 18.", "supersede"],
    // A role-naming modifier is a second slot: the billing contact is not the contact.
    ["Brightline's contact is Dana.", "Brightline's billing contact is finance@brightline.co.", "different claims"],
    ["The search service is in eu-west-1 now.", "The search service is deployed in us-east-1.", "supersede"],
    ["The search service was moved to eu-west-1.", "The billing service is deployed in us-east-1.", "different claims"],
    ["The billing service runs on Python 3.12.", "The billing service runs on Node 18.", "different claims"],
    ["Hank Scorpio stepped down as Globex CEO.", "Globex's CEO is Hank Scorpio.", "supersede"],
    ["Ana Ruiz stepped down as Globex CEO.", "Globex's CEO is Hank Scorpio.", "coexist"],
    ["Iris is back from parental leave.", "Iris is on parental leave.", "supersede"],
    ["Iris is back from vacation.", "Iris is on parental leave.", "coexist"],
    ["Acme Corp left the Insights beta.", "Acme Corp is a beta tester for Insights.", "supersede"],
    ["Acme Corp left the Reports beta.", "Acme Corp is a beta tester for Insights.", "different claims"],
    ["Work on the analytics dashboard has resumed.", "The analytics dashboard is on hold.", "supersede"],
    ["Vandelay Industries' contract term is now 24 months.", "Vandelay Industries is on a 12-month contract.", "supersede"],
    ["Vandelay Industries' contract length is 12 months.", "Vandelay Industries is on a 12-month contract.", "duplicate"],
    ["Helen now works 10 to 6.", "Helen's working hours are 9 to 5.", "supersede"],
    ["The team pushed the API v1 deprecation to September 1.", "The team decided to deprecate API v1 on June 1.", "supersede"],
    ["The team decided to deprecate the legacy SDK on August 1.", "The team decided to deprecate API v1 on June 1.", "different claims"],
    ["We decided to host on GCP instead.", "We're going with AWS for hosting.", "supersede"],
    ["We decided to use Cloudflare for DNS.", "We decided to host on AWS.", "different claims"],
    // A trip taken is history, not a leave that a return ends.
    ["Iris is back from parental leave.", "Iris went on parental leave.", "different claims"],
    // A possessive part that is not the class's attribute: the sentence is about someone else.
    ["Sam's son uses Linux.", "Sam uses Windows.", "different claims"],
    ["The billing service's CI runs on Node 20.", "The billing service runs on Node 18.", "different claims"],
  ] as const)("%j after %j: %s", (newer, older, expected) => {
    expect(relate(newer, older)).toBe(expected);
  });
});

test("'reports to' and 'manager is' are one claim, so each supersedes the other", () => {
  const before = explain("Priya reports to Tom").analysis.claim;
  const after = explain("Priya's manager is Alex").analysis.claim;
  expect(before && claimKey(before)).toBe(after && claimKey(after));
  expect(before?.value).not.toBe(after?.value);
});

test("claims are per subject: the same attribute of different people never shares a key", () => {
  const priya = explain("Priya's manager is Tom").analysis.claim;
  const ana = explain("My manager is Tom", { endUser: ANA }).analysis.claim;
  const team = explain("Our manager is Tom").analysis.claim;
  expect(new Set([priya, ana, team].map((c) => c && claimKey(c))).size).toBe(3);
});
