/**
 * The model proposes, the gates dispose (docs/memory.md, "The gates"). Each gate is a record: the
 * labels it guards, its name (what a vetoed decision stores) and its test. Scope is not a gate
 * here: a fact of another end user, agent or workspace is never shown to the model as a candidate
 * (candidates.ts), and a reply naming anything it was not shown is dropped before any gate.
 */
import { termsOf } from "../../memory/index/terms";
import { explainFact } from "../analyze";
import type { DecisionLabel } from "../../schema/capture-model";

/** A live fact as a gate reads it. */
export interface GatedFact {
  text: string;
  recordedAt: Date;
  pinned: boolean;
}

/** How a fact reads to the one reader: the mode that silences it, if any. */
export interface Reading {
  /** markup, instruction, question, plan, hedge, hypothetical, reported or history; null for a plain statement. */
  mode: string | null;
}

/**
 * The mode of the one reader's parse. A fact about someone of its subject's ("Orion's tech lead is
 * now Sam") is a plain statement here: the rules cannot tell which claim it changes, the model can.
 */
export function readingOf(text: string): Reading {
  return { mode: explainFact({ text, teamMembers: [] }).rules.claimRefusedBy };
}

/** Modes in which an extracted sentence is no fact at all. */
const NOT_A_FACT: ReadonlySet<string> = new Set(["markup", "instruction", "question"]);

interface Gate {
  name: string;
  labels: readonly DecisionLabel[];
  /** True: the decision may stand. */
  passes(newer: GatedFact & Reading, older: GatedFact): boolean;
}

/** Share of the smaller fact's terms the other fact also has. */
function overlap(a: string, b: string): number {
  const ta = new Set(termsOf(a));
  const tb = new Set(termsOf(b));
  const smaller = ta.size <= tb.size ? ta : tb;
  const larger = smaller === ta ? tb : ta;
  if (smaller.size === 0) return 0;
  let shared = 0;
  for (const t of smaller) if (larger.has(t)) shared += 1;
  return shared / smaller.size;
}

export const GATES: readonly Gate[] = [
  // A question, an instruction to the system, markup, a plan, a hedge, a supposition, reported
  // speech or what was once true says nothing of how things are now.
  { name: "not_a_plain_statement", labels: ["replaces", "updates"], passes: (newer) => newer.mode === null },
  // The older fact was observed after the newer: it already says the later state.
  { name: "older_observed_later", labels: ["replaces"], passes: (newer, older) => older.recordedAt.getTime() <= newer.recordedAt.getTime() },
  // The operator pinned it: only they hide it.
  { name: "pinned", labels: ["replaces"], passes: (_newer, older) => !older.pinned },
  // A duplicate hides the newer fact: only when most of its words are the older one's.
  { name: "different_words", labels: ["duplicate"], passes: (newer, older) => overlap(newer.text, older.text) >= 0.5 },
];

/** The first gate that refuses the decision, or null when it may be applied. */
export function vetoOf(label: DecisionLabel, newer: GatedFact & Reading, older: GatedFact): string | null {
  for (const gate of GATES) if (gate.labels.includes(label) && !gate.passes(newer, older)) return gate.name;
  return null;
}

/** Why an extracted sentence is not stored, or null when it is a fact. */
export function extractedVeto(text: string): string | null {
  const { mode } = readingOf(text);
  return mode !== null && NOT_A_FACT.has(mode) ? `not_a_fact:${mode}` : null;
}

/**
 * The extracted fact that takes over a verbatim statement: the one sharing most of the statement's
 * terms, if it shares at least one. A statement no extracted fact speaks of stays live: a model
 * that extracts something else never hides what the user said.
 */
export function successorOf(statement: string, extracted: readonly { id: string; text: string }[]): string | null {
  const terms = new Set(termsOf(statement));
  let best: { id: string; shared: number } | null = null;
  for (const fact of extracted) {
    const shared = new Set(termsOf(fact.text).filter((t) => terms.has(t))).size;
    if (shared > 0 && (best === null || shared > best.shared)) best = { id: fact.id, shared };
  }
  return best?.id ?? null;
}
