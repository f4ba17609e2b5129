/**
 * Seeds a synthetic workspace for the performance benches and creates API keys for it.
 *
 *   bun bench/seed.ts --database-url URL --workspace bench100k --facts 100000 --keys 64
 *       [--seed STR] [--batch 5000] [--credits N] [--keys-file PATH] [--replace] [--no-vacuum]
 *
 * The database is created if it does not exist (through the server's `postgres` database) and
 * migrated with the product's own migrations. Facts come from bench/support/synth.ts
 * (deterministic from --seed, default the workspace slug) and are written through the SAME SQL
 * the capture pipeline runs: `lockWorkspaceFacts`, `nextFactSeq`, `insertFacts` and
 * `markSuperseded` (src/capture/store.ts, src/memory/changes.ts), one transaction per batch (default 5,000 rows).
 * What it bypasses is only the per-fact analysis (`analyzeFact`: subject, kind, sensitive flag and
 * claim detection): the generator supplies those fields from the template that produced the text,
 * and it skips exact duplicates and supersedes older values of a claim the way the pipeline would.
 * End users and team members go through `upsertEndUser` and `addTeamMember`, keys through
 * `createKey` (internal, every scope); the key secrets are written to bench/.keys-<slug>.json
 * (gitignored), since they cannot be read back from the database.
 *
 * After loading it runs VACUUM (ANALYZE) on the fact tables, as autovacuum eventually would, so
 * the first bench run sees steady-state statistics.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { createKey } from "../src/auth/keys";
import { addTeamMember, createWorkspace } from "../src/auth/workspaces";
import { normalizeForDuplicates } from "../src/capture/analyze";
import { DEFAULT_CONFIDENCE } from "../src/capture/pipeline";
import { insertFacts, lockWorkspaceFacts, markSuperseded, upsertEndUser, type NewFactRow } from "../src/capture/store";
import { nextFactSeq } from "../src/memory/changes";
import { migrate } from "../src/db/migrate";
import { MIGRATIONS } from "../src/db/migrations/index";
import { openPostgres } from "../src/db/postgres";
import type { Db } from "../src/db/types";
import { sortableId } from "../src/ids";
import { ALL_SCOPES } from "../src/schema/auth";
import { factStream, makeCast, type SynthFact } from "./support/synth";
import { argValue } from "./support/args";

export interface KeysFile {
  workspace: string;
  workspaceId: string;
  database: string;
  seed: string;
  /** Facts the seed wrote (live + superseded), to tell later whether the workspace changed since. */
  seededFacts: number;
  liveFacts: number;
  /** Fingerprint of the migrations the database was created with (they may still be edited in place). */
  schema: string;
  createdAt: string;
  keys: string[];
}

export interface SeedOptions {
  databaseUrl: string;
  workspace: string;
  facts: number;
  keys: number;
  seed?: string;
  batch?: number;
  credits?: number;
  keysFile?: string;
  /** Delete an existing workspace of that slug first (its facts cascade). */
  replace?: boolean;
  vacuum?: boolean;
  log?: (line: string) => void;
  /** Seed through this database instead of opening `databaseUrl` (e.g. embedded PGlite); not closed. */
  db?: Db;
}

export interface SeedReport {
  workspaceId: string;
  inserted: number;
  superseded: number;
  duplicatesSkipped: number;
  loadSeconds: number;
  factsPerSecond: number;
  vacuumSeconds: number;
  keysFile: string;
}

/** A fingerprint of the product's migrations: a database seeded under other ones is stale. */
export const schemaFingerprint = (): string =>
  createHash("sha256")
    .update(MIGRATIONS.map((m) => `${m.version}:${m.sql}`).join("\n"))
    .digest("hex")
    .slice(0, 16);

export const keysFilePath = (slug: string): string => join(import.meta.dir, `.keys-${slug}.json`);

/** Creates the database named in `url` when missing (connecting to `postgres` on the same server). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to create database with unusual name "${name}"`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (rows.length === 0) await sql.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await sql.end();
  }
}

/** Drops a database (bench databases only: the name must start with memoryd_perf_). */
export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name.startsWith("memoryd_perf_")) throw new Error(`refusing to drop "${name}"`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await sql.end();
  }
}

