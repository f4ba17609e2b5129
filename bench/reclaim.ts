/**
 * What supersession does on the two chat benchmarks, and what `facts reclaim` gives back (issue
 * 36): every LoCoMo turn taught as a fact (one workspace per conversation) and every LongMemEval-S
 * dev turn (one workspace per question's haystack, a turn over 4,000 characters as consecutive
 * chunks), through `teachFacts` 20 texts a call, as bench/retrieval.ts teaches them; then, per
 * corpus, the facts stored and superseded, and the targets: LoCoMo evidence turns (a dia_id named
 * as evidence by any question, all categories) and LongMemEval has_answer turns that search can
 * no longer return (no live fact with their text or its duplicate key; a chunked turn counts when
 * any chunk is gone). Up to `--examples N` (default 5) superseded targets are printed as
 * older -> newer pairs.
 *
 * `--reclaim` teaches nothing: it runs `reclaimFacts` (what `memoryd facts reclaim` runs) over
 * every workspace already in the database, with this tree's rules, and prints per corpus the
 * facts restored, kept as duplicates and re-keyed, and the targets still superseded. So facts
 * taught by an older tree (run this file from a worktree of that commit) can be reclaimed by a
 * newer one. `--drop` drops the database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/memoryd_bench_reclaim \
 *     bun bench/reclaim.ts [--reclaim | --drop] [--data locomo|longmemeval|all] [--questions N]
 *                          [--examples N] [--dump FILE]
 *
 * Teaching drops and recreates the database DATABASE_URL names (its name must start with
 * memoryd_bench_), through the server's `postgres` database, and migrates it. `--questions N`
 * teaches only the first N LongMemEval questions. `--dump FILE` writes every superseded target
 * (workspace, turn, older and newer text) as JSON. LOCOMO_PATH and LONGMEMEVAL_PATH override the
 * data files, as in bench/retrieval.ts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { authenticate } from "../src/auth/authenticate";
import { createKey } from "../src/auth/keys";
import { createWorkspace } from "../src/auth/workspaces";
import { normalizeForDuplicates } from "../src/capture/analyze";
import { reclaimFacts } from "../src/capture/reclaim";
import { teachFacts } from "../src/capture/teach";
import { migrate } from "../src/db/migrate";
import { openPostgres } from "../src/db/postgres";
import type { Db } from "../src/db/types";
import { FactIndexes } from "../src/memory/index/registry";
import { ALL_SCOPES } from "../src/schema/auth";
import { callerOf, type ServiceContext } from "../src/service";
import { factText, loadLocomo } from "./lib/locomo-data";
import { loadLongMemEval } from "./lib/longmemeval-data";
import { argValue } from "./support/args";
import { provenance } from "./support/provenance";

const LOCOMO_PATH = process.env.LOCOMO_PATH ?? join(import.meta.dir, "data", "locomo10.json");
const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const TEACH_BATCH = 20;

/** A text taught as a fact, and the turn it comes from. */
interface Unit {
  turn: string;
  text: string;
}

/** One workspace: the texts taught into it, in order, and its target turns. */
interface Haystack {
  slug: string;
  units: Unit[];
  targets: Set<string>;
}

interface Corpus {
  name: string;
  /** What a target turn is, for the table. */
  target: string;
  haystacks: Haystack[];
}

const slugOf = (prefix: string, key: string): string => `${prefix}-${key.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`.slice(0, 63);

function locomoCorpus(): Corpus {
  return {
    name: "LoCoMo",
    target: "evidence turns",
    haystacks: loadLocomo(LOCOMO_PATH).map((c) => ({
      slug: slugOf("locomo", c.sampleId),
      units: c.turns.map((t) => ({ turn: t.diaId, text: factText(t) })),
      targets: new Set(c.questions.flatMap((q) => q.evidence)),
    })),
  };
}

function longMemEvalCorpus(questions: number): Corpus {
  return {
    name: "LongMemEval-S dev",
    target: "has_answer turns",
    haystacks: loadLongMemEval(LONGMEMEVAL_PATH)
      .slice(0, questions)
      .map((q) => ({
        slug: slugOf("lme", q.id),
        units: q.units.map((u) => ({ turn: u.turnId, text: u.text })),
        targets: new Set(q.evidenceTurns),
      })),
  };
}

