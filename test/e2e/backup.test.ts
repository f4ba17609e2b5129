/**
 * Backups of the embedded database, through the binary: `memoryd backup FILE --url` from the
 * running server while facts are being taught, `memoryd restore` into an empty data directory,
 * and a server on the restored directory that has every fact acknowledged before the backup
 * began, the key, the agent and the answer. Plus the offline backup, and the refusals.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { cleanup, cliOk, request, runCli, startServer, tempDir, waitReady } from "./binary";

setDefaultTimeout(180_000);
afterAll(cleanup, 30_000);

const ADMIN = "e2e-backup-admin-token-0123456789";
const post = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("backup and restore [embedded]", () => {
  test("a backup taken under write load restores every acknowledged fact, key, agent and answer", async () => {
    const dataDir = join(tempDir("memoryd-e2e-backup-"), "data");
    const server = await startServer({ dataDir, env: { MEMORYD_ADMIN_TOKEN: ADMIN } });
    const key = server.secret!;
    await waitReady(server.url);
    const agent = await request(server.url, "/v1/admin/workspaces/default/agents", {
      key: ADMIN,
      ...post({ slug: "helper", display_name: "Helper", provider: "local" }),
    });
    expect(agent.status).toBe(201);
    const asked = await request(server.url, "/v1/answers", { key, ...post({ input: "Who are you?", stream: false }) });
    expect(asked.status).toBe(202);
    const answerId = asked.json.data.answer_id as string;
    for (let i = 0; i < 100; i++) {
      if ((await request(server.url, `/v1/answers/${answerId}`, { key })).json.data.status === "completed") break;
      await Bun.sleep(100);
    }

    // Write load: one teacher after another, each fact acknowledged (202) before the next.
    const acknowledged: string[] = [];
    let writing = true;
    const load = (async () => {
      for (let n = 0; writing; n++) {
        const text = `Backup probe fact number ${n} is kept.`;
        const res = await request(server.url, "/v1/memory/facts", { key, ...post({ facts: [{ text }] }) });
        if (res.status === 202) acknowledged.push(text);
        else if (res.status !== 429) throw new Error(`teach failed: ${res.status} ${res.text}`);
      }
    })();
    while (acknowledged.length < 20) await Bun.sleep(20);
    const before = [...acknowledged];
    const file = join(tempDir("memoryd-e2e-backup-file-"), "memoryd.tar.gz");
    const taken = await cliOk(["backup", file, "--url", server.url], { env: { MEMORYD_ADMIN_TOKEN: ADMIN } });
    expect(taken).toContain(`wrote a backup of ${server.url}`);
    writing = false;
    await load;
    await server.stop();

    const restoredDir = join(tempDir("memoryd-e2e-restored-"), "data");
    expect(await cliOk(["restore", file, "--data-dir", restoredDir])).toContain(`restored ${file}`);
    const exported = (await cliOk(["facts", "export", "--workspace", "default", "--data-dir", restoredDir]))
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { text: string }).text);
    for (const text of before) expect(exported).toContain(text);

    const restored = await startServer({ dataDir: restoredDir, env: { MEMORYD_ADMIN_TOKEN: ADMIN } });
    try {
      await waitReady(restored.url);
      expect((await request(restored.url, "/v1/whoami", { key })).status).toBe(200);
      const agents = await request(restored.url, "/v1/admin/workspaces/default/agents", { key: ADMIN });
      expect(agents.json.data.agents.map((a: { slug: string }) => a.slug)).toContain("helper");
      const answer = await request(restored.url, `/v1/answers/${answerId}`, { key });
      expect(answer.json.data).toMatchObject({ answer_id: answerId, status: "completed" });
    } finally {
      await restored.stop();
    }

    // A restore never overwrites a database.
    const again = await runCli(["restore", file, "--data-dir", restoredDir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already holds a database");
  });

  test("offline, the CLI backs up the data directory itself; while a server holds it, it says to use --url", async () => {
    const dataDir = join(tempDir("memoryd-e2e-backup-offline-"), "data");
    const server = await startServer({ dataDir });
    await waitReady(server.url);
    const file = join(tempDir("memoryd-e2e-backup-file-"), "offline.tar.gz");
    const held = await runCli(["backup", file, "--data-dir", dataDir]);
    expect(held.code).not.toBe(0);
    expect(held.stderr).toContain("--url");
    await server.stop();
    expect(await cliOk(["backup", file, "--data-dir", dataDir])).toContain("wrote a backup");
    const restoredDir = join(tempDir("memoryd-e2e-restored-offline-"), "data");
    await cliOk(["restore", file, "--data-dir", restoredDir]);
    expect(await cliOk(["workspaces", "list", "--data-dir", restoredDir])).toContain("default");
    // Anything else is refused before a data directory is made of it.
    const notBackup = join(tempDir("memoryd-e2e-not-backup-"), "notes.txt");
    await Bun.write(notBackup, "not a backup");
    const refused = await runCli(["restore", notBackup, "--data-dir", join(tempDir("memoryd-e2e-restore-refused-"), "data")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("not a memoryd backup");
  });

  test("on PostgreSQL the CLI points to pg_dump instead", async () => {
    const result = await runCli(["backup", "x.tar.gz", "--database-url", "postgres://postgres@127.0.0.1:5432/postgres"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("pg_dump");
  });
});
