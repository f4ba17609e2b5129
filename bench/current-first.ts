/**
 * The current answer first, through the real service (REST over `app.handle()`, embedded PGlite or
 * BENCH_DATABASE_URL): each labelled pair set (test/capture/supersession/) is taught into one
 * workspace of its own, every older fact first, then every newer one a day later, so the other
 * pairs are the distractors (a pair without an end user gets one of its own, so first-person facts
 * of two pairs are two people's). Then, for each replacement that carries a question, a search for the
 * question counts as "current first" when the newer fact is in the first five and the older one
 * is not above it (hidden, or ranked below). Beside it, what capture hid: a replacement whose
 * older fact its newer fact replaced is a replacement found; a "both" pair whose newer fact
 * replaced the older is a true fact hidden; an older fact skipped as a repeat of another pair's, or
 * replaced by another pair's fact, is counted apart (the labels say nothing of those). The plain baseline of the same run is the same search with recency alone
 * deciding between the two (the newer first whenever both match), which bounds what ranking can do
 * without reading the facts.
 *
 *   bun bench/current-first.ts [set ...] [--misses]
 */
import { ALL_SCOPES } from "../src/schema/auth";
import { call, makeKey, testApp } from "../test/helpers/app";
import { halfOf, loadPairs, PAIR_SETS, type LabelledPair, type PairSet } from "../test/capture/supersession/pairs";
import { openBenchDatabase } from "./lib/database";

const args = process.argv.slice(2);
const showMisses = args.includes("--misses");
const named = args.filter((a) => !a.startsWith("--")) as PairSet[];
const sets = named.length > 0 ? named : PAIR_SETS;
const DAY = 86_400_000;

interface Reading {
  questions: number;
  currentFirst: number;
  staleAbove: number;
  newerMissing: number;
  newerAboveWhenBoth: number;
  replacements: number;
  found: number;
  both: number;
  hidden: number;
  /** Older facts skipped as another pair's duplicate or replaced by another pair's fact. */
  elsewhere: number;
  misses: string[];
}

const bench = await openBenchDatabase();
const app = testApp(bench.db);
console.log(`database: ${bench.label}`);
console.log(
  "| set | half | questions | current first | stale above | newer not in 5 | baseline (newer first when both in 5) | replacements found | true facts hidden | replaces precision | replaces recall | older gone by another pair |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const set of sets) {
  const pairs = loadPairs(set);
  for (const half of ["tune", "check"] as const) {
    const r = await readSet(halfOf(pairs, half));
    const pct = (n: number, d: number): string => (d === 0 ? "-" : `${n}/${d} (${((100 * n) / d).toFixed(1)} %)`);
    const made = r.found + r.hidden;
    console.log(
      `| ${set} | ${half} | ${r.questions} | ${pct(r.currentFirst, r.questions)} | ${r.staleAbove} | ${r.newerMissing} | ${pct(r.newerAboveWhenBoth, r.questions)} | ${r.found}/${r.replacements} | ${r.hidden}/${r.both} | ${made === 0 ? "1.000" : (r.found / made).toFixed(3)} | ${(r.found / Math.max(1, r.replacements)).toFixed(3)} | ${r.elsewhere} |`,
    );
    if (showMisses && half === "tune") for (const m of r.misses) console.log(`  ${m}`);
  }
}
await bench.close();

