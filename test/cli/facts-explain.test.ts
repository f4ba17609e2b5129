/**
 * `memoryd facts explain`, run as the CLI is (`bun src/main.ts`) against a real database: a fact's
 * replacement and its update, each with the lexicon record or the words that made the link. The
 * test's own connection is closed while the CLI runs on the embedded database (its data directory
 * admits one process at a time).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { cleanup, runCli } from "../e2e/binary";
import { call, makeKey, testApp } from "../helpers/app";
import { DB_KINDS, openTestDatabase } from "../helpers/databases";

afterAll(cleanup, 30_000);

for (const kind of DB_KINDS) {
  describe(`memoryd facts explain [${kind}]`, () => {
    test("names what a fact replaced and what updates it, and why", async () => {
      const t = await openTestDatabase(kind);
      const app = testApp(t.db);
      const key = await makeKey(t.db);
      const teach = async (text: string, observed: string): Promise<void> => {
        const taught = await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text, observed_at: observed }] } });
        expect(taught.status).toBe(202);
      };
      await teach("Acme Corp's account manager is Kofi Mensah.", "2026-01-01T09:00:00Z");
      await teach("Acme Corp's account manager is Lena Park.", "2026-02-01T09:00:00Z");
      await teach("We deploy the billing service on Tuesdays.", "2026-01-01T09:00:00Z");
      await teach("The billing service deploys on Thursdays now.", "2026-02-01T09:00:00Z");
      const rows = await t.db.sql<{ id: string; text: string }>`SELECT id, text FROM facts ORDER BY recorded_at, id`;
      const id = (text: string): string => rows.find((r) => r.text === text)!.id;
      const dbArgs = t.config.databaseUrl !== undefined ? ["--database-url", t.config.databaseUrl] : ["--data-dir", t.config.dataDir];
      // The embedded data directory admits one process at a time: the test lets go of it (without removing it) while the CLI runs.
      if (kind === "embedded") await t.db.close();

      const lena = await runCli(["facts", "explain", id("Acme Corp's account manager is Lena Park."), ...dbArgs], { fromSource: true, timeoutMs: 60_000 });
      expect(lena.code).toBe(0);
      expect(lena.stdout).toContain("replaced (hidden, kept as history):");
      expect(lena.stdout).toContain("Kofi Mensah");
      expect(lena.stdout).toContain('replaces: lexicon "account manager" of "acme corp"');

      const tuesdays = await runCli(["facts", "explain", id("We deploy the billing service on Tuesdays."), "--json", ...dbArgs], {
        fromSource: true,
        timeoutMs: 60_000,
      });
      expect(tuesdays.code).toBe(0);
      const history = JSON.parse(tuesdays.stdout);
      expect(history.fact.superseded_by).toBeNull();
      expect(history.updated_by.map((f: { text: string }) => f.text)).toEqual(["The billing service deploys on Thursdays now."]);
      expect(history.updated_by[0].link_reason).toContain('change word "now"');
      expect(history.updated_by[0].updates).toEqual([history.fact.fact_id]);

      const unknown = await runCli(["facts", "explain", "fact_nope", ...dbArgs], { fromSource: true, timeoutMs: 60_000 });
      expect(unknown.code).toBe(1);
      if (kind === "postgres") await t.close();
      else rmSync(t.config.dataDir, { recursive: true, force: true });
    }, 120_000);
  });
}