/** Creates `count` more internal all-scope keys and appends their secrets to the keys file. */
export async function addKeys(db: Db, file: KeysFile, count: number, path = keysFilePath(file.workspace)): Promise<KeysFile> {
  const secrets: string[] = [];
  const start = file.keys.length;
  for (let i = 0; i < count; i += 10) {
    const chunk = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, j) =>
        createKey(db, "test", { workspace: file.workspace, name: `bench-${start + i + j}`, scopes: [...ALL_SCOPES], audience: "internal" }),
      ),
    );
    secrets.push(...chunk.map((k) => k.secret));
  }
  const next = { ...file, keys: [...file.keys, ...secrets] };
  writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return next;
}

export function readKeysFile(slug: string, path = keysFilePath(slug)): KeysFile | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as KeysFile;
}

/** Facts (live + superseded) of a workspace, or null when it does not exist. */
export async function workspaceFactCount(db: Db, slug: string): Promise<{ id: string; total: number; live: number } | null> {
  const ws = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${slug}`;
  const id = ws[0]?.id;
  if (id === undefined) return null;
  const rows = await db.sql<{ total: number; live: number }>`
    SELECT count(*)::int AS total, count(*) FILTER (WHERE superseded_by IS NULL)::int AS live FROM facts WHERE workspace_id = ${id}`;
  return { id, total: rows[0]?.total ?? 0, live: rows[0]?.live ?? 0 };
}

/**
 * Deletes a workspace and everything in it. Its facts go first with foreign-key triggers off
 * (`session_replication_role = replica`, superuser only), so no per-row ON DELETE SET NULL lookup
 * on `facts.superseded_by` runs (before that column was indexed each one scanned the whole facts
 * table: about 0.25 s per deleted fact at 1M facts). Skipping the check is safe here because
 * supersession never crosses workspaces and the whole workspace goes.
 */
export async function deleteWorkspace(db: Db, slug: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec("SET LOCAL session_replication_role = replica");
    await tx.sql`DELETE FROM facts WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = ${slug})`;
  });
  await db.sql`DELETE FROM workspaces WHERE slug = ${slug}`;
}

export async function seedWorkspace(options: SeedOptions): Promise<SeedReport> {
  const log = options.log ?? ((line: string) => console.error(line));
  const batchSize = options.batch ?? 5000;
  const seed = options.seed ?? options.workspace;
  const keysFile = options.keysFile ?? keysFilePath(options.workspace);
  if (!options.db) await ensureDatabase(options.databaseUrl);
  const db = options.db ?? openPostgres({ url: options.databaseUrl, maxConnections: 10 });
  try {
    await migrate(db);
    if (options.replace) await deleteWorkspace(db, options.workspace);
    const workspace = await createWorkspace(db, options.workspace, options.credits ?? 1_000_000_000);
    const cast = makeCast(seed);
    for (const name of cast.teamMembers) await addTeamMember(db, options.workspace, name);
    for (const user of cast.endUsers) await upsertEndUser(db, workspace.id, user.id, user.name);

    const stream = factStream(seed, cast);
    const seen = new Set<string>();
    const claims = new Map<string, { id: string; value: string }>();
    const spanMs = 730 * 86_400_000;
    const startMs = Date.now() - spanMs;
    let inserted = 0;
    let superseded = 0;
    let duplicates = 0;
    let produced = 0;
    const t0 = performance.now();
    let lastLog = t0;
    while (produced < options.facts) {
      const rows: NewFactRow[] = [];
      const pairs: { oldId: string; newId: string }[] = [];
      while (rows.length < batchSize && produced + rows.length < options.facts) {
        const fact = stream.next().value as SynthFact;
        const normalized = normalizeForDuplicates(fact.text);
        const dupKey = `${fact.endUserId ?? ""}\n${normalized}`;
        const current = fact.claim ? claims.get(fact.claim.key) : undefined;
        if (seen.has(dupKey) || (fact.claim && current?.value === fact.claim.value)) {
          duplicates += 1;
          continue;
        }
        seen.add(dupKey);
        const index = produced + rows.length;
        // Spread over the last two years in order, so ids and recorded_at both grow with the index.
        const at = startMs + Math.floor((index / options.facts) * spanMs);
        const id = sortableId("fact", at);
        rows.push({
          id,
          text: fact.text,
          normalized,
          kind: fact.kind,
          origin: fact.origin,
          subject: fact.subject,
          subjectType: fact.subjectType,
          endUserId: fact.endUserId,
          agent: null,
          confidence: DEFAULT_CONFIDENCE[fact.origin],
          recordedAt: new Date(at),
          expiresAt: null,
          sensitive: fact.sensitive,
          // A few pinned facts, as a workspace would have for its packet core.
          pinned: index % 20_000 === 7,
          claimKey: fact.claim?.key ?? null,
          claimSubject: fact.claim?.subject ?? null,
          claimValue: fact.claim?.value ?? null,
          claimNegated: false,
        });
        if (fact.claim) {
          if (current) pairs.push({ oldId: current.id, newId: id });
          claims.set(fact.claim.key, { id, value: fact.claim.value });
        }
      }
      produced += rows.length;
      // The pipeline's storage half, as captureFacts runs it after analysis.
      const stored = await db.transaction(async (tx) => {
        await lockWorkspaceFacts(tx, workspace.id);
        const seq = await nextFactSeq(tx, workspace.id);
        const ids = await insertFacts(tx, workspace.id, seq, rows);
        const live = pairs.filter((p) => ids.has(p.newId));
        await markSuperseded(tx, seq, live);
        return { ids: ids.size, superseded: live.length };
      });
      inserted += stored.ids;
      superseded += stored.superseded;
      const now = performance.now();
      if (now - lastLog > 5000 || produced >= options.facts) {
        lastLog = now;
        const rate = inserted / ((now - t0) / 1000);
        log(`  ${options.workspace}: ${inserted.toLocaleString("en")} / ${options.facts.toLocaleString("en")} facts, ${rate.toFixed(0)} facts/s`);
      }
    }
    const loadSeconds = (performance.now() - t0) / 1000;

    let vacuumSeconds = 0;
    if (options.vacuum !== false) {
      const v0 = performance.now();
      await db.exec(db.kind === "embedded" ? "VACUUM ANALYZE facts" : "VACUUM (ANALYZE) facts, end_users, fact_sequences");
      vacuumSeconds = (performance.now() - v0) / 1000;
    }

    const count = await workspaceFactCount(db, options.workspace);
    let file: KeysFile = {
      workspace: options.workspace,
      workspaceId: workspace.id,
      database: new URL(options.databaseUrl).pathname.slice(1),
      seed,
      seededFacts: count?.total ?? inserted,
      liveFacts: count?.live ?? inserted - superseded,
      schema: schemaFingerprint(),
      createdAt: new Date().toISOString(),
      keys: [],
    };
    file = await addKeys(db, file, options.keys, keysFile);
    return {
      workspaceId: workspace.id,
      inserted,
      superseded,
      duplicatesSkipped: duplicates,
      loadSeconds,
      factsPerSecond: inserted / loadSeconds,
      vacuumSeconds,
      keysFile,
    };
  } finally {
    if (!options.db) await db.close();
  }
}

const USAGE =
  "usage: bun bench/seed.ts --database-url URL --workspace SLUG --facts N [--keys 64] [--seed STR] [--batch 5000] " +
  "[--credits N] [--keys-file PATH] [--replace] [--no-vacuum]";

if (import.meta.main) {
  const databaseUrl = argValue("--database-url") ?? process.env.BENCH_DATABASE_URL;
  const workspace = argValue("--workspace");
  const facts = Number(argValue("--facts") ?? Number.NaN);
  if (!databaseUrl || !workspace || !Number.isInteger(facts) || facts < 0) {
    console.error(USAGE);
    process.exit(2);
  }
  const report = await seedWorkspace({
    databaseUrl,
    workspace,
    facts,
    keys: Number(argValue("--keys") ?? 64),
    seed: argValue("--seed"),
    batch: argValue("--batch") === undefined ? undefined : Number(argValue("--batch")),
    credits: argValue("--credits") === undefined ? undefined : Number(argValue("--credits")),
    keysFile: argValue("--keys-file"),
    replace: process.argv.includes("--replace"),
    vacuum: !process.argv.includes("--no-vacuum"),
  });
  console.log(
    JSON.stringify(
      {
        workspace,
        workspace_id: report.workspaceId,
        facts_inserted: report.inserted,
        superseded: report.superseded,
        generator_duplicates_skipped: report.duplicatesSkipped,
        load_seconds: Number(report.loadSeconds.toFixed(2)),
        facts_per_second: Math.round(report.factsPerSecond),
        vacuum_analyze_seconds: Number(report.vacuumSeconds.toFixed(2)),
        keys_file: report.keysFile,
      },
      null,
      2,
    ),
  );
}