async function readSet(given: readonly LabelledPair[]): Promise<Reading> {
  // A first-person fact is about the end user the call names: a pair without one gets its own, so
  // two pairs' "I live in …" are two people, as they were written.
  const pairs = given.map((pair, i) => (pair.end_user ? pair : { ...pair, end_user: { id: `pair-${i}` } }));
  const key = await makeKey(bench.db, { scopes: [...ALL_SCOPES] });
  const keys = new KeyRing(key.workspace, key.secret);
  const now = Date.now();
  await teachAll(keys, pairs, "older", new Date(now - 2 * DAY));
  await teachAll(keys, pairs, "newer", new Date(now - DAY));
  const stored = await replacedBy(key.workspace);
  const r: Reading = {
    questions: 0,
    currentFirst: 0,
    staleAbove: 0,
    newerMissing: 0,
    newerAboveWhenBoth: 0,
    replacements: 0,
    found: 0,
    both: 0,
    hidden: 0,
    elsewhere: 0,
    misses: [],
  };
  for (const pair of pairs) {
    // Only what the pair's own newer fact did is judged by its label; what another pair's fact did is counted apart.
    const by = stored.get(pair.older);
    const byItsNewer = by === pair.newer;
    if (by === undefined || (by !== null && !byItsNewer)) {
      r.elsewhere += 1;
      r.misses.push(`OTHER  ${JSON.stringify(pair.older)} ${by === undefined ? "skipped as a duplicate" : `replaced by ${JSON.stringify(by)}`}`);
    }
    if (pair.label === "supersede") {
      r.replacements += 1;
      if (byItsNewer) r.found += 1;
    } else {
      r.both += 1;
      if (byItsNewer) {
        r.hidden += 1;
        r.misses.push(`HIDDEN ${JSON.stringify(pair.older)} by ${JSON.stringify(pair.newer)}`);
      }
    }
    if (pair.label !== "supersede" || pair.question === undefined) continue;
    r.questions += 1;
    const found = await call(app, "POST", "/v1/memory/search", {
      key: await keys.next(),
      body: { query: pair.question, limit: 5, ...(pair.end_user ? { end_user: pair.end_user } : {}) },
    });
    if (found.status !== 200) throw new Error(`search failed: ${found.status} ${found.text}`);
    const texts: string[] = (found.json.data.facts as { fact_text: string }[]).map((f) => f.fact_text);
    const newerAt = texts.indexOf(pair.newer);
    const olderAt = texts.indexOf(pair.older);
    if (newerAt < 0) r.newerMissing += 1;
    else if (olderAt >= 0 && olderAt < newerAt) r.staleAbove += 1;
    else r.currentFirst += 1;
    if (newerAt >= 0) r.newerAboveWhenBoth += 1;
    if (newerAt < 0 || (olderAt >= 0 && olderAt < newerAt)) {
      r.misses.push(
        `${newerAt < 0 ? "MISSING" : "STALE  "} ${JSON.stringify(pair.question)} -> ${JSON.stringify(pair.newer)} | got ${JSON.stringify(texts.slice(0, 3))}`,
      );
    }
  }
  return r;
}

/** Teaches one side of every pair in calls of 20, grouped by end user (the people family's pairs each have one). */
async function teachAll(keys: KeyRing, pairs: readonly LabelledPair[], side: "older" | "newer", observed: Date): Promise<void> {
  const groups = new Map<string, number[]>();
  for (const [i, pair] of pairs.entries()) {
    const group = pair.end_user?.id ?? "";
    groups.set(group, [...(groups.get(group) ?? []), i]);
  }
  for (const members of groups.values()) {
    for (let at = 0; at < members.length; at += 20) {
      const slice = members.slice(at, at + 20);
      const endUser = pairs[slice[0]!]!.end_user;
      const taught = await call(app, "POST", "/v1/memory/facts", {
        key: await keys.next(),
        body: { facts: slice.map((i) => ({ text: pairs[i]![side], observed_at: observed.toISOString() })), ...(endUser ? { end_user: endUser } : {}) },
      });
      if (taught.status !== 202) throw new Error(`teach failed: ${taught.status} ${taught.text}`);
    }
  }
}

/** Each stored fact's text and the text of the fact that replaced it (null: live). */
async function replacedBy(workspace: string): Promise<Map<string, string | null>> {
  const rows = await bench.db.sql<{ text: string; newer: string | null }>`
    SELECT f.text, n.text AS newer FROM facts f JOIN workspaces w ON w.id = f.workspace_id
      LEFT JOIN facts n ON n.id = f.superseded_by
     WHERE w.slug = ${workspace}`;
  return new Map(rows.map((r) => [r.text, r.newer]));
}

/** Keys of one workspace, a new one every 100 calls: each key may make 120 requests a minute. */
class KeyRing {
  private used = 0;
  constructor(
    private readonly workspace: string,
    private secret: string,
  ) {}

  async next(): Promise<string> {
    if (++this.used % 100 === 0) this.secret = (await makeKey(bench.db, { workspace: this.workspace, scopes: [...ALL_SCOPES] })).secret;
    return this.secret;
  }
}
