/**
 * Patterns that open with a lookbehind ("(?<![\p{L}'])we", "(?<!\d)\d{13}"), run in two parts.
 * JavaScriptCore's regex JIT does not compile lookbehinds: such a pattern runs in the interpreter
 * at every position of the text, 10-50x slower than without it, and the rules that scan a whole
 * fact (team "we", possessive names, phone and card numbers) all open with one. So the rest of the
 * pattern, compiled, finds the first place it matches, and the lookbehind alone, sticky, is checked
 * there; where it fails, the search goes on from the next character.
 *
 * Same matches as the whole pattern: it tries start positions in order and at each checks the
 * lookbehind, which binds nothing, before the rest. The rest matches at no position before the one
 * it finds, so neither does the whole pattern; at that position the whole pattern matches exactly
 * when the lookbehind holds, with the rest's match. A lookbehind holding a capturing group would
 * renumber the groups after it, so such a pattern is run whole.
 */
import { parseRegExpLiteral, type AST } from "@eslint-community/regexpp";

export interface SplitPattern {
  /** The pattern without its opening lookbehind, global. */
  rest: RegExp;
  /** The opening lookbehind alone, sticky: holds at `lastIndex` or not. */
  behind: RegExp;
  fullUnicode: boolean;
}

const splits = new WeakMap<RegExp, SplitPattern | null>();

/** The two parts of a non-global pattern that opens with a lookbehind; null for any other pattern. */
export function splitLookbehind(pattern: RegExp): SplitPattern | null {
  let split = splits.get(pattern);
  if (split === undefined) {
    split = readSplit(pattern);
    splits.set(pattern, split);
  }
  return split;
}

function readSplit(pattern: RegExp): SplitPattern | null {
  if (pattern.global || pattern.sticky) return null;
  let literal: AST.RegExpLiteral;
  try {
    literal = parseRegExpLiteral(pattern);
  } catch {
    return null;
  }
  const [only, other] = literal.pattern.alternatives;
  const first = only?.elements[0];
  if (other !== undefined || first?.type !== "Assertion" || first.kind !== "lookbehind") return null;
  if (!pattern.source.startsWith(first.raw) || first.alternatives.some(capturesIn)) return null;
  return {
    rest: new RegExp(pattern.source.slice(first.raw.length), `${pattern.flags}g`),
    behind: new RegExp(first.raw, `${pattern.flags}y`),
    fullUnicode: pattern.unicode || pattern.unicodeSets,
  };
}

function capturesIn(node: AST.Alternative | AST.Element): boolean {
  switch (node.type) {
    case "CapturingGroup":
      return true;
    case "Alternative":
      return node.elements.some(capturesIn);
    case "Group":
    case "Assertion":
      return "alternatives" in node && node.alternatives.some(capturesIn);
    case "Quantifier":
      return capturesIn(node.element);
    default:
      return false;
  }
}

/** The whole pattern's first match at or after `from`, as its global copy would find it. */
export function execSplit(split: SplitPattern, text: string, from: number): RegExpExecArray | null {
  const { rest, behind } = split;
  rest.lastIndex = from;
  let found: RegExpExecArray | null = null;
  for (let match = rest.exec(text); match !== null; match = rest.exec(text)) {
    behind.lastIndex = match.index;
    if (behind.test(text)) {
      found = match;
      break;
    }
    rest.lastIndex = nextIndex(text, match.index, split.fullUnicode);
  }
  rest.lastIndex = 0;
  behind.lastIndex = 0;
  return found;
}

/** The position after the character at `index`: a whole code point in Unicode mode, as the regex engine steps. */
export function nextIndex(text: string, index: number, fullUnicode: boolean): number {
  if (!fullUnicode || index + 1 >= text.length) return index + 1;
  const code = text.charCodeAt(index);
  const next = text.charCodeAt(index + 1);
  return code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? index + 2 : index + 1;
}
