import type { Db, Queryable } from "../db/types";
import { nextFactSeq } from "../memory/changes";
import { analyzeFact } from "./analyze";
import { claimKey } from "./claim-key";
import { linkOf } from "./links";
import { prepareClaim } from "./relation";
import { lockWorkspaceFacts, teamMemberNames } from "./store";
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
}

/**
 * Re-evaluates a workspace's facts under the current rules: every fact gets its claim again (the
 * attribute lexicon's reading), and a superseded fact whose replacement would not replace it now
 * (capture/links.ts) is made live again, in one transaction under the capture lock, stamped with
 * one change sequence so every instance's index picks the restored facts up. It restores and
 * never supersedes more: a contradiction the old rules missed stays live until a new fact
 * replaces it. Run it after an upgrade that narrows what replaces (see docs/operations.md). Holds
 * the workspace's facts in memory (a one-off operator command, not a request path).
 */
export async function reclaimFacts(db: Db, workspaceId: string, options: { dryRun?: boolean } = {}): Promise<ReclaimReport> {
  const team = await teamMemberNames(db, workspaceId);
  return db.transaction(async (tx) => {
    await lockWorkspaceFacts(tx, workspaceId);
    const facts = await loadFacts(tx, workspaceId);
    const claims = new Map(
      facts.map((f) => {
        const endUser = f.end_user_id === null ? undefined : { id: f.end_user_id, ...(f.end_user_name ? { name: f.end_user_name } : {}) };
        return [f.id, keyed(analyzeFact({ text: f.text, teamMembers: team, ...(endUser ? { endUser } : {}) }).claim)] as const;
      }),
    );
    const byId = new Map(facts.map((f) => [f.id, f]));
    const rekeyed = facts.filter((f) => {
      const claim = claims.get(f.id) ?? null;
      // A replacing fact continues the claim it replaced (see continuedClaim): its stored key stays.
      if (f.claim_subject === claim?.subject && f.claim_value === claim.value && f.claim_key !== null) return false;
      return (claim?.key ?? null) !== f.claim_key || (claim?.value ?? null) !== f.claim_value || (claim?.negated ?? false) !== f.claim_negated;
    });

    const live = new Set(facts.filter((f) => f.superseded_by === null).map((f) => `${f.end_user_id ?? ""}\n${f.normalized}`));
    const restored: string[] = [];
    let keptAsDuplicates = 0;
    for (const f of facts) {
      if (f.superseded_by === null) continue;
      const older = claims.get(f.id) ?? null;
      const newer = byId.has(f.superseded_by) ? (claims.get(f.superseded_by) ?? null) : null;
      const link = newer === null ? null : linkOf(prepareClaim(newer), { text: f.text, first: older === null ? null : prepareClaim(older) });
      if (link?.kind === "replaces") continue;
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
          return { id: f.id, key: claim?.key ?? null, subject: claim?.subject ?? null, value: claim?.value ?? null, negated: claim?.negated ?? false };
        }),
      );
      await restoreFacts(tx, seq, restored);
    }
    return { facts: facts.length, rekeyed: rekeyed.length, restored: restored.length, keptAsDuplicates };
  });
}

type KeyedClaim = Claim & { key: string };

const keyed = (claim: Claim | null): KeyedClaim | null => (claim ? { ...claim, key: claimKey(claim) } : null);

async function loadFacts(tx: Queryable, workspaceId: string): Promise<StoredFact[]> {
  return tx.sql<StoredFact>`
    SELECT f.id, f.text, f.normalized, f.end_user_id, u.name AS end_user_name, f.superseded_by, f.claim_key, f.claim_subject,
           f.claim_value, f.claim_negated
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
}

async function updateClaims(tx: Queryable, rows: readonly ClaimColumns[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.sql`
    UPDATE facts f SET claim_key = r.claim_key, claim_subject = r.claim_subject, claim_value = r.claim_value, claim_negated = r.claim_negated
      FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.subject)}::text[],
                  ${rows.map((r) => r.value)}::text[], ${rows.map((r) => String(r.negated))}::text[]::boolean[])
           AS r(id, claim_key, claim_subject, claim_value, claim_negated)
     WHERE f.id = r.id`;
}

/** Live again, stamped so every instance's index picks them up on its next read. */
async function restoreFacts(tx: Queryable, seq: number, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.sql`UPDATE facts SET superseded_by = NULL, changed_seq = ${seq} WHERE id = ANY(${[...ids]}::text[])`;
}
