/**
 * The token rules (rules/attribute.ts) through the whole analysis: each shape makes the claim it
 * declares, a newer fact of the same shape replaces it, and the shapes that must not replace do not.
 */
import { describe, expect, test } from "bun:test";
import { claimKey } from "../../src/capture/claim-key";
import { relateFacts } from "../../src/capture/relation";
import { ANA, explainSentenceRules as explain, type Extra } from "./helpers";

const relate = (older: string, newer: string, extra: Extra = {}): string => {
  const a = explain(newer, extra).analysis.claim;
  const b = explain(older, extra).analysis.claim;
  if (!a || !b) return "no claim";
  return relateFacts(a, b);
};

describe("plain single-valued shapes: the newer value supersedes", () => {
  test.each([
    ["Carlos's preferred language for meetings is English.", "Carlos's preferred language for meetings is German.", "possessive_qualified"],
    ["Hannah drives a Toyota Corolla.", "Hannah drives a Tesla Model 3.", "single_valued_verb"],
    ["Acme has 50 seats on the team plan.", "Acme has 80 seats on the team plan.", "has_count"],
    ["The contract renewal for Globex is due on March 3.", "The contract renewal for Globex is due on April 9.", "due"],
    ["Initech pays its invoices in euros.", "Initech pays its invoices in dollars.", "pays_in"],
    ["The office Wi-Fi password is bluefinch77.", "The office Wi-Fi password is harborlight42.", "compound_attribute_head"],
    ["Acme releases ship on Tuesdays.", "Acme releases ship on Thursdays.", "plural_schedule"],
    ["Stark Logistics has about 200 employees.", "Stark Logistics is up to roughly 340 employees after the acquisition.", "count_now"],
    ["Aoife's contact number is 087 555 2391.", "Aoife got a new number: 086 555 7710.", "got_new_attribute"],
    ["Peter is based in the London office.", "Peter now works out of the Dublin office.", "headed_value"],
    ["Sofia is on the Growth team.", "Sofia transferred to the Platform team in March.", "headed_value"],
    ["Hooli's account owner is Marcus.", "Tina took over the Hooli account in January.", "took_over"],
    ["The reporting pipeline is written in Scala.", "The reporting pipeline was rewritten in Elixir.", "written_in"],
    ["The inventory sync runs every 15 minutes.", "The inventory sync was changed to run every 5 minutes.", "runs_every"],
    ["Ingrid's birthday falls on 9 October.", "Ingrid's birthday is actually 19 October.", "possessive_attribute"],
    ["Lumen AI's ARR is $1.2M.", "Lumen AI crossed $2M ARR this quarter.", "reached_amount"],
    ["Q4 priority is enterprise expansion.", "Leadership changed the Q4 priority to reducing churn.", "changed_the_attribute"],
    ["We set the support SLA to 24 hours.", "We tightened the support SLA to 8 hours.", "changed_the_attribute"],
    ["Pegasus's repo is github.com/acme/pegasus.", "The Pegasus repo was renamed to acme/pegasus-core.", "attribute_shifted"],
    ["The SOC 2 project's target date is end of Q2.", "SOC 2 target date slipped to mid-Q3.", "attribute_shifted"],
    // A date of a subject ending in an event is the event's date.
    ["We agreed to sunset the legacy API on 12/31.", "Legacy API sunset pushed to March 31 next year.", "thing_shifted"],
    ["Fenwick & Gale belongs to Crestline Group.", "Fenwick & Gale was sold to Arbor Equity.", "belongs_to"],
    ["We settled on Wednesday deploys.", "We've settled on Monday deploys instead.", "settled_on"],
    ["We picked Vercel to host the marketing site.", "We picked Netlify to host the marketing site.", "picked_to"],
    ["Launch comms will go out via email.", "Launch comms will go out via in-app banners now.", "goes_out_via"],
    ["Juniper Analytics renews every September 1.", "Juniper Analytics' renewal was rescheduled for October 15.", "possessive_attribute"],
  ])("%j then %j (%s)", (older, newer, rule) => {
    expect(explain(newer).rules.claim).toBe(rule);
    expect(relate(older, newer)).toBe("supersede");
  });
});

describe("a fact that names the value it replaces supersedes the subject's claim holding it, whatever its attribute", () => {
  test.each([
    ["Orion uses PostgreSQL as its primary database.", "Orion switched from Postgres to CockroachDB.", "switched_from_to"],
    ["Vandelay Imports uses Salesforce as their CRM.", "Vandelay Imports migrated off Salesforce to HubSpot.", "switched_from_to"],
    ["Hannah drives a Honda Civic.", "Hannah traded in her Civic for a Rivian R1S.", "traded_for"],
    ["Andre uses a MacBook Pro for work.", "Andre switched from his MacBook to a ThinkPad running Linux.", "switched_from_to"],
    ["Sam plays the guitar.", "Sam switched from guitar to piano.", "switched_from_to"],
    // A handover names the old holder: the thing's claim holding that person is replaced.
    ["Project Tamarind is led by Camille.", "Camille handed Project Tamarind over to Emeka.", "handed_over"],
    ["The data migration is led by Ravi.", "Ravi handed the data migration lead to Camille.", "handed_over"],
  ])("%j then %j (%s)", (older, newer, rule) => {
    expect(explain(newer).rules.claim).toBe(rule);
    expect(relate(older, newer)).toBe("supersede");
  });

  test("for an end user too", () => {
    expect(relate("I drive a Mazda 3.", "I sold the Mazda and bought a Polestar 2.", { endUser: ANA })).toBe("supersede");
    expect(relate("I'm based in Tamale.", "I relocated to Lagos last month.", { endUser: ANA })).toBe("supersede");
    expect(relate("My job: accountant", "I work as a financial controller now.", { endUser: ANA })).toBe("supersede");
  });
});

