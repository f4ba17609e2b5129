import { ibanValid, luhnValid, phoneLike } from "./checks";
import type { DigitRuns } from "./digit-runs";
import { anyOf, type Rule } from "./rule";

/**
 * Sensitive-content flags: any match marks the fact sensitive, which keeps it from external keys.
 * Over-flagging only narrows who sees a fact; under-flagging leaks it, so ties go to flagging.
 * Quantifiers are bounded (a key is at most a few hundred characters), so a 4000-character
 * adversarial word costs a bounded scan per position, never a backtracking explosion.
 */
export interface SensitiveRule extends Rule {
  /** When present, a match counts only if this accepts the matched text. */
  readonly check?: (match: string) => boolean;
  /** What every match needs of the text's digit runs: a text without it is not scanned (see digit-runs.ts). */
  readonly digits?: (runs: DigitRuns) => boolean;
}

const CREDENTIAL = anyOf([
  "passwords?",
  "passwd",
  "pwd",
  "passcodes?",
  "passphrases?",
  "api[ _-]?keys?",
  "secret keys?",
  "secrets?",
  "client secret",
  "private keys?",
  "ssh keys?",
  "credentials?",
  "recovery codes?",
  "2fa codes?",
  "otp codes?",
  "pin (?:code|number|is)",
]);
/** Words that make "token" a credential: "access token", "GitHub token". */
const TOKEN_KIND = "(?:access|auth|api|bearer|refresh|session|github|gitlab|slack|oauth|jwt|csrf|personal access|security)";
const GOVERNMENT_ID = anyOf([
  "social security",
  "ssn",
  "passport (?:number|no|id)",
  "passport ?[:#]",
  "national insurance",
  "ni number",
  "nino",
  "tax (?:id|identification|file) number",
  "tax id",
  "taxpayer id",
  "driver's licen[cs]e",
  "drivers licen[cs]e",
  "national id",
  "aadhaar",
  "sin number",
]);
const HEALTH = anyOf([
  "diagnos(?:ed|is|es)",
  "medications?",
  "medicine",
  "prescri(?:bed|ption)",
  "therapy",
  "therapist",
  "psychiatrist",
  "pregnan(?:t|cy)",
  "diabetes",
  "diabetic",
  "cancer",
  "chemo(?:therapy)?",
  "depression",
  "depressed",
  "anxiety disorder",
  "panic attacks?",
  "adhd",
  "autism",
  "autistic",
  "bipolar",
  "ptsd",
  "asthma",
  "epilepsy",
  "allerg(?:y|ies|ic)",
  "health (?:condition|issue|problem)s?",
  "disabilit(?:y|ies)",
  "chronic (?:illness|pain)",
  "surgery",
  "rehab",
  "mental health",
  "illness",
  "sick leave",
  "medical (?:condition|leave|history)",
]);

