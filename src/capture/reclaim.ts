import type { Db, Queryable } from "../db/types";
import { nextFactSeq } from "../memory/changes";
import { analyzeFact } from "./analyze";
import { changedFact, type ChangeSide } from "./change";
import { claimKey } from "./claim-key";
import { relateFacts } from "./relation";
import { lockWorkspaceFacts, teamMemberNames, type StoredClaim } from "./store";
import type { Claim } from "./types";

export interface ReclaimReport {
  facts: number;
  /** Facts whose claim key or value changed under the current rules. */
  rekeyed: number;
  /** Superseded facts made live again: their replacement does not replace them under the current rules. */
  restored: number;
  /** Wrongly superseded facts left superseded because a live fact already says exactly the same. */
  keptAsDuplicates: number;
}

interface StoredFact {
  id: string;
  text: string;
  normalized: string;
  end_user_id: string | null;
  end_user_name: string | null;
  superseded_by: string | null;
  claim_key: string | null;
  claim_subject: string | null;
  claim_value: string | null;
  claim_negated: boolean;
  alt_claim_key: string | null;
  alt_claim_value: string | null;
  alt_claim_negated: boolean;
}

/**
 * Re-evaluates a workspace's facts under the current claim rules: every fact gets its claim
 * again, and a superseded fact whose replacement would not replace it now (by its claim or as a
 * change statement) is made live again, in
 * one transaction under the capture lock, stamped with one change sequence so every instance's
 * index picks the restored facts up. It restores and never supersedes more: a contradiction the
 * old rules missed stays live until a new fact replaces it. Holds the workspace's facts in memory
 * (a one-off operator command, not a request path).
 */
export async function reclaimFacts(db: Db, workspaceId: string, options: { dryRun?: boolean } = {}): Promise<ReclaimReport> {
  const team = await teamMemberNames(db, workspaceId);
  return db.transaction(async (tx) => {
    await lockWorkspaceFacts(tx, workspaceId);
    const facts = await loadFacts(tx, workspaceId);
    const analyses = new Map(
      facts.map((f) => {
        const endUser = f.end_user_id === null ? undefined : { id: f.end_user_id, ...(f.end_user_name ? { name: f.end_user_name } : {}) };
        return [f.id, analyzeFact({ text: f.text, teamMembers: team, ...(endUser ? { endUser } : {}) })] as const;
      }),
    );
    const sides = new Map(
      facts.map((f) => {
        const analysis = analyses.get(f.id)!;
        const side: ChangeSide = { text: f.text, subject: analysis.subject, subjectType: analysis.subjectType, claim: analysis.ruleClaim };
        return [f.id, side] as const;
      }),
    );
    const claims = new Map(facts.map((f) => [f.id, keyed(analyses.get(f.id)!.claim)] as const));
    const alternates = new Map(facts.map((f) => [f.id, keyed(analyses.get(f.id)!.alternate)] as const));
    const byId = new Map(facts.map((f) => [f.id, f]));
    const rekeyed = facts.filter((f) => {
      const claim = claims.get(f.id) ?? null;
      const alternate = alternates.get(f.id) ?? null;
      const altChanged =
        (alternate?.key ?? null) !== f.alt_claim_key ||
        (alternate?.value ?? null) !== f.alt_claim_value ||
        (alternate?.negated ?? false) !== f.alt_claim_negated;
      // A replacing fact continues the claim it replaced (see continuedClaim): its stored key stays.
      if (claim?.replaces !== undefined && f.claim_subject === claim.subject && f.claim_value === claim.value) return altChanged;
      return (claim?.key ?? null) !== f.claim_key || (claim?.value ?? null) !== f.claim_value || (claim?.negated ?? false) !== f.claim_negated || altChanged;
    });

    const live = new Set(facts.filter((f) => f.superseded_by === null).map((f) => `${f.end_user_id ?? ""}\n${f.normalized}`));
    const restored: string[] = [];
    let keptAsDuplicates = 0;
    for (const f of facts) {
      if (f.superseded_by === null) continue;
      const olderClaims = readingsOf(claims, alternates, f.id);
      const newerClaims = byId.has(f.superseded_by) ? readingsOf(claims, alternates, f.superseded_by) : [];
      if (newerClaims.some((newer) => olderClaims.some((older) => relateFacts(newer, older) === "supersede"))) continue;
      const olderSide = sides.get(f.id);
      const newerSide = sides.get(f.superseded_by);
      const newerMayReplace = analyses.get(f.superseded_by)?.mayReplace ?? false;
      if (olderSide && newerSide && newerMayReplace && changedFact(newerSide, [olderSide]) !== null) continue;
      const duplicate = `${f.end_user_id ?? ""}\n${f.normalized}`;
      if (live.has(duplicate)) {
        keptAsDuplicates += 1;
        continue;
      }
      live.add(duplicate);
      restored.push(f.id);
    }

    if (!options.dryRun && (rekeyed.length > 0 || restored.length > 0)) {
      const seq = await nextFactSeq(tx, workspaceId);
      await updateClaims(
        tx,
        rekeyed.map((f) => {
          const claim = claims.get(f.id);
          const alt = alternates.get(f.id);
          return {
            id: f.id,
            key: claim?.key ?? null,
            subject: claim?.subject ?? null,
            value: claim?.value ?? null,
            negated: claim?.negated ?? false,
            alt: alt ? { key: alt.key, subject: alt.subject, value: alt.value, negated: alt.negated } : null,
          };
        }),
      );
      await restoreFacts(tx, seq, restored);
    }
    return { facts: facts.length, rekeyed: rekeyed.length, restored: restored.length, keptAsDuplicates };
  });
}

