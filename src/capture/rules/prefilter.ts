/**
 * Which rule patterns can be skipped for a text without running them. Each pattern is read once
 * (with regexpp, the parser ESLint uses) for the literal words every match of it must contain —
 * "moved", "pushed" or "delayed" for a "moved to" rule — as RE2's prefilter does; a text holding
 * none of them cannot match, so the pattern is not run. Capture tries a few hundred anchored,
 * Unicode patterns on every fact and most of them fail: skipping them is most of what analysis saves.
 *
 * Exact by construction: a pattern is skipped only when it could not have matched. The words are
 * compared lower-cased (whatever the pattern's flags: a case-sensitive pattern's words then pass
 * more texts, never fewer), and the letters case-insensitive matching can equate with ASCII ones
 * ("ſ" with "s", the Kelvin sign with "k"; "ı" too, for safety) are folded in the text first. Anything the reading does not understand — a character
 * class, an escape, a back-reference, a non-ASCII letter — requires nothing.
 */
import { parseRegExpLiteral, type AST } from "@eslint-community/regexpp";
import { allPatterns } from "./index";
import { matches } from "./rule";
import { WordScanner } from "./word-scan";

/** Words of which a text must contain one; a pattern's requirement is a list of them, all to hold. */
type AnyOf = readonly string[];

/** What a part of a pattern matches: exactly one of a few strings, or unknown text that must contain words. */
interface Reading {
  /** Every string the part can match, when they are few; null when unknown. */
  exact: ReadonlySet<string> | null;
  /** Requirements that hold for any match of the part. */
  all: readonly AnyOf[];
}

/** Beyond this many strings an exact set is turned into a requirement (cross products grow fast). */
const MAX_EXACT = 64;
/** A character class of at most this many letters is read as a set of one-letter strings ("[Tt]"). */
const MAX_CLASS = 4;
/** The requirements kept per pattern: the longest words first, as they reject the most texts. */
const MAX_REQUIREMENTS = 16;

/** Words are ASCII: other letters may case-fold in ways a lower-cased text does not show. */
const ASCII = 0x80;

const UNKNOWN: Reading = { exact: null, all: [] };
const EMPTY: Reading = { exact: new Set([""]), all: [] };

const scanner = new WordScanner();
/** Each pattern's requirements as the scanner's list ids, read once per pattern. */
const requirementIds = new WeakMap<RegExp, readonly number[]>();

/** The requirements of a pattern: lists of words, a word of each of which every match contains. */
export function requirementsOf(pattern: RegExp): readonly AnyOf[] {
  return readPattern(pattern);
}

function idsOf(pattern: RegExp): readonly number[] {
  let ids = requirementIds.get(pattern);
  if (ids === undefined) {
    ids = readPattern(pattern).map((anyOf) => scanner.add(anyOf));
    requirementIds.set(pattern, ids);
  }
  return ids;
}

/** Every rule table's patterns are read on first use, so the scanner is built once, not as each is met. */
let tablesRead = false;

/** Whether `pattern` could match `text`: false only when a word every match needs is missing. */
export function mayMatch(pattern: RegExp, text: string): boolean {
  if (!tablesRead) {
    tablesRead = true;
    for (const rule of allPatterns()) idsOf(rule.pattern);
  }
  const ids = idsOf(pattern);
  if (ids.length === 0) return true;
  const folded = foldedText(text);
  for (const id of ids) if (!scanner.holds(id, folded)) return false;
  return true;
}

/** `pattern.test(text)`, skipped when the text lacks a word the pattern needs. */
export function testPattern(pattern: RegExp, text: string): boolean {
  return mayMatch(pattern, text) && matches(pattern, text);
}

/** The last text folded: a fact's sentence is checked against many patterns in a row. */
let lastText = "";
let lastFolded = "";
const TO_ASCII = /[\u017f\u0131\u212a]/gu;
const ASCII_OF: Readonly<Record<string, string>> = { "\u017f": "s", "\u0131": "i", "\u212a": "k" };

function foldedText(text: string): string {
  if (text !== lastText) {
    lastText = text;
    lastFolded = text.toLowerCase().replace(TO_ASCII, (c) => ASCII_OF[c] ?? c);
  }
  return lastFolded;
}

function readPattern(pattern: RegExp): readonly AnyOf[] {
  let literal: AST.RegExpLiteral;
  try {
    literal = parseRegExpLiteral(pattern);
  } catch {
    return [];
  }
  const whole = readAlternatives(literal.pattern.alternatives);
  const all = whole.exact === null ? whole.all : [...whole.all, [...whole.exact]];
  return (
    all
      // A list holding the empty string is met by every text.
      .filter((anyOf) => anyOf.length > 0 && !anyOf.includes(""))
      .map(withoutLongerForms)
      .sort((a, b) => shortest(b) - shortest(a) || a.length - b.length)
      .slice(0, MAX_REQUIREMENTS)
  );
}

