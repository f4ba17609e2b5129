/**
 * The digit runs of a text, read in one pass. The digit patterns of the sensitive rules (phone,
 * card, IBAN, national insurance and social security numbers) are tried at every position of the
 * whole text, and a long chat turn rarely holds the run any of them needs; each rule names what it
 * needs of these runs (sensitive.ts), and a text without it skips the pattern. Exact: a rule's
 * condition holds for every text its pattern matches, so only texts it could not match are skipped.
 */
export interface DigitRuns {
  /**
   * The widest run of phone-number characters (digits, space, "(", ")", ".", "-"), measured from
   * its first digit to its last, both included: "(415) 555-0123" is 13 wide.
   */
  widest: number;
  /** The most digits in a row with at most one space or hyphen between each two: "4111 1111" is 8. */
  chain: number;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const SPACE = 32;
const HYPHEN = 45;
/** Space, "(", ")", ".", "-": what may stand between the digits of a phone number. */
const isPhoneSeparator = (code: number): boolean => code === SPACE || code === 40 || code === 41 || code === 46 || code === HYPHEN;

export function digitRunsOf(text: string): DigitRuns {
  let widest = 0;
  let chain = 0;
  /** Where the current phone run's first digit stands; -1 outside a run or before its first digit. */
  let runFirst = -1;
  /** Digits in the current chain, and separators since its last digit. */
  let linked = 0;
  let gap = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isDigit(code)) {
      if (runFirst < 0) runFirst = i;
      widest = Math.max(widest, i - runFirst + 1);
      linked = gap <= 1 ? linked + 1 : 1;
      chain = Math.max(chain, linked);
      gap = 0;
      continue;
    }
    if (!isPhoneSeparator(code)) runFirst = -1;
    if (code === SPACE || code === HYPHEN) gap += 1;
    else {
      linked = 0;
      gap = 0;
    }
  }
  return { widest, chain };
}
