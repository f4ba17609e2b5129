/**
 * Reading a model's reply: the one JSON object in it (models wrap JSON in prose or code fences),
 * checked against its schema. Anything else is `null`: the job's facts stay as the model-free path
 * left them.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** The outermost `{...}` of the text, parsed, or undefined. */
function jsonObjectIn(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/** The reply as `schema` says, with unknown fields dropped, or null when it does not parse or fit. */
export function parseReply<T extends TSchema>(schema: T, text: string): Static<T> | null {
  const value = jsonObjectIn(text);
  if (value === undefined || !Value.Check(schema, value)) return null;
  return Value.Clean(schema, Value.Clone(value)) as Static<T>;
}