/**
 * The words of a requirement without those containing another of its words: a text holding
 * " is now" holds " is", so " is" alone says the same and is checked once.
 */
function withoutLongerForms(anyOf: AnyOf): AnyOf {
  const unique = [...new Set(anyOf)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const word of unique) if (!kept.some((shorter) => word.includes(shorter))) kept.push(word);
  return kept;
}

const shortest = (anyOf: AnyOf): number => Math.min(...anyOf.map((w) => w.length));

/** A disjunction: exact when every branch is, else the words one of the branches' requirements needs. */
function readAlternatives(alternatives: readonly AST.Alternative[]): Reading {
  const branches = alternatives.map((a) => readSequence(a.elements));
  if (branches.every((b) => b.exact !== null)) {
    const union = new Set(branches.flatMap((b) => [...b.exact!]));
    if (union.size <= MAX_EXACT) return { exact: union, all: [] };
    return { exact: null, all: [[...union]] };
  }
  // A match takes one branch, so it holds one of the branches' strongest requirement.
  const anyOf: string[] = [];
  for (const branch of branches) {
    const strongest = strongestOf(branch);
    if (strongest === null) return UNKNOWN;
    anyOf.push(...strongest);
  }
  return { exact: null, all: [anyOf] };
}

function strongestOf(reading: Reading): AnyOf | null {
  const candidates = reading.exact === null ? reading.all : [...reading.all, [...reading.exact]];
  let best: AnyOf | null = null;
  for (const anyOf of candidates) {
    if (anyOf.length === 0 || anyOf.includes("")) continue;
    if (best === null || shortest(anyOf) > shortest(best)) best = anyOf;
  }
  return best;
}

/** A concatenation: runs of exact parts multiply into longer strings; anything else ends a run. */
function readSequence(elements: readonly AST.Element[]): Reading {
  const all: AnyOf[] = [];
  let run: ReadonlySet<string> | null = new Set([""]);
  let wholeExact = true;
  const endRun = (): void => {
    if (run !== null && !run.has("")) all.push([...run]);
    run = null;
  };
  for (const part of partsOf(elements)) {
    all.push(...part.all);
    if (part.exact === null) {
      wholeExact = false;
      endRun();
      continue;
    }
    const current: ReadonlySet<string> = run ?? new Set([""]);
    if (current.size * part.exact.size > MAX_EXACT) {
      wholeExact = false;
      endRun();
      run = part.exact;
      continue;
    }
    const next = new Set<string>();
    for (const a of current) for (const b of part.exact) next.add(a + b);
    run = next;
  }
  if (wholeExact && run !== null) return { exact: run, all };
  endRun();
  return { exact: null, all };
}

/** The readings of a sequence's elements, each run of ASCII characters read as one literal. */
function* partsOf(elements: readonly AST.Element[]): Generator<Reading> {
  let literal = "";
  for (const element of elements) {
    if (element.type === "Character" && element.value < ASCII) {
      literal += String.fromCharCode(element.value).toLowerCase();
      continue;
    }
    if (literal !== "") yield { exact: new Set([literal]), all: [] };
    literal = "";
    yield readElement(element);
  }
  if (literal !== "") yield { exact: new Set([literal]), all: [] };
}

function readElement(element: AST.Element): Reading {
  switch (element.type) {
    case "Character":
      return characterReading(element.value);
    case "CharacterClass":
      return classReading(element);
    case "Group":
    case "CapturingGroup":
      return readAlternatives(element.alternatives);
    case "Quantifier":
      return quantifierReading(element);
    // Assertions match the empty string; what a lookaround needs is not required of the match.
    case "Assertion":
      return EMPTY;
    default:
      return UNKNOWN;
  }
}

function characterReading(code: number): Reading {
  return code < ASCII ? { exact: new Set([String.fromCharCode(code).toLowerCase()]), all: [] } : UNKNOWN;
}

function classReading(node: AST.CharacterClass): Reading {
  if (node.negate) return UNKNOWN;
  const letters = new Set<string>();
  for (const element of node.elements) {
    if (element.type !== "Character" || element.value >= ASCII) return UNKNOWN;
    letters.add(String.fromCharCode(element.value).toLowerCase());
  }
  return letters.size > 0 && letters.size <= MAX_CLASS ? { exact: letters, all: [] } : UNKNOWN;
}

/** "x?" is exact ("" or x); "x{2,}" needs what x needs; "x*" needs nothing. */
function quantifierReading(node: AST.Quantifier): Reading {
  const inner = readElement(node.element);
  if (node.min === 0) {
    if (node.max === 1 && inner.exact !== null) return { exact: new Set(["", ...inner.exact]), all: [] };
    return UNKNOWN;
  }
  if (node.min === 1 && node.max === 1) return inner;
  return { exact: null, all: inner.exact === null ? inner.all : [...inner.all, [...inner.exact]] };
}
