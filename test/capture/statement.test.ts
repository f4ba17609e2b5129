import { expect, test } from "bun:test";
import { isChangeStatement } from "../../src/capture/statement";

test("a change statement names a change and does not hedge, ask or add", () => {
  expect(isChangeStatement("Phoenix has moved into development.")).toBe(true);
  expect(isChangeStatement("Mobile releases go out Thursdays now.")).toBe(true);
  expect(isChangeStatement("Kestrel is no longer a churn risk.")).toBe(true);
  expect(isChangeStatement("Phoenix is in the design phase.")).toBe(false);
  expect(isChangeStatement("Rohan may rotate to the Platform squad in Q2.")).toBe(false);
  expect(isChangeStatement("Is Priya's manager Alex now?")).toBe(false);
  expect(isChangeStatement("Rumor has it Elena will become VP of Sales.")).toBe(false);
  expect(isChangeStatement("Yuki now also speaks French.")).toBe(false);
  // "May" the month is no hedge; "would rather" states a preference.
  expect(isChangeStatement("Blue Harbor relocated to 88 Dock Road in May.")).toBe(true);
  expect(isChangeStatement("I'd rather have meetings after lunch now.")).toBe(true);
  expect(isChangeStatement("I would take the train now if it ran.")).toBe(false);
  // Requests and questions without a question mark.
  expect(isChangeStatement("Now explain it in the style of a pirate.")).toBe(false);
  expect(isChangeStatement("Now, can we move the call to Friday")).toBe(false);
  // How long, not what changed.
  expect(isChangeStatement("I have been knitting for three years now.")).toBe(false);
  // A chat turn or a narrative is not one statement of state.
  expect(isChangeStatement("We moved last year. Now the kids love the new school and the garden.")).toBe(false);
  expect(isChangeStatement(`Now ${"we talked about the trip and the food and the weather ".repeat(3)}`)).toBe(false);
});
