/**
 * The pure half of the capture pipeline: text in, analysis out, no database and no model.
 * Subject, kind and sensitive flag come from named rules in src/capture/rules/, the claim from a
 * record of the attribute lexicon (src/capture/attributes/); `explainFact` reports which, so any
 * stored subject, kind, sensitive flag or claim can be traced to one table line.
 */
import type { FactKind } from "../schema/memory";
import { matchesOf } from "./rules/rule";
import { mayMatch, testPattern } from "./rules/prefilter";
import { DEFAULT_KIND_RULE, KIND_RULES } from "./rules/kind";
import { SENSITIVE_RULES } from "./rules/sensitive";
import { digitRunsOf } from "./rules/digit-runs";
import type { SubjectResult, TextView } from "./subject";
import { normalizeForDuplicates } from "./text";
import { frameFact, parseFrame, type FactParse } from "./parse";
import type { Modality } from "./parse/modality";
import { aboutAnother, lexiconClaims } from "./attributes/claim";
import type { CaptureInput, FactAnalysis } from "./types";

export { normalizeForDuplicates } from "./text";

/** Which rule produced each part of an analysis. */
export interface FactExplanation {
  analysis: FactAnalysis;
  rules: {
    subject: string;
    kind: string;
    /** Every sensitive rule that matched (empty when not sensitive). */
    sensitive: string[];
    /** The claim rule that matched, if any, and why its claim was refused, if it was. */
    claim: string | null;
    claimRefusedBy: string | null;
  };
}

/** Analyses one fact. Deterministic: the same input always gives the same analysis. */
export function analyzeFact(input: CaptureInput): FactAnalysis {
  return explainFact(input).analysis;
}

/** `analyzeFact` plus the name of every rule that decided the result. */
export function explainFact(input: CaptureInput): FactExplanation {
  const frame = frameFact(input);
  const { view, subject } = frame;
  // Markup silences a fact whatever its sentence says, so that sentence is not tagged: tagging is
  // the costliest step of a short fact, and an imported chat log marks every assistant turn.
  const parse = frame.markup ? null : parseFrame(frame);
  const silent = parse === null ? "markup" : parse.modalities.find((m) => NEVER_REPLACING.has(m));
  const kind = classifyKind(view, subject);
  const sensitive = sensitiveRules(view.full);
  const claim = claimOf(parse, silent);
  return {
    analysis: {
      normalized: normalizeForDuplicates(input.text),
      subject: subject.subject,
      subjectType: subject.subjectType,
      kind: kind.kind,
      sensitive: sensitive.length > 0,
      claim: claim.claim,
      mayReplace: parse !== null && silent === undefined && !aboutAnother(parse),
    },
    rules: { subject: subject.rule, kind: kind.rule, sensitive, claim: claim.rule, claimRefusedBy: claim.refusedBy },
  };
}

/**
 * The fact's claim, read by the attribute lexicon over the one parse: none when it carries markup,
 * instructs, asks or tells what was once true (its `silent` mode; no parse for markup), and none
 * for a plan, hedge, supposition or report. The one reading that may replace a fact (capture/links.ts).
 */
function claimOf(parse: FactParse | null, silent: Modality | undefined): ClaimReading {
  if (parse === null || silent !== undefined) return { claim: null, rule: null, refusedBy: silent ?? "markup" };
  if (parse.modalities.length > 0) return { claim: null, rule: null, refusedBy: parse.modalities[0]! };
  const [read] = lexiconClaims(parse);
  return read === undefined ? { claim: null, rule: null, refusedBy: null } : { claim: read.claim, rule: read.rule, refusedBy: null };
}

/**
 * Modes in which a fact says nothing of how things are now (markup, an instruction, a question,
 * what was once true): it never makes a claim or replaces a fact.
 */
const NEVER_REPLACING: ReadonlySet<Modality> = new Set(["markup", "instruction", "question", "history"]);

interface ClaimReading {
  claim: FactAnalysis["claim"];
  rule: string | null;
  refusedBy: string | null;
}

/** First kind rule that fires, honouring `unless` and the person-subject requirement. */
function classifyKind(view: TextView, subject: SubjectResult): { kind: FactKind; rule: string } {
  for (const rule of KIND_RULES) {
    if (rule.needsPerson === true && !subject.personish) continue;
    if (!testPattern(rule.pattern, view.body)) continue;
    if (rule.unless !== undefined && testPattern(rule.unless, view.body)) continue;
    return { kind: rule.kind, rule: rule.name };
  }
  return { kind: "observation", rule: DEFAULT_KIND_RULE };
}

/**
 * Names of all sensitive rules that match. The full text is scanned (speaker prefix included) so
 * nothing can hide a secret in front of a colon.
 */
export function sensitiveRules(text: string): string[] {
  const fired: string[] = [];
  const runs = digitRunsOf(text);
  for (const rule of SENSITIVE_RULES) {
    if (rule.digits !== undefined && !rule.digits(runs)) continue;
    const check = rule.check;
    const hit = check === undefined ? testPattern(rule.pattern, text) : mayMatch(rule.pattern, text) && anyMatch(rule.pattern, text, check);
    if (hit) fired.push(rule.name);
  }
  return fired;
}

function anyMatch(pattern: RegExp, text: string, check: (match: string) => boolean): boolean {
  for (const match of matchesOf(pattern, text)) if (check(match[0])) return true;
  return false;
}
