import { describe, expect, test } from "bun:test";
import { parseCommandLine, UsageError } from "../../src/cli/args";
import { findCommand } from "../../src/cli/commands";

describe("parseCommandLine", () => {
  test("splits positionals and flags, in either form", () => {
    const args = parseCommandLine(["keys", "create", "--workspace=acme", "--name", "ci", "--json"]);
    expect(args.positionals).toEqual(["keys", "create"]);
    expect(args.flags).toMatchObject({ workspace: "acme", name: "ci" });
    expect(args.json).toBe(true);
  });

  test("an unknown flag is a usage error", () => {
    expect(() => parseCommandLine(["serve", "--bogus"])).toThrow(UsageError);
  });

  test("commands resolve by one or two words", () => {
    expect(findCommand(["serve"])).toBeDefined();
    expect(findCommand(["keys", "revoke", "key_1"])).toBeDefined();
    expect(findCommand(["keys", "destroy"])).toBeUndefined();
    expect(findCommand([])).toBeUndefined();
  });
});
