/**
 * The attribute lexicon compiled for matching: every phrase of every record becomes a template of
 * literal words, word sets (the verbs of change) and slots ({s} subject, {v} value, {x} read
 * past), indexed by its anchor, the first word that says the attribute, so a sentence is only
 * compared with the templates its own words name.
 */
import { ATTRIBUTE_LEXICON } from "./index";
import type { AttributeRecord } from "./record";

/** What a phrase does: states the value, sets a new one, ends the live one, or names a closed value. */
export type PhraseRole = "says" | "sets" | "ends" | "state";

export type Step = { readonly literal: string } | { readonly anyOf: ReadonlySet<string> } | { readonly slot: "s" | "v" | "x" };

export interface Template {
  readonly record: AttributeRecord;
  readonly role: PhraseRole;
  /** The closed value a `state` phrase names. */
  readonly state?: string;
  readonly steps: readonly Step[];
  /** How many literal words: the longer match wins. */
  readonly weight: number;
  /** An `ends` phrase may stand without its value ("Ana broke up", "we churned"). */
  readonly valueOptional: boolean;
  /** Built from one of the record's nouns in a noun frame. */
  readonly nounFrame: boolean;
  /** "{v} be {s} NOUN": the subject must be a possessor ("Ana's", "my"). */
  readonly possessiveSubject: boolean;
  /** The step the template is indexed by: its first word that says the attribute. */
  readonly anchor: number;
}

/**
 * Verbs that give an attribute named by a noun a new value: "Ana's phone number changed to ...",
 * "the timeout was raised to ...". Auxiliaries between them are read past.
 */
const SHIFT_VERBS: ReadonlySet<string> = new Set([
  "change",
  "move",
  "switch",
  "update",
  "increase",
  "decrease",
  "raise",
  "lower",
  "drop",
  "bump",
  "push",
  "extend",
  "shift",
  "cut",
  "rise",
  "fall",
  "grow",
  "shrink",
  "set",
  "reset",
  "become",
  "double",
  "jump",
]);

/** What a verb of change puts before the new value: "moved to", "was set for 2 May", "was reset at 30 s". */
const SHIFT_PREPOSITIONS: ReadonlySet<string> = new Set(["to", "for", "at", "into"]);

/** The noun frames: a record's noun read where English names an attribute's value. */
const NOUN_FRAMES: readonly { role: PhraseRole; frame: string }[] = [
  { role: "says", frame: "{s} NOUN be {v}" },
  { role: "says", frame: "{s} NOUN : {v}" },
  { role: "says", frame: "NOUN of {s} be {v}" },
  { role: "says", frame: "NOUN for {s} be {v}" },
  { role: "says", frame: "{v} be {s} NOUN" },
  { role: "sets", frame: "{s} NOUN become {v}" },
  { role: "sets", frame: "{s} NOUN SHIFT TO {v}" },
  { role: "sets", frame: "NOUN of {s} SHIFT TO {v}" },
  // "Globex moved its HQ to Austin", "we raised the Enterprise SLA to 99.95%".
  { role: "sets", frame: "{s} SHIFT NOUN TO {v}" },
  { role: "sets", frame: "{x} SHIFT {s} NOUN TO {v}" },
];

