/**
 * Claims from token rules (rules/attribute.ts): tag the sentence once, try each rule's pattern,
 * and build the claim the rule declares from its slots.
 */
import { manyValued, oneValued } from "./claim-key";
import type { SubjectResolver } from "./claim-subject";
import { canonicalAttribute, cleanValue, isManyValued } from "./claim-values";
import type { TokenClaimRule } from "./rules/attribute";
import { SINGLE_VALUED_VERBS } from "./rules/lexicon";
import { matchTokens, passes, spanText, type Slots } from "./rules/pattern";
import { escapeRegex } from "./rules/rule";
import { tokenize, type Token } from "./tokens";
import type { Claim } from "./types";

/** The longest sentence the token rules read, in characters. */
const MAX_TAGGED = 240;

export interface TokenClaimOutcome {
  claim: Claim | null;
  rule: string;
  refusedBy: string | null;
}

/** The first rule of `rules` that matches the sentence, and its claim (or why it made none). */
export function tokenClaim(sentence: string, negated: boolean, resolve: SubjectResolver, rules: readonly TokenClaimRule[]): TokenClaimOutcome | null {
  // A claim is a short statement; tagging a paragraph-long "sentence" costs more than it can give.
  if (sentence.length > MAX_TAGGED) return null;
  const lower = sentence.toLowerCase();
  const cued = rules.filter((rule) => anyOf(rule.cue).test(lower) && (rule.cueAlso === undefined || anyOf(rule.cueAlso).test(lower)));
  if (cued.length === 0) return null;
  const tokens = withoutEndPunctuation(tokenize(sentence));
  let refused: TokenClaimOutcome | null = null;
  for (const rule of cued) {
    const slots = matchTokens(rule.pattern, tokens);
    if (slots === null) continue;
    if (rule.notIfTail !== undefined && (slots.tail ?? []).some((t) => passes(t, rule.notIfTail))) continue;
    const subjectText = subjectOf(rule, slots);
    const subject = resolve(subjectText, undefined);
    if (subject === null) {
      refused ??= { claim: null, rule: rule.name, refusedBy: "other_subject" };
      continue;
    }
    const built = buildClaim(rule, slots, subject, negated);
    if (built === null) continue;
    return { rule: rule.name, ...built };
  }
  return refused;
}

/** A rule's cue words as one pattern, compiled once: the check runs on every fact. */
const cues = new WeakMap<readonly string[], RegExp>();
function anyOf(words: readonly string[]): RegExp {
  let pattern = cues.get(words);
  if (pattern === undefined) {
    pattern = new RegExp(words.map(escapeRegex).join("|"), "u");
    cues.set(words, pattern);
  }
  return pattern;
}

/** The words naming whom the claim is about, as the rule's slots hold them. */
function subjectOf(rule: TokenClaimRule, slots: Slots): string {
  if (rule.builds === "schedule") return `${spanText(slots.owner)} ${slots.thing?.[0]?.lemma ?? ""}`;
  if (rule.builds === "object") {
    const owner = ownerWords(slots.thing ?? []);
    return owner.length > 0 ? spanText(owner) : spanText(slots.actor);
  }
  return spanText(slots.subject);
}

/** The leading words of a thing's noun phrase that name its owner: up to the last name or number. */
function ownerWords(thing: readonly Token[]): readonly Token[] {
  let last = -1;
  thing.forEach((t, i) => {
    if ((t.pos === "PROPN" || t.pos === "NUM") && i < thing.length - 1) last = i;
  });
  // "Wi - Fi" is one name: a hyphen inside it stays with it.
  while (last + 1 < thing.length - 1 && (thing[last + 1]!.text === "-" || (!thing[last + 1]!.spaced && thing[last + 1]!.pos === "PROPN"))) last += 1;
  return thing.slice(0, last + 1);
}

function buildClaim(rule: TokenClaimRule, slots: Slots, subject: string, negated: boolean): { claim: Claim | null; refusedBy: string | null } | null {
  const rawValue = spanText(slots.value);
  const head = slots.value?.at(-1);
  if (rule.valueIn !== undefined && (head === undefined || !(rule.valueIn.has(head.lower) || rule.valueIn.has(head.lemma)))) return null;
  const attribute = attributeOf(rule, slots);
  if (attribute === null) return null;
  if (rule.builds === "replacement" || rule.builds === "handover") {
    const replaced = cleanValue(spanText(rule.builds === "handover" ? slots.giver : slots.replaced), "");
    const value = cleanValue(rawValue, "");
    if (replaced === null || value === null || replaced === value) return { claim: null, refusedBy: "no_value" };
    return { claim: { ...manyValued(subject, attribute, value, negated), replaces: replaced }, refusedBy: null };
  }
  // A lexicon's or a rule's own attribute has its cardinality declared; a named one takes it from the word.
  if (rule.builds === "attribute" && rule.attribute === undefined && isManyValued(attribute)) return { claim: null, refusedBy: "many_values" };
  const value = cleanValue(rawValue, attribute);
  if (value === null) return { claim: null, refusedBy: "no_value" };
  return { claim: oneValued(subject, attribute, value, negated), refusedBy: null };
}

function attributeOf(rule: TokenClaimRule, slots: Slots): string | null {
  switch (rule.builds) {
    case "replacement":
      return "switched to";
    case "handover":
      return "handed to";
    case "taken":
      return `${slots.attribute?.[0]?.lemma ?? ""} owner`;
    case "schedule":
      return "day";
    case "verb":
      return SINGLE_VALUED_VERBS[slots.verb?.[0]?.lemma ?? ""] ?? null;
    case "count":
      return canonicalAttribute(spanText(slots.attribute), true);
    case "headed":
      return canonicalAttribute(slots.attribute?.[0]?.lemma ?? "", false);
    case "decided":
      return `decided ${(slots.attribute ?? []).map((t) => t.lemma).join(" ")}`;
    case "object": {
      const thing = slots.thing ?? [];
      return canonicalAttribute(spanText(thing.slice(ownerWords(thing).length)), false);
    }
    case "attribute": {
      if (rule.attribute !== undefined) return rule.attribute;
      const named = canonicalAttribute(spanText(slots.attribute), false);
      if (named !== null && rule.suffix !== undefined) return canonicalAttribute(`${named} ${rule.suffix}`, false);
      if (named === null || slots.qualifier === undefined) return named;
      return `${named} ${spanText(slots.link).toLowerCase()} ${slots.qualifier.map((t) => t.lemma).join(" ")}`;
    }
  }
}

function withoutEndPunctuation(tokens: readonly Token[]): readonly Token[] {
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]!.pos === "PUNCT") end -= 1;
  return tokens.slice(0, end);
}