interface FactRow {
  id: string;
  text: string;
  normalized: string;
  superseded_by: string | null;
  newer_text: string | null;
}

/** A target turn search can no longer return, and the fact that replaced (one of) its texts. */
interface SupersededTarget {
  slug: string;
  turn: string;
  older: string;
  newer: string;
}

/** What a workspace's facts say about its texts: stored, superseded, targets gone. */
interface Census {
  facts: number;
  superseded: number;
  /** Texts with no fact of their text or duplicate key (skipped as a restatement of a live fact). */
  unstoredTexts: number;
  targets: number;
  supersededTargets: SupersededTarget[];
  /** Target turns none of whose texts was stored (restatements skipped at teach). */
  unstoredTargets: number;
}

async function census(db: Db, workspaceId: string, h: Haystack | undefined): Promise<Census> {
  const rows = await db.sql<FactRow>`
    SELECT f.id, f.text, f.normalized, f.superseded_by, n.text AS newer_text
      FROM facts f LEFT JOIN facts n ON n.id = f.superseded_by
     WHERE f.workspace_id = ${workspaceId}
     ORDER BY f.id`;
  const live = new Set<string>();
  const gone = new Map<string, FactRow>();
  for (const r of rows) {
    if (r.superseded_by === null) {
      live.add(r.text);
      live.add(`\n${r.normalized}`);
    } else {
      if (!gone.has(r.text)) gone.set(r.text, r);
      if (!gone.has(`\n${r.normalized}`)) gone.set(`\n${r.normalized}`, r);
    }
  }
  const result: Census = {
    facts: rows.length,
    superseded: rows.filter((r) => r.superseded_by !== null).length,
    unstoredTexts: 0,
    targets: h?.targets.size ?? 0,
    supersededTargets: [],
    unstoredTargets: 0,
  };
  if (h === undefined) return result;
  /** Per target turn: the superseded fact of one of its texts, else whether any text was stored. */
  const turns = new Map<string, { replaced?: FactRow; stored: boolean }>();
  for (const u of h.units) {
    const key = `\n${normalizeForDuplicates(u.text)}`;
    const isLive = live.has(u.text) || live.has(key);
    const replaced = isLive ? undefined : (gone.get(u.text) ?? gone.get(key));
    if (!isLive && replaced === undefined) result.unstoredTexts += 1;
    if (!h.targets.has(u.turn)) continue;
    const turn = turns.get(u.turn) ?? { stored: false };
    turn.stored ||= isLive || replaced !== undefined;
    turn.replaced ??= replaced;
    turns.set(u.turn, turn);
  }
  for (const [turn, t] of turns) {
    if (t.replaced) result.supersededTargets.push({ slug: h.slug, turn, older: t.replaced.text, newer: t.replaced.newer_text ?? "(replacing fact gone)" });
    else if (!t.stored) result.unstoredTargets += 1;
  }
  return result;
}

const emptyCensus = (): Census => ({ facts: 0, superseded: 0, unstoredTexts: 0, targets: 0, supersededTargets: [], unstoredTargets: 0 });

function addCensus(into: Census, c: Census): void {
  into.facts += c.facts;
  into.superseded += c.superseded;
  into.unstoredTexts += c.unstoredTexts;
  into.targets += c.targets;
  into.supersededTargets.push(...c.supersededTargets);
  into.unstoredTargets += c.unstoredTargets;
}

const clip = (text: string, n = 200): string => JSON.stringify(text.length > n ? `${text.slice(0, n)}…` : text);

function printExamples(title: string, all: readonly SupersededTarget[], n: number): void {
  if (all.length === 0 || n === 0) return;
  // One example per workspace first, so a few workspaces do not fill the list.
  const picked: SupersededTarget[] = [];
  const seen = new Set<string>();
  for (const t of all) {
    if (picked.length < n && !seen.has(t.slug)) {
      picked.push(t);
      seen.add(t.slug);
    }
  }
  for (const t of all) if (picked.length < n && !picked.includes(t)) picked.push(t);
  console.log(`\n${title} (${picked.length} of ${all.length}, older -> newer):\n`);
  for (const t of picked) console.log(`- ${t.slug} ${t.turn}: ${clip(t.older)}\n  -> ${clip(t.newer)}`);
}