function compilePhrase(record: AttributeRecord, role: PhraseRole, phrase: string, state?: string, nounFrame = false): Template {
  const words = phrase.trim().split(/\s+/u);
  // A leading "be" says nothing: "be based in" is matched as "based in", after any auxiliary.
  // "be into" keeps its "be": "into" alone says nothing.
  const body = words[0] === "be" && words.slice(1).some((w) => !BARE.has(w) && !w.startsWith("{")) ? words.slice(1) : words;
  const slotted = body.some((w) => w.startsWith("{"));
  const shaped = slotted ? body : role === "state" ? ["{s}", ...body] : ["{s}", ...body, "{v}"];
  const steps: Step[] = shaped.map((w) =>
    w === "{s}" || w === "{v}" || w === "{x}"
      ? { slot: w.slice(1, 2) as "s" | "v" | "x" }
      : w === "SHIFT"
        ? { anyOf: SHIFT_VERBS }
        : w === "TO"
          ? { anyOf: SHIFT_PREPOSITIONS }
          : { literal: w },
  );
  // A word that says the attribute weighs 1, a copula or preposition beside it half: "live in" beats "be live".
  const weight = steps.reduce((sum, s) => sum + ("anyOf" in s ? 1 : "literal" in s ? (BARE.has(s.literal) ? 0.5 : 1) : 0), 0);
  const possessiveSubject = nounFrame && steps[0] !== undefined && "slot" in steps[0] && steps[0].slot === "v";
  const meaningfulAt = steps.findIndex((s) => "literal" in s && !BARE.has(s.literal));
  const anchor = meaningfulAt >= 0 ? meaningfulAt : steps.findIndex((s) => "literal" in s);
  return {
    record,
    role,
    steps,
    weight,
    valueOptional: role === "ends" && !slotted,
    nounFrame,
    possessiveSubject,
    anchor,
    ...(state === undefined ? {} : { state }),
  };
}

/**
 * Words that say nothing of an attribute by themselves: a template needs a literal word outside
 * them, or "{v} be {s}" would read every copula as a role handed over.
 */
const BARE: ReadonlySet<string> = new Set([
  "be",
  "have",
  "do",
  "get",
  "the",
  "a",
  "an",
  "to",
  "of",
  "for",
  "in",
  "into",
  "onto",
  "on",
  "at",
  "as",
  "by",
  "with",
  "from",
  "about",
  "over",
  "under",
  "up",
  "out",
  "off",
  "after",
  "through",
  "via",
  "now",
  "new",
  ":",
  "'s",
]);

/** Whether a template has a word that says its attribute (not only a copula or a preposition). */
export const saysAttribute = (t: Template): boolean => t.steps.some((s) => ("literal" in s && !BARE.has(s.literal)) || "anyOf" in s);

const meaningful = (t: Template): boolean =>
  t.steps.some((s) => ("literal" in s && !BARE.has(s.literal)) || "anyOf" in s) || t.steps.filter((s) => "literal" in s).length >= 2;

function templatesOf(record: AttributeRecord): Template[] {
  // A role is known by its value ("Kenji is Director of Engineering"): a bare copula may say it.
  return allTemplatesOf(record).filter((t) => meaningful(t) || record.value === "role");
}

function allTemplatesOf(record: AttributeRecord): Template[] {
  const out: Template[] = [];
  for (const noun of record.nouns ?? []) {
    for (const { role, frame } of NOUN_FRAMES) out.push(compilePhrase(record, role, frame.replace("NOUN", noun), undefined, true));
  }
  for (const phrase of record.says ?? []) out.push(compilePhrase(record, "says", phrase));
  for (const phrase of record.sets ?? []) out.push(compilePhrase(record, "sets", phrase));
  for (const phrase of record.ends ?? []) out.push(compilePhrase(record, "ends", phrase));
  for (const [state, phrases] of Object.entries(record.states ?? {})) {
    for (const phrase of phrases) out.push(compilePhrase(record, "state", phrase, state));
  }
  return out;
}

export interface CompiledLexicon {
  /** Templates by their anchor word (see `Template.anchor`). */
  readonly byAnchor: ReadonlyMap<string, readonly Template[]>;
  readonly size: number;
}

let compiled: CompiledLexicon | null = null;

export function compiledLexicon(): CompiledLexicon {
  if (compiled !== null) return compiled;
  const byAnchor = new Map<string, Template[]>();
  let size = 0;
  for (const record of ATTRIBUTE_LEXICON) {
    for (const template of templatesOf(record)) {
      const anchor = template.steps[template.anchor];
      if (!("literal" in anchor!)) continue;
      const list = byAnchor.get(anchor.literal) ?? [];
      list.push(template);
      byAnchor.set(anchor.literal, list);
      size += 1;
    }
  }
  compiled = { byAnchor, size };
  return compiled;
}
