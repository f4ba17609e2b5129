/**
 * Token patterns: what claim rules are written in. A pattern is a list of steps, each matching
 * one or more tagged tokens; a step with a slot name captures what it matched. Matching is
 * anchored at both ends and tries the shortest span of each step first, so a slot stops where
 * the next step can start ("<subject> switched from <replaced> to <value>").
 */
import type { Token } from "../tokens";

/** What one token must be: any of the parts of speech, lemmas or words given (all listed kinds must hold). */
export interface TokenTest {
  readonly pos?: readonly string[];
  readonly lemma?: readonly string[];
  readonly word?: readonly string[];
  /** Tokens this test never accepts, whatever else it says. */
  readonly notWord?: readonly string[];
  /** Words this test accepts whatever else it says ("m" in "$2 M"). */
  readonly orWord?: readonly string[];
}

export interface PatternStep {
  readonly test?: TokenTest;
  /** Captures the tokens matched under this name. */
  readonly slot?: string;
  readonly min: number;
  readonly max: number;
  /** Longest span first (a value runs to the end of its noun phrase); otherwise shortest first. */
  readonly greedy?: boolean;
}

export type TokenPattern = readonly PatternStep[];
export type Slots = Readonly<Record<string, readonly Token[]>>;

/** One token with these words (lower-cased). */
export const word = (...words: string[]): PatternStep => ({ test: { word: words }, min: 1, max: 1 });
/** One token with one of these lemmas. */
export const lemma = (...lemmas: string[]): PatternStep => ({ test: { lemma: lemmas }, min: 1, max: 1 });
/** One token with one of these parts of speech. */
export const pos = (...tags: string[]): PatternStep => ({ test: { pos: tags }, min: 1, max: 1 });
/** The step may be absent. */
export const optional = (step: PatternStep): PatternStep => ({ ...step, min: 0 });
/** Up to `max` tokens that pass `test`, none required. */
export const some = (test: TokenTest, max = 3): PatternStep => ({ test, min: 0, max });
/** A named span of 1..max tokens passing `test` (any token when omitted), shortest first. */
export const slot = (name: string, test?: TokenTest, max = 12): PatternStep => ({ slot: name, min: 1, max, ...(test ? { test } : {}) });
/** A named span of 1..max tokens passing `test`, longest first. */
export const phrase = (name: string, test: TokenTest, max = 8): PatternStep => ({ slot: name, min: 1, max, test, greedy: true });
/** Whatever follows, if anything: a trailing clause the claim does not need ("in March", "since the move"). */
export const tail: PatternStep = { slot: "tail", min: 0, max: 40 };

export function passes(token: Token, test: TokenTest | undefined): boolean {
  if (test === undefined) return true;
  if (test.notWord?.includes(token.lower)) return false;
  if (test.orWord?.includes(token.lower)) return true;
  if (test.pos !== undefined && !test.pos.includes(token.pos)) return false;
  if (test.lemma !== undefined && !test.lemma.includes(token.lemma)) return false;
  if (test.word !== undefined && !test.word.includes(token.lower)) return false;
  return true;
}

/** The slots of a whole-sentence match, or null. */
export function matchTokens(pattern: TokenPattern, tokens: readonly Token[]): Slots | null {
  const slots: Record<string, readonly Token[]> = {};
  const step = (p: number, t: number): boolean => {
    if (p === pattern.length) return t === tokens.length;
    const current = pattern[p]!;
    let run = 0;
    while (run < current.max && t + run < tokens.length && passes(tokens[t + run]!, current.test)) run += 1;
    for (let i = current.min; i <= run; i++) {
      const n = current.greedy === true ? run - (i - current.min) : i;
      if (step(p + 1, t + n)) {
        if (current.slot !== undefined) slots[current.slot] = tokens.slice(t, t + n);
        return true;
      }
    }
    return false;
  };
  return step(0, 0) ? slots : null;
}

/** The words of a span as written, joined. */
export const spanText = (span: readonly Token[] | undefined): string => (span ?? []).map((t, i) => (i > 0 && t.spaced ? ` ${t.text}` : t.text)).join("");
