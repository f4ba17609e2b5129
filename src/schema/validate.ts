import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value, type ValueError } from "@sinclair/typebox/value";
// The string formats our schemas use ("date-time"): the same validators the HTTP routes have,
// registered here so every caller of parseInput (CLI commands that never load the server) has them.
import "elysia/type-system/format";
import { ApiError } from "../errors";
import type { FieldIssue } from "./errors";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}

/** `/facts/0/text` -> `facts[0].text`: how a client names the field. */
function fieldName(pointer: string, fallback: string): string {
  const parts = pointer.split("/").slice(1);
  if (parts.length === 0) return fallback;
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), "");
}

/** The literal values a union of string literals allows, or undefined for any other schema. */
export function allowedValues(schema: TSchema): string[] | undefined {
  const anyOf = (schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (!anyOf || anyOf.length === 0 || !anyOf.every((s) => typeof s.const === "string")) return undefined;
  return anyOf.map((s) => String(s.const));
}

/** One validation failure in words: enums list what they allow instead of "Expected union value". */
export function describeIssue(error: ValueError): string {
  const allowed = allowedValues(error.schema);
  if (allowed) return `${typeof error.value === "string" ? `"${error.value}" is not allowed; ` : ""}expected one of ${allowed.join(", ")}`;
  const expected = error.schema.description;
  return expected === undefined ? error.message : `${error.message}; expected ${expected}`;
}

/**
 * Validates input against a schema with its defaults applied; unknown fields are dropped.
 * Failure is a 422 `validation_error` whose details list every offending field.
 */
export function parseInput<T extends TSchema>(schema: T, input: unknown, what = "body"): Static<T> {
  const check = checkerFor(schema);
  const cloned = Value.Clone(input ?? {});
  // A query string carries only text: "limit=2" is the number 2 there.
  const value = Value.Default(schema, what === "query" ? Value.Convert(schema, cloned) : cloned);
  if (check.Check(value)) {
    const cleaned = Value.Clean(schema, value) as Static<T>;
    const unstorable = unstorableText(cleaned, what);
    if (unstorable !== null) throw new ApiError("validation_error", `invalid ${unstorable.path}: ${unstorable.reason}`, { fields: [unstorable] });
    return cleaned;
  }
  const seen = new Set<string>();
  const fields: FieldIssue[] = [];
  for (const error of check.Errors(value)) {
    const path = fieldName(error.path, what);
    if (seen.has(path)) continue;
    seen.add(path);
    fields.push({ path, reason: describeIssue(error) });
  }
  const names = fields.map((f) => f.path).join(", ");
  throw new ApiError("validation_error", `invalid ${names}: ${fields[0]?.reason ?? "invalid value"}`, { fields });
}

/**
 * Text the databases cannot store: a lone UTF-16 surrogate (half of an emoji, as JSON's "\\ud83d"
 * allows) or NUL, which PostgreSQL's text type refuses. Found anywhere in the validated input,
 * keys included, it is the client's mistake and names the field, instead of failing in the
 * database as a 500.
 */
function unstorableText(value: unknown, path: string, top = true): FieldIssue | null {
  if (typeof value === "string") {
    if (!value.isWellFormed()) return { path, reason: "the text holds a lone UTF-16 surrogate (half of a character); send well-formed Unicode" };
    if (value.includes("\u0000")) return { path, reason: "the text holds a NUL character (U+0000), which cannot be stored" };
    return null;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableText(item, `${path}[${i}]`, false);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const field = top ? key : `${path}.${key}`;
      const found = unstorableText(key, field, false) ?? unstorableText(item, field, false);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Where a route's input comes from: names the field in errors, and query text is converted. */
export type InputSource = "body" | "query" | "path";

/**
 * Input that could not be read (an empty, malformed, too deep or too large body). The route's
 * parser hands it on instead of throwing, so authentication still answers first; the route's
 * validator throws its error.
 */
export class UnreadInput {
  constructor(readonly error: ApiError) {}
}

/**
 * A route's input schema: a TypeBox schema wearing the Standard Schema interface, so Elysia runs
 * it as the route's `body`, `query` or `params` validator and hands the handler `Static<T>`. The
 * check is `parseInput`'s (defaults, unknown fields dropped, the 422 envelope) unless the route
 * names another (the OAuth endpoints answer in their RFC's shape); failures are thrown as the one
 * error type.
 */
export interface RouteInput<T extends TSchema> {
  readonly schema: T;
  readonly source: InputSource;
  /** The body's media type (documentation only; the route's parser reads it). */
  readonly media: string;
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "memoryd";
    readonly validate: (value: unknown) => { value: Static<T> };
    readonly types?: { readonly input: unknown; readonly output: Static<T> };
  };
}

export function input<T extends TSchema>(
  schema: T,
  source: InputSource = "body",
  options: { parse?: (schema: T, value: unknown, source: InputSource) => Static<T>; media?: string } = {},
): RouteInput<T> {
  const parse = options.parse ?? parseInput;
  const validate = (value: unknown): { value: Static<T> } => {
    if (value instanceof UnreadInput) throw value.error;
    return { value: parse(schema, value, source) };
  };
  return { schema, source, media: options.media ?? "application/json", "~standard": { version: 1, vendor: "memoryd", validate } };
}
