/**
 * The attribute and value halves of a claim: attribute names folded to one spelling, values
 * cleaned to the form two facts compare equal in, and the shapes a rule may require of a value.
 */
import {
  ATTRIBUTE_ALIASES,
  DATE,
  DURATION,
  MANY_VALUED_ATTRIBUTES,
  MAX_CLAIM_VALUE,
  NOT_ATTRIBUTES,
  NUMBER,
  SCHEDULE,
  SINGULAR_S,
  STATUS,
  TITLE,
  VALUE_END,
  type ValueShape,
} from "./rules/claim";
import { dropTrailing } from "./text";

/** "three years" and "3 years" are one length of time. */
const NUMBER_WORDS: Readonly<Record<string, string>> = Object.fromEntries(
  "one two three four five six seven eight nine ten eleven twelve".split(" ").map((word, i) => [word, String(i + 1)]),
);

const VALUE_TRIM = new Set([".", "!", "?", ";", ",", " ", '"', "'"]);

/** Lower-cased attribute with synonyms folded; null when it is really a verb phrase. */
export function canonicalAttribute(raw: string, isCount: boolean): string | null {
  let attribute = raw.trim().toLowerCase();
  if (attribute === "" || attribute.split(" ").some((word) => NOT_ATTRIBUTES.has(word))) return null;
  if (isCount) {
    const alias = ATTRIBUTE_ALIASES.find((a) => a.name.endsWith("_count_synonym") && a.pattern.test(attribute));
    if (alias) return alias.canonical;
    attribute = attribute.endsWith("ies") ? `${attribute.slice(0, -3)}y` : attribute.replace(/s$/u, "");
    return `${attribute} count`;
  }
  // "Acme's current NPS score" is its NPS score.
  attribute = attribute.replace(/^(?:current|new|latest|present|updated|main|primary) /u, "");
  for (const alias of ATTRIBUTE_ALIASES) attribute = attribute.replace(alias.pattern, alias.canonical);
  return attribute;
}

/** A person has many hobbies and friends: such attributes never hold one value. */
export function isManyValued(attribute: string): boolean {
  const last = attribute.split(" ").at(-1) ?? "";
  if (MANY_VALUED_ATTRIBUTES.has(attribute) || MANY_VALUED_ATTRIBUTES.has(last)) return true;
  if (attribute.endsWith(" count") || attribute.startsWith("prefers ") || attribute.startsWith("decided ")) return false;
  return last.endsWith("s") && !SINGULAR_S.has(last) && !last.endsWith("ss") && !last.endsWith("us");
}

export function hasShape(value: string, shape: ValueShape): boolean {
  const lower = value.toLowerCase();
  switch (shape) {
    case "proper":
      return /^(?:the |The )?[\p{Lu}\p{N}/~]/u.test(value);
    case "number":
      return NUMBER.test(lower);
    case "date":
      return DATE.test(lower);
    case "schedule":
      return SCHEDULE.test(lower);
    case "title":
      return TITLE.test(withoutArticle(lower));
    case "status":
      return STATUS.test(lower) || STATUS.test(`in ${lower}`);
  }
}

/** A title and the organisation it is held at, named with a capital: "CFO of Kestrel Textiles", "head of sales at Acme". */
const ROLE_AT = /^(?<title>.+) (?:at|of|for) (?<organisation>(?:the )?\p{Lu}[\p{L}\p{N}&.' -]*)$/u;

export function roleAt(rawValue: string): { title: string; organisation: string } | null {
  const groups = ROLE_AT.exec(rawValue)?.groups;
  const title = groups ? cleanValue(groups.title!, "role") : null;
  const organisation = groups ? cleanValue(groups.organisation!, "") : null;
  return title !== null && organisation !== null ? { title, organisation } : null;
}

/** The value up to the end of its clause. */
export function clause(raw: string): string {
  const end = VALUE_END.exec(raw);
  return dropTrailing((end ? raw.slice(0, end.index) : raw).trim(), VALUE_TRIM);
}

/** Lower-cased, without quotes, articles, date prepositions or the attribute's own head noun ("starter plan"). */
export function cleanValue(raw: string, attribute: string): string | null {
  let value = raw
    .toLowerCase()
    .replace(/^["']+/u, "")
    .replace(/["']+$/u, "")
    .trim();
  value = withoutArticle(value)
    // "was rescheduled for October 15": the participle of the change is not the value.
    .replace(/^(?:rescheduled|scheduled|moved|pushed|pushed back|changed|set|shifted|updated) (?:to|for|until) (?=\S)/u, "")
    .replace(/^(?:on|by|in|for|until|at) (?=\S)/u, "")
    // "renews every September 1" is renewed on September 1.
    .replace(/^every (?=(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d)/u, "")
    .replace(/ (?:again|too|as well|now|these days)$/u, "");
  // "CTO at Kestrel" and "CTO of Kestrel" are one title.
  if (attribute === "role") value = value.replace(/ (?:at|of|for) /gu, " of ");
  const head = attribute.split(" ").at(-1) ?? "";
  if (head !== "" && value.endsWith(` ${head}`)) value = value.slice(0, -head.length - 1);
  // "a 12-month contract" and "24 months" are one way of writing a length of time.
  const duration = DURATION.exec(value.trim())?.groups;
  if (duration) {
    const count = NUMBER_WORDS[duration.count ?? ""] ?? duration.count;
    value = `${count} ${duration.unit}${count === "1" ? "" : "s"}`;
  }
  value = value.trim();
  return value === "" || value.length > MAX_CLAIM_VALUE ? null : value;
}

export const withoutArticle = (text: string): string => text.trim().replace(/^(?:the|a|an|his|her|their|its|my|our) /iu, "");
