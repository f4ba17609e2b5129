import { CRM_ATTRIBUTES } from "./crm";
import { ENGINEERING_ATTRIBUTES } from "./engineering";
import { OWNERSHIP_ATTRIBUTES } from "./ownership";
import { PERSONAL_ATTRIBUTES } from "./personal";
import type { AttributeRecord } from "./record";
import { WORK_ATTRIBUTES } from "./work";

export type { AttributeRecord, Example, ValueType } from "./record";

/** Every attribute record, personal, work, CRM, engineering and ownership, in that order. */
export const ATTRIBUTE_LEXICON: readonly AttributeRecord[] = [
  ...PERSONAL_ATTRIBUTES,
  ...WORK_ATTRIBUTES,
  ...CRM_ATTRIBUTES,
  ...ENGINEERING_ATTRIBUTES,
  ...OWNERSHIP_ATTRIBUTES,
];

/** Attributes of a person (and what a person owns), whom facts name in full or by first name alone (capture/relation.ts). */
export const PERSON_ATTRIBUTES: ReadonlySet<string> = new Set([...PERSONAL_ATTRIBUTES, ...OWNERSHIP_ATTRIBUTES].map((r) => r.attribute));
