import { expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { ApiError } from "../../src/errors";
import { allowedValues, parseInput } from "../../src/schema/validate";

const Probe = Type.Object({
  mode: Type.Union([Type.Literal("fast"), Type.Literal("safe")]),
  limit: Type.Integer({ minimum: 1, maximum: 5, default: 2 }),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, description: "a non-empty tag" }), { maxItems: 2 })),
});

const failure = (input: unknown): ApiError => {
  try {
    parseInput(Probe, input);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("expected a validation error");
};

test("valid input gets its defaults, and unknown fields are dropped", () => {
  expect(parseInput(Probe, { mode: "fast", extra: true })).toEqual({ mode: "fast", limit: 2 });
});

test("the input is not modified", () => {
  const input = { mode: "safe" };
  parseInput(Probe, input);
  expect(input).toEqual({ mode: "safe" });
});

test("every offending field is named once, as a client names it, with its reason", () => {
  const error = failure({ mode: "slow", limit: 9, tags: ["", "ok", "three"] });
  expect(error).toBeInstanceOf(ApiError);
  expect(error.status).toBe(422);
  expect(error.code).toBe("validation_error");
  const fields = (error.details?.fields ?? []) as { path: string; reason: string }[];
  expect(fields.map((f) => f.path)).toEqual(["mode", "limit", "tags", "tags[0]"]);
  expect(fields[0]?.reason).toBe('"slow" is not allowed; expected one of fast, safe');
  expect(fields[3]?.reason).toContain("expected a non-empty tag");
  expect(error.message).toStartWith("invalid mode, limit, tags, tags[0]: ");
});

test("a missing body is validated as an empty object, and the name of the whole is the fallback path", () => {
  const error = failure(undefined);
  expect((error.details!.fields as { path: string }[])[0]?.path).toBe("mode");
  expect(() => parseInput(Type.String(), 5, "Idempotency-Key")).toThrow(/invalid Idempotency-Key/);
});

test("allowedValues lists a union of string literals and nothing else", () => {
  expect(allowedValues(Type.Union([Type.Literal("a"), Type.Literal("b")]))).toEqual(["a", "b"]);
  expect(allowedValues(Type.Union([Type.Literal("a"), Type.Number()]))).toBeUndefined();
  expect(allowedValues(Type.String())).toBeUndefined();
});
