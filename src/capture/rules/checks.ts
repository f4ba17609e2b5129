/**
 * Checks that run on a sensitive-pattern match before it counts. Regexes find candidates cheaply;
 * these decide with arithmetic the regexes cannot do (checksums, digit counts), which keeps the
 * patterns simple and keeps dates, years and version numbers from being flagged.
 */

const digitsOf = (text: string): string => text.replace(/\D/gu, "");

/** Luhn checksum: every real payment card number passes it, most random digit runs do not. */
export function luhnValid(candidate: string): boolean {
  const digits = digitsOf(candidate);
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits.charAt(digits.length - 1 - i));
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 mod-97 check: "DE89 3704 0044 0532 0130 00" passes, look-alike codes do not. */
export function ibanValid(candidate: string): boolean {
  const compact = candidate.replace(/ /gu, "").toUpperCase();
  if (compact.length < 15 || compact.length > 34) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    // Letters count as two digits (A=10 ... Z=35), folded in one digit at a time.
    const value = code >= 65 && code <= 90 ? String(code - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** 2024-05-01, 2024/5/1, 01.05.2024, 1/5/24 at the start of a candidate. */
const DATE_START = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})(?!\d)/u;
const YEAR = /^(?:19|20)\d\d$/u;

/**
 * A phone number: 9-15 digits (the E.164 maximum), written with separators or a leading "+".
 * Not a phone: a bare digit run (an id), a list of years, a date, or four-plus dot groups
 * (IP addresses and version numbers).
 */
export function phoneLike(candidate: string): boolean {
  const digits = digitsOf(candidate);
  if (digits.length < 9 || digits.length > 15) return false;
  const groups = candidate.split(/\D+/u).filter((g) => g.length > 0);
  const international = candidate.startsWith("+");
  if (!international && groups.length < 2) return false;
  if (groups.every((g) => YEAR.test(g))) return false;
  if (DATE_START.test(candidate)) return false;
  if (!international && /^[\d.]+$/u.test(candidate) && groups.length >= 4) return false;
  return true;
}
