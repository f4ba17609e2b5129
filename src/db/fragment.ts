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

/** Inlines nested fragments so the drivers see one plain template. */
export function flatten(strings: readonly string[], values: readonly unknown[]): FlatQuery {
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
  return { strings: Object.assign(outStrings, { raw: [...outStrings] }) as unknown as TemplateStringsArray, values: outValues };
}
