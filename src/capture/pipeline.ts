import { sortableId } from "../ids";
import type { Queryable } from "../db/types";
import type { EndUser, Origin, TeachResult } from "../schema/memory";
import { analyzeFact } from "./analyze";
import {
  addToTermStats,
  insertFacts,
  liveClaims,
  lockWorkspaceFacts,
  markSuperseded,
  teamMemberNames,
  upsertEndUser,
  type NewFactRow,
} from "./store";

/** How much a fact is trusted by default, by where it came from. */
export const DEFAULT_CONFIDENCE: Record<Origin, number> = {
  system: 1,
  user_stated: 0.9,
  ingested: 0.8,
  agent_action: 0.75,
  agent_inferred: 0.6,
};

export interface CaptureItem {
  text: string;
  origin: Origin;
  endUser?: EndUser;
  /** Import keeps the original time and pin; everything else records now. */
  recordedAt?: Date;
  pinned?: boolean;
}

export interface CaptureResult extends TeachResult {
  /** Ids of the facts stored, in input order (skipped items have none). */
  factIds: string[];
}

/**
 * The capture pipeline, the only writer of facts: normalise, drop exact duplicates, attribute the
 * subject, classify, flag sensitive content, and supersede older values of the same claim. Runs in
 * the caller's transaction (under the workspace's capture lock), so a taught fact is committed,
 * and searchable, before the call returns.
 */
export async function captureFacts(tx: Queryable, workspaceId: string, items: readonly CaptureItem[]): Promise<CaptureResult> {
  await lockWorkspaceFacts(tx, workspaceId);
  const team = await teamMemberNames(tx, workspaceId);
  const endUsers = new Map<string, EndUser>();
  for (const item of items) if (item.endUser) endUsers.set(item.endUser.id, item.endUser);
  for (const user of endUsers.values()) await upsertEndUser(tx, workspaceId, user.id, user.name);

  const analysed = items.map((item) => ({
    item,
    endUserId: item.endUser?.id ?? null,
    analysis: analyzeFact({ text: item.text, endUser: item.endUser, teamMembers: team }),
  }));
  // Duplicates within this call; duplicates of stored facts are refused by the unique index.
  const known = new Set<string>();
  const claims = await liveClaims(
    tx,
    workspaceId,
    [...new Set(analysed.flatMap((a) => (a.analysis.claim ? [a.analysis.claim.key] : [])))],
  );
  const currentClaim = new Map<string, { id: string; value: string }>();
  for (const c of claims) currentClaim.set(c.claim_key, { id: c.id, value: c.claim_value });

  const rows: NewFactRow[] = [];
  const replaces = new Map<string, string>();
  const factIds: string[] = [];
  let skipped = 0;
  const now = new Date();
  for (const { item, endUserId, analysis } of analysed) {
    const duplicateKey = `${endUserId ?? ""}\n${analysis.normalized}`;
    const claim = analysis.claim;
    const current = claim ? currentClaim.get(claim.key) : undefined;
    // The same claim with the same value, however phrased, adds nothing either.
    if (known.has(duplicateKey) || (claim && current?.value === claim.value)) {
      skipped += 1;
      continue;
    }
    known.add(duplicateKey);
    const id = sortableId("fact");
    rows.push({
      id,
      text: item.text,
      normalized: analysis.normalized,
      kind: analysis.kind,
      origin: item.origin,
      subject: analysis.subject,
      subjectType: analysis.subjectType,
      endUserId: analysis.subjectType === "end_user" ? endUserId : null,
      confidence: DEFAULT_CONFIDENCE[item.origin],
      recordedAt: item.recordedAt ?? now,
      sensitive: analysis.sensitive,
      pinned: item.pinned ?? false,
      claimKey: claim?.key ?? null,
      claimValue: claim?.value ?? null,
    });
    if (claim) {
      if (current) replaces.set(id, current.id);
      currentClaim.set(claim.key, { id, value: claim.value });
    }
    factIds.push(id);
  }

  const inserted = await insertFacts(tx, workspaceId, rows);
  const pairs = [...replaces].filter(([newId]) => inserted.has(newId)).map(([newId, oldId]) => ({ oldId, newId }));
  // A superseded fact from earlier in this same batch is replaced too: only the last value stays live.
  await markSuperseded(tx, pairs);
  await addToTermStats(tx, workspaceId, inserted);

  const superseded = pairs.length;
  const created = inserted.size - superseded;
  return {
    accepted_fact_count: items.length,
    created,
    superseded,
    skipped: skipped + (rows.length - inserted.size),
    factIds: factIds.filter((id) => inserted.has(id)),
  };
}
