/**
 * A piece of SQL with its own bind values, composable into a query (`sql\`… ${fragment} …\``).
 * Values stay parameters all the way down; only the literal text of fragments becomes SQL.
 */
export class Fragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function fragment(strings: TemplateStringsArray, ...values: unknown[]): Fragment {
  return new Fragment(strings, values);
}

export interface FlatQuery {
  strings: TemplateStringsArray;
  values: unknown[];
}

/**
 * Flattened templates by their text. The drivers key per-statement caches by the identity of the
 * strings array (postgres.js keeps an origin Error for each one it sees, forever), so the same
 * query text must always arrive as the same array. Bounded: a query built from a varying number
 * of fragments has one shape per count.
 */
const flattened = new Map<string, TemplateStringsArray>();
const FLATTENED_MAX = 4096;

/**
 * Inlines nested fragments so the drivers see one plain template. A template without fragments is
 * passed through as it is (its strings array is the call site's own, the same on every call).
 */
export function flatten(strings: TemplateStringsArray | readonly string[], values: readonly unknown[]): FlatQuery {
  if (!values.some((value) => value instanceof Fragment) && "raw" in strings) return { strings, values: [...values] };
  const outStrings: string[] = [strings[0] ?? ""];
  const outValues: unknown[] = [];
  values.forEach((value, i) => {
    const tail = strings[i + 1] ?? "";
    if (value instanceof Fragment) {
      const inner = flatten(value.strings, value.values);
      outStrings[outStrings.length - 1] += inner.strings[0] ?? "";
      for (let j = 0; j < inner.values.length; j++) {
        outValues.push(inner.values[j]);
        outStrings.push(inner.strings[j + 1] ?? "");
      }
      outStrings[outStrings.length - 1] += tail;
    } else {
      outValues.push(value);
      outStrings.push(tail);
    }
  });
  const text = outStrings.join("\u0000");
  let shared = flattened.get(text);
  if (shared === undefined) {
    if (flattened.size >= FLATTENED_MAX) flattened.clear();
    shared = Object.assign(outStrings, { raw: [...outStrings] }) as unknown as TemplateStringsArray;
    flattened.set(text, shared);
  }
  return { strings: shared, values: outValues };
}