export const SENSITIVE_RULES: readonly SensitiveRule[] = [
  // Words that announce a credential. Plain "token" is left out: "1500 tokens" is an LLM budget,
  // not a secret, in a memory service for agents; qualified tokens and "token: x" still count.
  {
    name: "credential_word",
    pattern: new RegExp(`\\b${CREDENTIAL}\\b|\\b${TOKEN_KIND} tokens?\\b|\\btokens?(?: is|:|=)`, "i"),
  },
  // OpenAI / Anthropic style secret keys: "sk-..." / "sk-proj-..." / "sk-ant-...".
  { name: "sk_key", pattern: /\bsk-[A-Za-z0-9_-]{16,300}/ },
  // Stripe style keys: "sk_live_...", "rk_test_...".
  { name: "stripe_key", pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,300}/ },
  // This service's own API keys: "ak_live_..." / "ak_test_...".
  { name: "memoryd_key", pattern: /\bak_(?:live|test)_[A-Za-z0-9]{16,300}/ },
  // GitHub tokens: "ghp_", "gho_", "ghu_", "ghs_", "ghr_", fine-grained "github_pat_".
  { name: "github_token", pattern: /\bgh[pousr]_[A-Za-z0-9]{20,300}|\bgithub_pat_[A-Za-z0-9_]{20,300}|\bglpat-[A-Za-z0-9_-]{20,300}/ },
  // Slack tokens: "xoxb-...", "xoxp-...".
  { name: "slack_token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,300}/ },
  // AWS access key ids: "AKIA" / "ASIA" and 16 upper-case characters.
  { name: "aws_access_key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  // Google API keys: "AIza" and 35 characters.
  { name: "google_api_key", pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  // PEM blocks: "-----BEGIN RSA PRIVATE KEY-----", certificates and keys alike.
  { name: "pem_block", pattern: /-----BEGIN [A-Z0-9 ]{1,40}-----/ },
  // JSON Web Tokens: base64url header starting "eyJ", payload, signature.
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,2000}\.[A-Za-z0-9_-]{8,4000}\./ },
  // "Authorization: Bearer abc...": a bearer credential in a header.
  { name: "bearer_value", pattern: /\b[Bb]earer [A-Za-z0-9._~+/=-]{16,500}/ },
  // "postgres://app:hunter2@db": a password inside a connection URL.
  { name: "url_credentials", pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/]{1,64}:[^\s@/]{1,128}@/i },

  // E-mail addresses (the local part is at most 64 characters by RFC 5321).
  { name: "email_address", pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}\.[A-Za-z]{2,24}/ },
  // Phone numbers: a digit run with separators or "+", judged by phoneLike (not dates or versions).
  {
    name: "phone_number",
    pattern: /(?<![\p{L}\p{N}])\+?\(?\d[\d ().-]{7,24}\d(?![\p{L}\p{N}])/u,
    check: phoneLike,
    digits: (runs) => runs.widest >= 9,
  },
  // Payment cards: 13-19 digits, optionally grouped, that pass the Luhn checksum.
  { name: "payment_card", pattern: /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/, check: luhnValid, digits: (runs) => runs.chain >= 13 },
  // IBANs: country code, check digits, then groups of four, that pass mod-97.
  {
    name: "iban",
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/,
    check: ibanValid,
    digits: (runs) => runs.chain >= 2,
  },
  // "IBAN", "account number", "sort code": naming bank details is enough.
  {
    name: "bank_details_word",
    pattern: /\b(?:iban|swift code|bic code|bank account|account number|routing number|sort code|credit score|card number|cvv|cvc)\b/i,
  },

  // US social security numbers: 123-45-6789.
  { name: "ssn_number", pattern: /\b\d{3}-\d{2}-\d{4}\b/, digits: (runs) => runs.chain >= 9 },
  // Words naming a government identifier.
  {
    name: "government_id_word",
    pattern: new RegExp(`\\b${GOVERNMENT_ID}\\b`, "i"),
  },
  // UK National Insurance numbers: "AB 12 34 56 C" (the letter ranges the format allows).
  { name: "uk_nino", pattern: /\b[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/, digits: (runs) => runs.chain >= 6 },

  // Salaries and compensation words.
  {
    name: "compensation_word",
    pattern:
      /\b(?:salary|salaries|compensation|wages?|payslip|paycheck|pay rate|hourly rate|net worth|income|equity grant|stock options|pay raise|pay rise)\b/i,
  },
  // "earns $120k", "paid $120k", "makes €90,000": an amount a person is paid.
  {
    name: "earnings_amount",
    pattern: /\b(?:earns?|earned|earning|paid|makes?|made)(?: about| around| roughly| over| under| nearly| almost)? [$€£¥₹] ?\d|\bearns? \d/i,
  },

  // Health: diagnoses, treatment, conditions (special-category data).
  {
    name: "health_word",
    pattern: new RegExp(`\\b${HEALTH}\\b`, "i"),
  },
  // "HIV", "AIDS": case-sensitive so "visual aids" is not a diagnosis.
  { name: "health_acronym", pattern: /\b(?:HIV|AIDS)\b/ },
];
