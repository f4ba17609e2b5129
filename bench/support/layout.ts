/**
 * The databases the benches share, and what each one holds. Every workspace is seeded with
 * bench/seed.ts's `seedWorkspace` (deterministic from its seed string) and reused across runs:
 * its keys file (bench/.keys-<slug>.json, gitignored) records the database, the migrations
 * fingerprint and the fact count it was seeded with. A database seeded under other migrations is
 * dropped and seeded again; a workspace whose fact count changed since (teach and answers add
 * facts) is replaced on its own, leaving the other workspaces of its database alone.
 *
 *   main    m100k (measured, 100k) + 5 x 200k other workspaces (1M) + tenancy workspace t1m (20k)
 *   big     one1m: 1M facts in one workspace
 *   growth  g3k, g10k, g20k, g50k (prefixes of one stream: the same workspace at four sizes)
 *           + gother (200k)
 *   alone   t0 (20k, the same content as g20k and t1m), nothing else
 */
import { openPostgres } from "../../src/db/postgres";
import { addKeys, dropDatabase, ensureDatabase, readKeysFile, schemaFingerprint, seedWorkspace, workspaceFactCount, type KeysFile } from "../seed";

export interface WorkspaceSpec {
  slug: string;
  facts: number;
  /** Content seed: workspaces sharing one hold the same facts (a smaller one is a prefix). */
  seed: string;
  keys: number;
}

export interface DatabaseSpec {
  name: string;
  workspaces: WorkspaceSpec[];
}

/** The content seed of the tenancy workspace, at every size and in every database. */
export const GROW_SEED = "grow";

export const DATABASES: Record<string, DatabaseSpec> = {
  main: {
    name: "memoryd_perf_main",
    workspaces: [
      { slug: "m100k", facts: 100_000, seed: "m100k", keys: 3000 },
      ...[1, 2, 3, 4, 5].map((i) => ({ slug: `other${i}`, facts: 200_000, seed: `other-${i}`, keys: 5 })),
      { slug: "t1m-20k", facts: 20_000, seed: GROW_SEED, keys: 400 },
    ],
  },
  big: { name: "memoryd_perf_1m", workspaces: [{ slug: "one1m", facts: 1_000_000, seed: "one1m", keys: 3000 }] },
  growth: {
    name: "memoryd_perf_growth",
    workspaces: [
      { slug: "g3k", facts: 3_000, seed: GROW_SEED, keys: 400 },
      { slug: "g10k", facts: 10_000, seed: GROW_SEED, keys: 400 },
      { slug: "g20k", facts: 20_000, seed: GROW_SEED, keys: 400 },
      { slug: "g50k", facts: 50_000, seed: GROW_SEED, keys: 400 },
      { slug: "gother", facts: 200_000, seed: "gother", keys: 5 },
    ],
  },
  alone: { name: "memoryd_perf_alone", workspaces: [{ slug: "t0-20k", facts: 20_000, seed: GROW_SEED, keys: 3000 }] },
};

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface PreparedDatabase {
  spec: DatabaseSpec;
  url: string;
  /** Keys files by slug. */
  files: Map<string, KeysFile>;
  /** Workspaces seeded by this call, with their load rate. */
  seeded: { slug: string; facts: number; seconds: number; factsPerSecond: number }[];
}

/** Makes sure every workspace of the database is seeded as specified; seeds what is missing or stale. */
export async function prepareDatabase(
  adminUrl: string,
  spec: DatabaseSpec,
  options: { reseed?: boolean; log: (line: string) => void },
): Promise<PreparedDatabase> {
  const url = databaseUrl(adminUrl, spec.name);
  const log = options.log;
  const files = new Map<string, KeysFile | undefined>(spec.workspaces.map((w) => [w.slug, readKeysFile(w.slug)]));
  const stale = [...files.values()].some((f) => f !== undefined && (f.schema !== schemaFingerprint() || f.database !== spec.name));
  if (options.reseed || stale) {
    log(`${spec.name}: ${options.reseed ? "--reseed" : "seeded under other migrations (src/db/migrations changed since)"}: dropping it`);
    await dropDatabase(url);
    for (const w of spec.workspaces) files.set(w.slug, undefined);
  }
  await ensureDatabase(url);
  const prepared: PreparedDatabase = { spec, url, files: new Map(), seeded: [] };
  const db = openPostgres({ url, maxConnections: 4 });
  try {
    for (const w of spec.workspaces) {
      let file = files.get(w.slug);
      let fresh = file === undefined;
      if (file) {
        const count = await workspaceFactCount(db, w.slug).catch(() => null);
        if (!count || count.id !== file.workspaceId || count.total !== file.seededFacts) {
          log(`${w.slug}: changed since it was seeded (${count?.total ?? "missing"} vs ${file.seededFacts} facts): replacing it`);
          fresh = true;
        }
      }
      if (fresh) {
        log(`${w.slug}: seeding ${w.facts.toLocaleString("en")} facts (seed "${w.seed}") into ${spec.name}`);
        const report = await seedWorkspace({ databaseUrl: url, workspace: w.slug, facts: w.facts, keys: w.keys, seed: w.seed, replace: true, log });
        prepared.seeded.push({ slug: w.slug, facts: report.inserted, seconds: report.loadSeconds, factsPerSecond: report.factsPerSecond });
        log(`${w.slug}: ${report.inserted.toLocaleString("en")} facts in ${report.loadSeconds.toFixed(1)} s (${report.factsPerSecond.toFixed(0)} facts/s)`);
        file = readKeysFile(w.slug)!;
      }
      if (file!.keys.length < w.keys) file = await addKeys(db, file!, w.keys - file!.keys.length);
      prepared.files.set(w.slug, file!);
    }
  } finally {
    await db.close();
  }
  return prepared;
}

/** Facts of the database outside one workspace (live + superseded). */
export async function otherFacts(url: string, workspaceId: string): Promise<number> {
  const db = openPostgres({ url, maxConnections: 1 });
  try {
    const rows = await db.sql<{ n: number }>`SELECT count(*)::int AS n FROM facts WHERE workspace_id <> ${workspaceId}`;
    return rows[0]?.n ?? 0;
  } finally {
    await db.close();
  }
}

if (import.meta.main) {
  // bun bench/support/layout.ts [main,big,growth,alone] [--admin-url URL] [--reseed]: seeds ahead of the benches.
  const { argValue } = await import("./args");
  const adminUrl = argValue("--admin-url") ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const names = (process.argv[2] && !process.argv[2].startsWith("--") ? process.argv[2] : Object.keys(DATABASES).join(",")).split(",");
  const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  for (const name of names) {
    const spec = DATABASES[name];
    if (!spec) throw new Error(`unknown database "${name}" (${Object.keys(DATABASES).join(", ")})`);
    await prepareDatabase(adminUrl, spec, { reseed: process.argv.includes("--reseed"), log });
  }
}