/** The admin URL (the server's `postgres` database) and the bench database's name. */
function databaseOf(): { url: string; admin: string; name: string } {
  const raw = process.env.DATABASE_URL;
  if (raw === undefined || raw === "") usage("DATABASE_URL is required (e.g. postgres://postgres@127.0.0.1:5432/memoryd_bench_reclaim)");
  const url = new URL(raw);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^memoryd_bench_[a-z0-9_]+$/.test(name)) usage(`the database name must match memoryd_bench_[a-z0-9_]+ (it is dropped and recreated), not "${name}"`);
  const admin = new URL(raw);
  admin.pathname = "/postgres";
  return { url: url.toString(), admin: admin.toString(), name };
}

async function adminRun(adminUrl: string, statements: string[]): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    for (const s of statements) await admin.unsafe(s);
  } finally {
    await admin.end();
  }
}

async function teach(db: Db, corpora: readonly Corpus[], examples: number): Promise<SupersededTarget[]> {
  const lines = [
    "| corpus | workspaces | texts taught | facts stored | texts not stored (restated) | facts superseded | targets | targets superseded | targets not stored | teach s |",
    "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
  ];
  const dump: SupersededTarget[] = [];
  const examplesOf: [string, SupersededTarget[]][] = [];
  for (const corpus of corpora) {
    const total = emptyCensus();
    let texts = 0;
    let teachMs = 0;
    for (const [n, h] of corpus.haystacks.entries()) {
      const workspace = await createWorkspace(db, h.slug, 0);
      const key = await createKey(db, "test", { workspace: workspace.slug, name: "reclaim bench", scopes: [...ALL_SCOPES], audience: "internal" });
      const auth = await authenticate(db, key.secret, "bench");
      const ctx: ServiceContext = { db, index: new FactIndexes(db, 64 * 1024 * 1024), caller: callerOf({ ...auth, factSeq: null }, "rest") };
      const t0 = performance.now();
      for (let i = 0; i < h.units.length; i += TEACH_BATCH) {
        await teachFacts(ctx, { facts: h.units.slice(i, i + TEACH_BATCH).map((u) => ({ text: u.text })) });
      }
      teachMs += performance.now() - t0;
      texts += h.units.length;
      addCensus(total, await census(db, workspace.id, h));
      if (process.stderr.isTTY) process.stderr.write(`\r${corpus.name}: ${n + 1}/${corpus.haystacks.length} workspaces`);
    }
    if (process.stderr.isTTY) process.stderr.write("\n");
    lines.push(
      `| ${corpus.name} | ${corpus.haystacks.length} | ${texts} | ${total.facts} | ${total.unstoredTexts} | ${total.superseded} | ${total.targets} ${corpus.target} | ` +
        `${total.supersededTargets.length} | ${total.unstoredTargets} | ${(teachMs / 1000).toFixed(1)} |`,
    );
    dump.push(...total.supersededTargets);
    examplesOf.push([`${corpus.name}: ${corpus.target} superseded`, total.supersededTargets]);
  }
  console.log(lines.join("\n"));
  for (const [title, all] of examplesOf) printExamples(title, all, examples);
  return dump;
}

