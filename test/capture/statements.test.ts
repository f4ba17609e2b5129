import { expect, test } from "bun:test";
import { clausesOf } from "../../src/capture/clauses";
import { statementsIn } from "../../src/capture/statements";

test.each([
  ["My manager is Tom Baker. What should I prepare?", ["My manager is Tom Baker."]],
  ["We decided to move the launch to May.", ["We decided to move the launch to May."]],
  ["Priya prefers async standups", ["Priya prefers async standups"]],
  ["I live in Lyon!\nPlease book a room.", ["I live in Lyon!"]],
  ["manager of Ana", []],
  ["What is my manager's name?", []],
  ["Tell me about the roadmap.", []],
  ["Hi there, thanks", []],
  ["the weather outside today", []],
  ["Ana's manager is Tom.", ["Ana's manager is Tom."]],
] as const)("statementsIn(%j)", async (message, expected) => {
  expect(await statementsIn(message)).toEqual([...expected]);
});

// A sentence that joins independent statements is kept as one fact each, so that a later change
// to one of them does not hide the other.
test.each([
  ["I work as a barista at a cafe in Leeds, and I have a dog called Biscuit.", ["I work as a barista at a cafe in Leeds.", "I have a dog called Biscuit."]],
  ["My sister lives in Oslo; I live in Bergen.", ["My sister lives in Oslo.", "I live in Bergen."]],
  ["I love hiking and Biscuit loves walks", ["I love hiking.", "Biscuit loves walks."]],
  ["I can't swim but I don't care about it.", ["I can't swim.", "I don't care about it."]],
  ["I work at Acme, while my partner teaches maths.", ["I work at Acme.", "My partner teaches maths."]],
  ["My wife and I have a dog, and our cat is called Tom.", ["My wife and I have a dog.", "Our cat is called Tom."]],
  ["Priya prefers async standups, so we moved them to Slack.", ["Priya prefers async standups.", "We moved them to Slack."]],
  ["Hi! I live in Leeds, and my wife works at Acme. Can you help?", ["I live in Leeds.", "My wife works at Acme."]],
] as const)("statementsIn(%j) splits it", async (message, expected) => {
  expect(await statementsIn(message)).toEqual([...expected]);
});

// "and" joining nouns, names or one subject's verbs would leave a fragment: the sentence stays whole.
test.each([
  "I like tea and coffee",
  "Ana and Bo moved to Lisbon",
  "Ana, Bo, and Carl moved to Lisbon.",
  "I quit the cafe and started as a junior developer at a fintech.",
  "I moved to Porto and the food is amazing",
  "I visited my parents and my sister's kids in Oslo.",
  "I read while I eat.",
  // "Bo like jazz" continues what I know, not a statement of its own.
  "I know Ana and Bo like jazz.",
  // A condition or a hedge before the join holds over what follows it.
  "If I get the job, I will move and my wife will follow.",
  "I think my sister and my brother moved to Oslo.",
])("statementsIn(%j) keeps it whole", async (message) => {
  expect(await statementsIn(message)).toEqual([message]);
});

test("a split that would drop a part keeps the sentence whole", async () => {
  // Split, "She knows me." would not be kept (not about the speaker, no claim), and "I'm tired." is a fragment.
  expect(clausesOf("I know Ana and she knows me.")).toEqual(["I know Ana.", "She knows me."]);
  expect(await statementsIn("I know Ana and she knows me.")).toEqual(["I know Ana and she knows me."]);
  expect(await statementsIn("I'm tired, but we're fine.")).toEqual(["I'm tired, but we're fine."]);
});

test("split parts count toward the limit of statements", async () => {
  const message = Array.from({ length: 6 }, (_, i) => `I live in town ${i}, and I work at shop ${i}.`).join(" ");
  const statements = await statementsIn(message);
  expect(statements).toHaveLength(10);
  expect(statements.slice(0, 2)).toEqual(["I live in town 0.", "I work at shop 0."]);
});
