import { expect, test } from "bun:test";
import { ibanValid, luhnValid, phoneLike } from "../../src/capture/rules/checks";
import { SENSITIVE_RULES } from "../../src/capture/rules/sensitive";
import { explain } from "./helpers";

/** Positive examples: the rule named must be among those that fire. */
const positives: [text: string, rule: string][] = [
  ["The staging password is hunter2", "credential_word"],
  ["API key: 1234abcd", "credential_word"],
  ["Rotate the GitHub token monthly", "credential_word"],
  ["token: abc123", "credential_word"],
  ["pass\u200Bword is swordfish", "credential_word"],
  ["Use sk-proj-abcdefghijklmnop1234 for staging", "sk_key"],
  ["Stripe uses sk_live_abcdefghij1234", "stripe_key"],
  ["The CI key is ak_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "memoryd_key"],
  ["ghp_abcdefghijklmnopqrstuvwxyz0123456789 is Tom's", "github_token"],
  ["Bot uses xoxb-1234567890-abcdefghij", "slack_token"],
  ["Use AKIAIOSFODNN7EXAMPLE in us-east-1", "aws_access_key"],
  ["Maps uses AIzaSyA1234567890abcdefghijklmnopqrstuv", "google_api_key"],
  ["-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXk", "pem_block"],
  ["Session: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", "jwt"],
  ["Send Authorization: Bearer abcdefghijklmnop1234", "bearer_value"],
  ["DB is postgres://app:hunter2@db.internal:5432/app", "url_credentials"],
  ["Priya's email is priya@acme.com", "email_address"],
  ["Call Tom on +44 20 7946 0958", "phone_number"],
  ["Her number is (415) 555-0123", "phone_number"],
  ["Support line 415.555.0123", "phone_number"],
  ["WhatsApp +14155550123", "phone_number"],
  ["Card 4111 1111 1111 1111 expires 09/27", "payment_card"],
  ["Pay to DE89 3704 0044 0532 0130 00", "iban"],
  ["Her IBAN is on file", "bank_details_word"],
  ["SSN 123-45-6789", "ssn_number"],
  ["Her passport number is X1234567", "government_id_word"],
  ["Tom's social security details are in the HR folder", "government_id_word"],
  ["NI number AB 12 34 56 C", "uk_nino"],
  ["Tom's salary is 120k", "compensation_word"],
  ["Priya earns $150,000 a year", "earnings_amount"],
  ["She was paid $120k last year", "earnings_amount"],
  ["Priya was diagnosed with diabetes", "health_word"],
  ["Tom takes medication for ADHD", "health_word"],
  ["Ana is pregnant", "health_word"],
  ["He has a peanut allergy", "health_word"],
  ["Tom is HIV positive", "health_acronym"],
];

test.each(positives)("%j is sensitive by %s", (text, rule) => {
  const result = explain(text);
  expect(result.analysis.sensitive).toBe(true);
  expect(result.rules.sensitive).toContain(rule);
});

/** Negative examples: years, dates, versions, budgets and look-alikes that are not sensitive. */
const negatives: [text: string, why: string][] = [
  ["We shipped v2.14.3 in 2024", "version and year"],
  ["The contract started on 2023-05-01", "ISO date"],
  ["Between 2019 and 2024 we grew 3x", "years"],
  ["Busy years: 2019 2020 2021", "a list of years"],
  ["Node 20.11.1 is required", "version"],
  ["The server is at 192.168.100.200", "IP address"],
  ["Meeting at 10:30 on 01.05.2024", "time and date"],
  ["Release 1.2.3.4567 is out", "four-part version"],
  ["Ticket 123456789 is closed", "bare id, not a phone"],
  ["Order 4111 1111 1111 1112 shipped", "fails Luhn"],
  ["Account DE00 3704 0044 0532 0130 00 is fake", "fails the IBAN checksum"],
  ["The context packet fits in 1500 tokens", "LLM token budget"],
  ["Visual aids help in demos", "'aids' lower-case"],
  ["Priya mentioned @tom in Slack", "a mention is not an e-mail"],
  ["The deploy pipeline runs on Fridays", "plain fact"],
  ["Priya prefers tea", "plain preference"],
  ["The task-force meets weekly", "'sk-' inside a word"],
];

test.each(negatives)("%j is not sensitive (%s)", (text) => {
  const result = explain(text);
  expect(result.rules.sensitive).toEqual([]);
  expect(result.analysis.sensitive).toBe(false);
});

test("every sensitive rule is exercised by a positive example", () => {
  const fired = new Set(positives.map((row) => row[1]));
  for (const rule of SENSITIVE_RULES) expect(fired).toContain(rule.name);
});

test.each([
  ["4111 1111 1111 1111", true],
  ["5500-0000-0000-0004", true],
  ["4111111111111112", false],
  ["123", false],
])("luhnValid(%j) -> %p", (input, expected) => {
  expect(luhnValid(input)).toBe(expected);
});

test.each([
  ["DE89 3704 0044 0532 0130 00", true],
  ["GB82WEST12345698765432", true],
  ["GB82WEST12345698765433", false],
  ["DE89", false],
])("ibanValid(%j) -> %p", (input, expected) => {
  expect(ibanValid(input)).toBe(expected);
});

test.each([
  ["+44 20 7946 0958", true],
  ["(415) 555-0123", true],
  ["2024-05-01", false],
  ["2019 2020 2021", false],
  ["10.0.0.100.200", false],
  ["4155550123", false],
])("phoneLike(%j) -> %p", (input, expected) => {
  expect(phoneLike(input)).toBe(expected);
});