describe("lexicon and model: one attribute however it is named, exclusive values, time adjuncts", () => {
  test.each([
    // Neutral modifiers and a closing "date" do not make another attribute.
    ["Tessera's list price is $49 per user per month.", "Tessera raised the per-seat price to $59/month."],
    ["Massive Dynamic's fiscal year ends in June.", "Massive Dynamic moved its fiscal year-end to December."],
    ["Dunder Mifflin's main line is (570) 555-0100.", "Dunder Mifflin changed its main number to (570) 555-0142."],
    // Value classes: pronouns, where an account stands, a project's health.
    ["Zoe uses she/her pronouns.", "Zoe now goes by they/them."],
    ["Oscorp is a prospect.", "Oscorp signed and is now a paying customer."],
    ["Project Beacon is on track.", "Beacon is now flagged red after the vendor delay."],
    ["Lucas is a contractor.", "Lucas converted to a full-time employee on 3/1."],
    // "would rather A than B" is a preference between the two; a trailing "in Q2" is when, not what.
    ["Chidi would rather text than call.", "Chidi would rather call than text now."],
    ["Jamal's title is Senior Engineer.", "Jamal was promoted to Staff Engineer in Q2."],
    // A title that ends with the old one is a new title, not the old one said precisely.
    ["Noor Haddad's title is product manager.", "Noor Haddad's title: senior product manager"],
    // Reported speech about oneself; an extension dates the end.
    ["Katherine prefers to be called Kate.", "Katherine said she'd rather go by Kat now."],
    ["Noah's visa expires on 11/30/2025.", "Noah's visa was extended to May 2027."],
    ["Project Nova is written in Python.", "Nova was rewritten in Go over the winter."],
    // "X for Apollo" is Apollo's X; a move to a day and time is a new time, not a place.
    ["Sprint planning for Apollo is Monday at 10am.", "Apollo sprint planning moved to Tuesday 2pm."],
    ["The API v3 project is paused.", "API v3 work resumed this week."],
  ])("%j then %j", (older, newer) => {
    expect(relate(older, newer)).toBe("supersede");
  });
});

describe("what must stay live beside the older fact", () => {
  test.each([
    // Two people whose names differ by a final "s".
    ["Adams lives in Leeds.", "Adam lives in York."],
    ["Hannah drives a Toyota Corolla.", "Hanna drives a Tesla Model 3."],
    // The replaced value belongs to another subject, or is not the live value.
    ["Orion uses PostgreSQL as its primary database.", "Atlas switched from Postgres to MySQL."],
    ["Orion uses PostgreSQL as its primary database.", "Orion switched from Jenkins to GitHub Actions."],
    // A bare number names no value: "Plan 2" is not a count of 2.
    ["Acme has 2 offices.", "Acme switched from Plan 2 to Plan 3."],
    // A refinement of the value, and a restatement that adds words.
    ["Isaac lives in Boston.", "Isaac lives in Boston's South End with his partner."],
    ["Orion's standup is at 9:30.", "Orion's standup is at 9:30 on Zoom, 15 minutes max."],
    ["Ruth lives in London.", "Ruth lives in Hackney, in east London."],
    // Hours of one job are not the person's: two jobs at two organisations.
    ["Tunde teaches part-time at the University of Ibadan.", "Tunde works full-time as a data scientist at Paystack."],
    // Roles at two organisations; counts of different things; a different qualifier.
    ["Xavier is the CFO of Kestrel Textiles.", "Xavier is a board member of Lumen Textiles."],
    ["Acme has 50 seats on the team plan.", "Acme has 3 offices."],
    ["Carlos's preferred language for meetings is English.", "Carlos's preferred language for email is German."],
    // "more" seats is an addition, not the count.
    ["Acme has 50 seats.", "Acme has 10 more seats."],
    // A modifier that is not neutral names another attribute, or another owner.
    ["Brightline's contact is Dana.", "Brightline's billing contact is finance@brightline.co."],
    ["Kenji's skip-level manager is Astrid.", "Kenji's direct manager is Rohan."],
    ["Grace's favorite color is blue.", "Grace's son's favorite color is red."],
    // Picked for different jobs, settled on for different things.
    ["We picked Vercel to host the marketing site.", "We picked Netlify to host the docs."],
    ["We settled on Wednesday deploys.", "We settled on Monday retros."],
    // The owner named in the noun phrase keys the claim: another project's priority is its own.
    ["Q4 priority is enterprise expansion.", "Leadership changed the Q3 priority to reducing churn."],
    // A handover by someone who did not hold the thing replaces nothing.
    ["Project Tamarind is led by Camille.", "Priya handed Project Tamarind over to Emeka."],
    // "lead" names no customer status in a handover.
    ["Ravi is a prospect.", "Ravi handed the data migration lead to Camille."],
    // A time adjunct is dropped only when a one-valued claim stands without it.
    ["The search revamp is due on June 30.", "The search revamp is due."],
  ])("%j then %j", (older, newer) => {
    expect(relate(older, newer)).not.toBe("supersede");
  });
});

test("a replacing claim is keyed under its subject with the value it names as replaced", () => {
  const claim = explain("Orion switched from Postgres to CockroachDB.").analysis.claim;
  expect(claim).toMatchObject({ subject: "orion", value: "cockroachdb", replaces: "postgres", negated: false });
  expect(claim && claimKey(claim)).toBe("many:orion|switched to|cockroachdb");
});
