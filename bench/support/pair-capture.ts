/**
 * A labelled pair set taught into a workspace and read back (bench/model-capture.ts): each
 * replacement found (its older fact hidden by its own newer one, by the rules or by the model),
 * or the reason it was not, the true facts hidden, the gates' vetoes, and "current first" for the
 * pairs with a question, as bench/current-first.ts counts it. Facts are told apart by end user
 * and text: a pair without an end user gets one of its own, so two pairs may share a text.
 */
import type { LabelledPair } from "../../test/capture/supersession/pairs";
import { call } from "../../test/helpers/app";
import { pairKey, type KeyRing, type Rig } from "./capture-rig";

export type Pair = LabelledPair & { end_user: { id: string } };
const scoped = (endUser: string | null, text: string): string => `${endUser ?? ""}\n${text}`;

/** Teaches one side of every pair into each workspace, in calls of 20 grouped by end user. */
export async function teachSide(rig: Rig, rings: KeyRing[], pairs: readonly Pair[], side: "older" | "newer", observed: Date): Promise<void> {
  const groups = new Map<string, Pair[]>();
  for (const pair of pairs) groups.set(pair.end_user.id, [...(groups.get(pair.end_user.id) ?? []), pair]);
  for (const members of groups.values()) {
    for (let at = 0; at < members.length; at += 20) {
      const slice = members.slice(at, at + 20);
      for (const ring of rings) {
        const facts = slice.map((p) => ({ text: p[side], observed_at: observed.toISOString() }));
        const res = await call(rig.app, "POST", "/v1/memory/facts", { key: await ring.next(), body: { facts, end_user: slice[0]!.end_user } });
        if (res.status !== 202) throw new Error(`teach failed: ${res.status} ${res.text}`);
      }
    }
  }
}

export interface Reading {
  replacements: number;
  found: number;
  byModel: number;
  /** "both" olders hidden by their own newer, and newer facts not live. */
  trueHidden: number;
  wrongByModel: number;
  hiddenBoth: number;
  vetoed: number;
  questions: number;
  currentFirst: number;
  reasons: Map<string, string[]>;
  vetoes: Map<string, number>;
}

export async function readWorkspace(
  rig: Rig,
  ring: KeyRing,
  pairs: readonly Pair[],
  shown: ReadonlySet<string>,
  judged: ReadonlySet<string>,
): Promise<Reading> {
  const rows = await rig.db.sql<{ id: string; text: string; end_user_id: string | null; superseded_by: string | null; sensitive: boolean }>`
    SELECT f.id, f.text, f.end_user_id, f.superseded_by, f.sensitive FROM facts f JOIN workspaces w ON w.id = f.workspace_id WHERE w.slug = ${ring.workspace} ORDER BY f.id`;
  const byKey = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!byKey.has(scoped(r.end_user_id, r.text))) byKey.set(scoped(r.end_user_id, r.text), r);
  const decisions = await rig.db.sql<{ label: string; fact_id: string | null; target_id: string | null; vetoed_by: string | null }>`
    SELECT d.label, d.fact_id, d.target_id, d.vetoed_by FROM capture_decisions d JOIN workspaces w ON w.id = d.workspace_id WHERE w.slug = ${ring.workspace}`;
  const decided = new Map(decisions.map((d) => [`${d.fact_id} ${d.target_id}`, d]));
  const r: Reading = {
    ...{ replacements: 0, found: 0, byModel: 0, trueHidden: 0, wrongByModel: 0, hiddenBoth: 0, vetoed: 0, questions: 0, currentFirst: 0 },
    reasons: new Map(),
    vetoes: new Map(),
  };
  for (const d of decisions) if (d.vetoed_by !== null) r.vetoes.set(`${d.label}: ${d.vetoed_by}`, (r.vetoes.get(`${d.label}: ${d.vetoed_by}`) ?? 0) + 1);
  const miss = (reason: string, pair: Pair) =>
    r.reasons.set(reason, [...(r.reasons.get(reason) ?? []), `${JSON.stringify(pair.older)} -> ${JSON.stringify(pair.newer)}`]);
  for (const pair of pairs) {
    const older = byKey.get(scoped(pair.end_user.id, pair.older));
    const newer = byKey.get(scoped(pair.end_user.id, pair.newer));
    const own = older !== undefined && newer !== undefined && older.superseded_by === newer.id;
    const decision = older && newer ? decided.get(`${newer.id} ${older.id}`) : undefined;
    const byModel = own && decision?.label === "replaces" && decision.vetoed_by === null;
    if (newer?.superseded_by) r.trueHidden += 1;
    if (pair.label === "both") {
      if (own) {
        r.hiddenBoth += 1;
        r.trueHidden += 1;
        if (byModel) r.wrongByModel += 1;
      }
      continue;
    }
    r.replacements += 1;
    if (own) {
      r.found += 1;
      if (byModel) r.byModel += 1;
    } else if (newer === undefined) miss("newer skipped at teach (a duplicate)", pair);
    else if (older === undefined) miss("older skipped at teach (a duplicate)", pair);
    else if (newer.superseded_by !== null) miss("newer hidden by another fact", pair);
    else if (older.superseded_by !== null) miss("older hidden by another fact", pair);
    else if (decision?.vetoed_by) {
      r.vetoed += 1;
      miss(`vetoed: ${decision.vetoed_by}`, pair);
    } else if (decision) miss(`decided ${decision.label}`, pair);
    else if (shown.has(pairKey(pair.newer, pair.older))) miss("shown, no decision", pair);
    else if (newer.sensitive) miss("newer sensitive: never sent to the model", pair);
    else if (older.sensitive) miss("older sensitive: never a candidate", pair);
    else if (judged.has(pair.newer)) miss("older not among the newer's candidates", pair);
    else miss("search found no candidate for the newer", pair);
    if (pair.question === undefined) continue;
    r.questions += 1;
    const found = await call(rig.app, "POST", "/v1/memory/search", {
      key: await ring.next(),
      body: { query: pair.question, limit: 5, end_user: pair.end_user },
    });
    if (found.status !== 200) throw new Error(`search failed: ${found.status} ${found.text}`);
    const texts: string[] = found.json.data.facts.map((f: { fact_text: string }) => f.fact_text);
    const [n, o] = [texts.indexOf(pair.newer), texts.indexOf(pair.older)];
    if (n >= 0 && (o < 0 || o > n)) r.currentFirst += 1;
  }
  return r;
}