async function reclaim(db: Db, corpora: readonly Corpus[], examples: number): Promise<SupersededTarget[]> {
  const haystacks = new Map<string, { corpus: string; h: Haystack }>();
  for (const c of corpora) for (const h of c.haystacks) haystacks.set(h.slug, { corpus: c.name, h });
  const workspaces = await db.sql<{ id: string; slug: string }>`SELECT id, slug FROM workspaces ORDER BY slug`;
  interface Row {
    workspaces: number;
    before: Census;
    after: Census;
    restored: number;
    keptAsDuplicates: number;
    rekeyed: number;
    ms: number;
  }
  const emptyRow = (): Row => ({ workspaces: 0, before: emptyCensus(), after: emptyCensus(), restored: 0, keptAsDuplicates: 0, rekeyed: 0, ms: 0 });
  // Corpora in their order, then any other workspaces.
  const rows = new Map<string, Row>(corpora.map((c) => [c.name, emptyRow()]));
  for (const [n, w] of workspaces.entries()) {
    const found = haystacks.get(w.slug);
    const name = found?.corpus ?? "other workspaces";
    const row = rows.get(name) ?? emptyRow();
    rows.set(name, row);
    row.workspaces += 1;
    addCensus(row.before, await census(db, w.id, found?.h));
    const t0 = performance.now();
    const report = await reclaimFacts(db, w.id);
    row.ms += performance.now() - t0;
    row.restored += report.restored;
    row.keptAsDuplicates += report.keptAsDuplicates;
    row.rekeyed += report.rekeyed;
    addCensus(row.after, await census(db, w.id, found?.h));
    if (process.stderr.isTTY) process.stderr.write(`\rreclaim: ${n + 1}/${workspaces.length} workspaces`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  const targetOf = new Map(corpora.map((c) => [c.name, c.target]));
  const lines = [
    "| corpus | workspaces | facts | superseded before | restored | keptAsDuplicates | rekeyed | superseded after | targets | targets superseded before | targets superseded after | reclaim s |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
  ];
  const dump: SupersededTarget[] = [];
  for (const [name, r] of rows) {
    lines.push(
      `| ${name} | ${r.workspaces} | ${r.after.facts} | ${r.before.superseded} | ${r.restored} | ${r.keptAsDuplicates} | ${r.rekeyed} | ${r.after.superseded} | ` +
        `${r.after.targets} ${targetOf.get(name) ?? "targets"} | ${r.before.supersededTargets.length} | ${r.after.supersededTargets.length} | ${(r.ms / 1000).toFixed(1)} |`,
    );
    dump.push(...r.after.supersededTargets);
  }
  console.log(lines.join("\n"));
  for (const [name, r] of rows)
    printExamples(`${name}: ${targetOf.get(name) ?? "targets"} still superseded after reclaim`, r.after.supersededTargets, examples);
  return dump;
}

function usage(message: string): never {
  console.error(
    `${message}\nusage: DATABASE_URL=postgres://…/memoryd_bench_reclaim bun bench/reclaim.ts [--reclaim | --drop] [--data locomo|longmemeval|all] [--questions N] [--examples N] [--dump FILE]`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const started = performance.now();
  const mode = process.argv.includes("--reclaim") ? "reclaim" : process.argv.includes("--drop") ? "drop" : "teach";
  if (process.argv.includes("--reclaim") && process.argv.includes("--drop")) usage("--reclaim and --drop exclude each other");
  const data = argValue("--data") ?? "all";
  if (!["locomo", "longmemeval", "all"].includes(data)) usage("--data is locomo, longmemeval or all");
  const questions = Number(argValue("--questions") ?? Number.POSITIVE_INFINITY);
  if (!(questions >= 1)) usage("--questions needs a number of at least 1");
  const examples = Number(argValue("--examples") ?? 5);
  if (!(examples >= 0)) usage("--examples needs a number of at least 0");
  const dumpPath = argValue("--dump");
  const database = databaseOf();
  if (mode === "drop") {
    await adminRun(database.admin, [`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`]);
    console.log(`dropped ${database.name}`);
    return;
  }
  const corpora = [
    ...(data === "all" || data === "locomo" ? [locomoCorpus()] : []),
    ...(data === "all" || data === "longmemeval" ? [longMemEvalCorpus(questions)] : []),
  ];
  if (mode === "teach") await adminRun(database.admin, [`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`, `CREATE DATABASE ${database.name}`]);
  const db = openPostgres({ url: database.url, maxConnections: 4 });
  try {
    if (mode === "teach") await migrate(db);
    const lme = corpora.find((c) => c.name.startsWith("LongMemEval"));
    console.log(`## Supersession on the chat benchmarks: ${mode === "teach" ? "teach" : "reclaim"} (issue 36)\n`);
    console.log(
      `${provenance().join("; ")}; database ${database.name}${lme && Number.isFinite(questions) ? `; LongMemEval: first ${lme.haystacks.length} questions` : ""}\n`,
    );
    const dump = mode === "teach" ? await teach(db, corpora, examples) : await reclaim(db, corpora, examples);
    if (dumpPath !== undefined) writeFileSync(dumpPath, JSON.stringify(dump, null, 1));
  } finally {
    await db.close();
  }
  console.log(`\nrun ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
