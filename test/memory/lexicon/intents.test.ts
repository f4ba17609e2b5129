/** Intents (src/memory/lexicon/intents.ts): the attributes a fact states and a question asks for, read with the attribute lexicon and the question frames. */
import { describe, expect, test } from "bun:test";
import { ATTRIBUTE_LEXICON } from "../../../src/capture/attributes";
import { intentsOf, intentSources } from "../../../src/memory/lexicon/intents";
import { QUESTION_FRAMES } from "../../../src/memory/lexicon/question-frames";
import { SOFTWARE_KINDS } from "../../../src/memory/lexicon/software-kinds";

const attributesOf = (text: string): string[] => intentsOf(text).map((i) => i.attribute);

describe("question frames", () => {
  test("every frame record names an attribute of the lexicon", () => {
    const known = new Set(ATTRIBUTE_LEXICON.map((r) => r.attribute));
    for (const record of QUESTION_FRAMES) expect([record.attribute, known.has(record.attribute)]).toEqual([record.attribute, true]);
  });

  test.each(QUESTION_FRAMES.flatMap((r) => r.examples.map((e) => [r.attribute, e] as const)))("%s: %s", (attribute, question) => {
    expect(attributesOf(question)).toContain(attribute);
  });
});

describe("a statement and a question in other words name one attribute", () => {
  // [statement, question, attribute]: no content word in common, the attribute named by both.
  const PAIRS: readonly (readonly [string, string, string])[] = [
    ["I was raised in York.", "where did I grow up?", "hometown"],
    ["I grew up in Leeds until I was twelve.", "which town was Sam brought up in?", "hometown"],
    ["My GP is Dr. Okafor.", "who is my family doctor?", "doctor"],
    ["I married Daniel in 2019.", "who is my spouse?", "partner"],
    ["I work as a nurse.", "what do I do for a living?", "job title"],
    ["I get up at 6:30 on weekdays.", "what time does my alarm go off?", "wake time"],
    ["I cycle to work along the canal.", "how do I commute?", "commute mode"],
    ["I'm allergic to peanuts.", "what allergies does Sam have?", "allergy"],
    ["I was born on the 14th of March.", "when is my birthday?", "birthday"],
    ["Tom joined Figma last week.", "who is Tom's employer?", "employer"],
    ["I'm fluent in Italian.", "what languages do I speak?", "language"],
    ["I'm vegetarian.", "do I have a special diet?", "diet"],
  ];
  test.each(PAIRS)("%s / %s: %s", (statement, question, attribute) => {
    expect(attributesOf(statement)).toContain(attribute);
    expect(attributesOf(question)).toContain(attribute);
  });

  test("a word's inflections read as the phrase: grew, growing and grown up", () => {
    for (const text of ["I grew up in Leeds.", "I was growing up in Leeds.", "I've grown up in Leeds."]) expect(attributesOf(text)).toContain("hometown");
  });

  test("articles, possessives and fillers may stand between a phrase's words; other words may not", () => {
    expect(attributesOf("I go to the gym on Mondays.")).toContain("workout routine");
    expect(attributesOf("I get to the office by train.")).toContain("commute mode");
    expect(attributesOf("I get lost near the office.")).not.toContain("commute mode");
  });
});

describe("kinds of software", () => {
  test.each(SOFTWARE_KINDS.map((k) => [k.kind, [...k.nouns, ...k.members]] as const))("%s: each noun and member names it", (kind, names) => {
    for (const name of names) expect([name, attributesOf(`We rely on ${name} for this.`)]).toEqual([name, expect.arrayContaining([kind])]);
  });

  test.each([
    ["Customer records live in PostgreSQL 15.", "what database do we use?", "database"],
    ["Exceptions in production get reported to Sentry.", "which error tracker do we use?", "error tracker"],
    ["Services run as pods on a Kubernetes cluster.", "what container orchestration platform is used?", "container orchestration"],
  ] as const)("%s / %s: %s", (statement, question, kind) => {
    expect(attributesOf(statement)).toContain(kind);
    expect(attributesOf(question)).toContain(kind);
  });
});

describe("what names nothing", () => {
  test.each([
    // One common word names no attribute, nor does a word many attributes say ("keep", "have").
    "I keep a spare key with the neighbour.",
    "We have lunch together on Fridays.",
    "The build is green again.",
    "I use a standing desk.",
    // One word between a verb's slots says nothing alone ("{s} be a {v} shop").
    "I shop on Sundays.",
    "",
    "???",
  ])("%j", (text) => {
    expect(attributesOf(text)).toEqual([]);
  });

  test("each attribute once, with the first phrase that named it and the text's own words", () => {
    expect(intentsOf("I grew up in Leeds, yes, I grew up there.")).toEqual([{ attribute: "hometown", phrase: "grow up", words: "grew up" }]);
  });
});

test("the sources hashed into the snapshot format change with a record", () => {
  const before = intentSources();
  const record = QUESTION_FRAMES[0]!;
  (record.frames as string[]).push("for a crust");
  try {
    expect(intentSources()).not.toBe(before);
  } finally {
    (record.frames as string[]).pop();
  }
  expect(intentSources()).toBe(before);
});
