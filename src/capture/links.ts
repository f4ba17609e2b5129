/**
 * How a new fact relates to a live older one of its scope: it *replaces* it (the older is hidden
 * and kept as history) only when sure, and *updates* it (both stay live; readers put the newer
 * first) when the evidence is weaker. Pure, so the pipeline, `facts reclaim` and the labelled
 * pairs decide the same way (docs/memory.md, "Replaces and updates").
 */
import { clausesOf } from "./clauses";
import { relatePrepared, sameClaimOf, type PreparedClaim } from "./relation";

export type LinkKind = "replaces" | "updates";

export interface Link {
  kind: LinkKind;
  /** Which record and which words made the link, for review (`memoryd facts explain`). */
  reason: string;
}

/** A live fact as the decision sees it. */
export interface LinkCandidate {
  /** As written: the clauses of a fact are read from its words' tags. */
  text: string;
  /** The attribute lexicon's reading, as stored (`claim_*`). */
  first: PreparedClaim | null;
}

/** Abbreviations whose full stop ends no sentence: "Dr. Nkemelu", "St. Paul". */
const ABBREVIATIONS: ReadonlySet<string> = new Set(["dr", "st", "mr", "mrs", "ms", "prof", "inc", "ltd", "jr", "sr", "vs", "co", "no", "mt", "ave"]);

/**
 * Whether one fact holds several statements ("I work in Leeds, and I have a dog"; two sentences):
 * such a fact is hidden only when all of them change, which one reading cannot tell, so a change to
 * one of them makes an *updates* link. Sentences and clauses are read as teach-from-messages splits
 * them (capture/clauses.ts), so "Dana and I have 1:1s weekly" is one statement.
 */
export function holdsSeveralClaims(text: string): boolean {
  const sentences = text.split(/(?<=[.!?;])\s+/u).reduce<string[]>((out, part) => {
    const previous = out.at(-1);
    const lastWord = previous?.match(/(\p{L}+)\.$/u)?.[1]?.toLowerCase();
    if (previous !== undefined && lastWord !== undefined && ABBREVIATIONS.has(lastWord)) out[out.length - 1] = `${previous} ${part}`;
    else out.push(part);
    return out;
  }, []);
  return sentences.filter((s) => /\p{L}/u.test(s)).length > 1 || sentences.some((s) => clausesOf(s).length > 1);
}

/**
 * The link a new fact's claim makes to an older fact, or null. *Replaces* needs the one reading
 * (the attribute lexicon's) of both facts to name the same subject and the same one-valued
 * attribute (or the same many-valued relation, denied) with another value (the lexicon reads a
 * claim only from a plain present assertion: no markup, instruction, question, plan, hedge, report
 * or history), and the older to hold that one claim. A change of the same claim read otherwise (a
 * first name for a full one, a value named as replaced under another attribute, an older fact of
 * several claims) only *updates*; statements that something changed are read by capture/updates.ts.
 */
export function linkOf(newer: PreparedClaim | null, older: LinkCandidate): Link | null {
  if (newer === null || older.first === null || relatePrepared(newer, older.first) !== "supersede") return null;
  const sure = sameClaimOf(newer, older.first) && !holdsSeveralClaims(older.text);
  return { kind: sure ? "replaces" : "updates", reason: describe(sure ? "replaces" : "updates", newer, older.first) };
}

function describe(kind: LinkKind, newer: PreparedClaim, older: PreparedClaim): string {
  const n = newer.claim;
  const o = older.claim;
  const value = (v: string, negated: boolean): string => (negated ? `not "${v}"` : `"${v}"`);
  return `${kind}: lexicon "${n.attribute}" of "${n.subject}", ${value(o.value, o.negated)} -> ${value(n.value, n.negated)}`;
}
