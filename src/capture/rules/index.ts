import {
  ATTRIBUTE_ALIASES,
  CLAIM_BLOCKERS,
  CLAIM_RULES,
  DECISION,
  HABIT,
  NEGATION_FOLDS,
  RELATIONS,
  REPHRASINGS,
  STATE,
  USE_FOR,
  VALUE_CLASS_POSSESSIVE,
  VALUE_CLASS_SENTENCE,
  VALUE_CLASSES,
  VALUE_END,
} from "./claim";
import { KIND_RULES } from "./kind";
import type { Rule } from "./rule";
import { SENSITIVE_RULES } from "./sensitive";
import { COMMON_NOUN_ENDING, LEADING_FILLER, NAME_RULES, SPEAKER_PREFIX, TEAM_RULES } from "./subject";

/** Every rule table by name: one place to list, document or audit what capture can decide. */
export const RULE_TABLES: Readonly<Record<string, readonly Rule[]>> = {
  subject: [SPEAKER_PREFIX, ...TEAM_RULES, ...NAME_RULES],
  kind: KIND_RULES,
  sensitive: SENSITIVE_RULES,
  claim: CLAIM_RULES,
  claim_blockers: CLAIM_BLOCKERS,
  attribute_aliases: ATTRIBUTE_ALIASES,
};

/**
 * Every regex capture runs, including the helper patterns inside rules (`unless`, `scope`), so a
 * test can run each one over adversarial input and audit its quantifiers.
 */
export function allPatterns(): { name: string; pattern: RegExp }[] {
  const found: { name: string; pattern: RegExp }[] = [
    { name: "leading_filler", pattern: LEADING_FILLER },
    { name: "common_noun_ending", pattern: COMMON_NOUN_ENDING },
    { name: "value_end", pattern: VALUE_END },
    { name: "value_class_possessive", pattern: VALUE_CLASS_POSSESSIVE },
    { name: "value_class_sentence", pattern: VALUE_CLASS_SENTENCE },
    { name: "decision", pattern: DECISION },
    { name: "use_for", pattern: USE_FOR.pattern },
    { name: "state", pattern: STATE.pattern },
    { name: "habit", pattern: HABIT.pattern },
    ...RELATIONS.map((rel) => ({ name: `relations.${rel.name}`, pattern: rel.pattern })),
    ...NEGATION_FOLDS.map((fold) => ({ name: `negation_folds.${fold.name}`, pattern: fold.pattern })),
    ...REPHRASINGS.map((rewrite) => ({ name: `rephrasings.${rewrite.name}`, pattern: rewrite.pattern })),
  ];
  for (const cls of VALUE_CLASSES) {
    if (cls.pattern) found.push({ name: `value_classes.${cls.name}`, pattern: cls.pattern });
    if (cls.context) found.push({ name: `value_classes.${cls.name}.context`, pattern: cls.context });
    if (cls.unless) found.push({ name: `value_classes.${cls.name}.unless`, pattern: cls.unless });
  }
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
