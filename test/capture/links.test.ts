/**
 * The one gate that hides a fact (src/capture/links.ts): pairs that once hid a true fact keep both
 * live, and a fact of several statements is only updated when one of them changes.
 */
import { describe, expect, test } from "bun:test";
import { holdsSeveralClaims } from "../../src/capture/links";
import { linkPair, type LabelledPair } from "./supersession/pairs";

const pair = (older: string, newer: string, end_user?: LabelledPair["end_user"]): LabelledPair => ({
  family: "companies",
  older,
  newer,
  label: "both",
  why: "",
  ...(end_user && { end_user }),
});

describe("replaces only when sure", () => {
  test.each([
    // The subject of "the contract renewal for X" is X, not "contract renewal".
    ["The contract renewal for Obsidian Foods is due on April 9.", "The contract renewal for Globex is due on May 1."],
    // "every Friday" is a time, not whose on-call lead the retros are.
    ["Retros are now every Friday.", "Standups are now every Friday."],
    // A preference between two things is not a preferred name.
    ["Maya prefers email to phone calls.", "Maya prefers tea to coffee."],
    // Another company that shares a first word.
    ["Cobalt Freight is on the Pro plan.", "Cobalt Textiles is on the Enterprise plan."],
    // A start is not a deadline.
    ["The Atlas migration deadline is June 30.", "The Atlas migration kicked off on March 3."],
  ])("%s / %s: both stay live", (older, newer) => {
    expect(linkPair(pair(older, newer)).relation).not.toBe("supersede");
  });

  test("the same claim said plainly replaces, with the record and the words that decided", () => {
    const { relation, link } = linkPair(pair("Acme Corp's account manager is Kofi Mensah.", "Lena Park took over as account owner for Acme Corp."));
    expect(relation).toBe("supersede");
    expect(link?.reason).toBe('replaces: lexicon "account manager" of "acme corp", "kofi mensah" -> "lena park"');
  });

  test("a fact of two statements is updated, not hidden, when one of them changes", () => {
    const sam = { id: "sam", name: "Sam" };
    const { relation, link } = linkPair(pair("I live in Leeds, and I have a dog called Biscuit.", "I moved to Manchester.", sam));
    expect(relation).toBe("coexist");
    expect(link?.kind).toBe("updates");
    expect(linkPair(pair("I live in Leeds.", "I moved to Manchester.", sam)).relation).toBe("supersede");
  });
});

describe("holdsSeveralClaims", () => {
  test.each([
    ["I work as a barista in Leeds, and I have a dog called Biscuit.", true],
    ["Lark's queue is SQS. We ripped out Redis last sprint.", true],
    ["My sister lives in Oslo; I live in Bergen.", true],
    ["Dana and I have 1:1s weekly.", false],
    ["My GP is Dr. Nkemelu at the Mill Street practice.", false],
    ["The clinic is on St. Paul Street.", false],
    ["I like tea and coffee.", false],
  ] as const)("%s -> %p", (text, several) => {
    expect(holdsSeveralClaims(text)).toBe(several);
  });
});
