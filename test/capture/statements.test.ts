import { expect, test } from "bun:test";
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