type KeyedClaim = Claim & { key: string };

const keyed = (claim: Claim | null): KeyedClaim | null => (claim ? { ...claim, key: claimKey(claim) } : null);

/** A fact's readings of its claim, as capture relates them. */
function readingsOf(claims: ReadonlyMap<string, KeyedClaim | null>, alternates: ReadonlyMap<string, KeyedClaim | null>, id: string): KeyedClaim[] {
  return [claims.get(id) ?? null, alternates.get(id) ?? null].filter((c): c is KeyedClaim => c !== null);
}

async function loadFacts(tx: Queryable, workspaceId: string): Promise<StoredFact[]> {
  return tx.sql<StoredFact>`
    SELECT f.id, f.text, f.normalized, f.end_user_id, u.name AS end_user_name, f.superseded_by, f.claim_key, f.claim_subject,
           f.claim_value, f.claim_negated, f.alt_claim_key, f.alt_claim_value, f.alt_claim_negated
      FROM facts f
      LEFT JOIN end_users u ON u.workspace_id = f.workspace_id AND u.id = f.end_user_id
     WHERE f.workspace_id = ${workspaceId}
     ORDER BY f.id`;
}

/** Claim columns are not searched, so rewriting them needs no change sequence of their own. */
interface ClaimColumns {
  id: string;
  key: string | null;
  subject: string | null;
  value: string | null;
  negated: boolean;
  alt: StoredClaim | null;
}

async function updateClaims(tx: Queryable, rows: readonly ClaimColumns[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.sql`
    UPDATE facts f SET claim_key = r.claim_key, claim_subject = r.claim_subject, claim_value = r.claim_value, claim_negated = r.claim_negated,
                       alt_claim_key = r.alt_claim_key, alt_claim_subject = r.alt_claim_subject, alt_claim_value = r.alt_claim_value,
                       alt_claim_negated = r.alt_claim_negated
      FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.subject)}::text[],
                  ${rows.map((r) => r.value)}::text[], ${rows.map((r) => String(r.negated))}::text[]::boolean[],
                  ${rows.map((r) => r.alt?.key ?? null)}::text[], ${rows.map((r) => r.alt?.subject ?? null)}::text[],
                  ${rows.map((r) => r.alt?.value ?? null)}::text[], ${rows.map((r) => String(r.alt?.negated ?? false))}::text[]::boolean[])
           AS r(id, claim_key, claim_subject, claim_value, claim_negated, alt_claim_key, alt_claim_subject, alt_claim_value, alt_claim_negated)
     WHERE f.id = r.id`;
}

/** Live again, stamped so every instance's index adds them on its next read. */
async function restoreFacts(tx: Queryable, seq: number, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.sql`UPDATE facts SET superseded_by = NULL, changed_seq = ${seq} WHERE id = ANY(${[...ids]}::text[])`;
}
