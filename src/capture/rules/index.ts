import { KIND_RULES } from "./kind";
import type { Rule } from "./rule";
import { SENSITIVE_RULES } from "./sensitive";
import { COMMON_NOUN_ENDING, LEADING_FILLER, NAME_RULES, SPEAKER_PREFIX, TEAM_RULES } from "./subject";

/** Every rule table by name: one place to list, document or audit what capture can decide. */
export const RULE_TABLES: Readonly<Record<string, readonly Rule[]>> = {
  subject: [SPEAKER_PREFIX, ...TEAM_RULES, ...NAME_RULES],
  kind: KIND_RULES,
  sensitive: SENSITIVE_RULES,
};

/**
 * Every regex capture runs, including the helper patterns inside rules (`unless`, `scope`), so a
 * test can run each one over adversarial input and audit its quantifiers.
 */
export function allPatterns(): { name: string; pattern: RegExp }[] {
  const found: { name: string; pattern: RegExp }[] = [
    { name: "leading_filler", pattern: LEADING_FILLER },
    { name: "common_noun_ending", pattern: COMMON_NOUN_ENDING },
  ];
  for (const [table, rules] of Object.entries(RULE_TABLES)) {
    for (const rule of rules) {
      found.push({ name: `${table}.${rule.name}`, pattern: rule.pattern });
      const extras = rule as Rule & { unless?: RegExp; scope?: RegExp };
      if (extras.unless) found.push({ name: `${table}.${rule.name}.unless`, pattern: extras.unless });
      if (extras.scope) found.push({ name: `${table}.${rule.name}.scope`, pattern: extras.scope });
    }
  }
  return found;
}
