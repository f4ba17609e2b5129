/**
 * The operator CLI's rough edges (issue 11, defect 7), each pinned through the binary: exit codes,
 * a key born expired, revoking by the full secret, enum errors that list the allowed values,
 * per-command help, and the list commands.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { COMMAND_HELP } from "../../src/cli/help";
import { cleanup, cliOk, runCli, tempDir } from "./binary";

setDefaultTimeout(60_000);
afterAll(cleanup);

const dataDir = join(tempDir(), "data");
const db = ["--data-dir", dataDir];

test("workspaces create of an existing slug exits 1 (a conflict, not a usage error); workspaces list shows both", async () => {
  await cliOk(["workspaces", "create", "acme", "--credits", "7", ...db]);
  const again = await runCli(["workspaces", "create", "acme", ...db]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('workspace "acme" already exists');
  await cliOk(["workspaces", "create", "beta", ...db]);
  const listed = JSON.parse(await cliOk(["workspaces", "list", "--json", ...db]));
  expect(listed.workspaces.map((w: { slug: string; credits: number; live_facts: number }) => [w.slug, w.credits, w.live_facts])).toEqual([
    ["acme", 7, 0],
    ["beta", 0, 0],
  ]);
});

test("keys create with --expires-at in the past is refused and creates nothing", async () => {
  const past = await runCli([
    "keys",
    "create",
    "--workspace",
    "acme",
    "--name",
    "old",
    "--scopes",
    "memory.read",
    "--expires-at",
    "2020-01-01T00:00:00Z",
    ...db,
  ]);
  expect(past.code).toBe(2);
  expect(past.stderr).toContain("in the past");
  expect(JSON.parse(await cliOk(["keys", "list", "--workspace", "acme", "--json", ...db])).keys).toEqual([]);
});

test("keys revoke takes the full secret, and never echoes a secret that matches nothing", async () => {
  const key = JSON.parse(await cliOk(["keys", "create", "--workspace", "acme", "--name", "leaked", "--scopes", "memory.read", "--json", ...db]));
  const revoked = JSON.parse(await cliOk(["keys", "revoke", key.secret, "--json", ...db]));
  expect(revoked.id).toBe(key.id);
  expect(revoked.revoked_at).not.toBeNull();
  const unknown = `${key.secret.slice(0, -4)}zzzz`;
  const missing = await runCli(["keys", "revoke", unknown, ...db]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("not found");
  expect(missing.stderr).not.toContain(unknown);
});

test.each([
  [["keys", "create", "--workspace", "acme", "--name", "x", "--scopes", "memory.rite"], {}, "memory.read, memory.write, answers.write"],
  [["keys", "create", "--workspace", "acme", "--name", "x", "--scopes", "memory.read", "--audience", "public"], {}, "internal, external"],
  [["migrate"], { MEMORYD_DEPLOYMENT: "prod" }, "live, test"],
  [["migrate"], { MEMORYD_LOG_LEVEL: "loud" }, "debug, info, warn, error, silent"],
] as const)("%j %j: the error lists the allowed values", async (args, env, allowed) => {
  const result = await runCli([...args, ...db], { env });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`expected one of ${allowed}`);
  expect(result.stderr).not.toContain("union");
});

test("team add then team list", async () => {
  await cliOk(["team", "add", "acme", "Priya  Shah", ...db]);
  await cliOk(["team", "add", "acme", "Tom Lee", ...db]);
  expect(await cliOk(["team", "list", "acme", ...db])).toBe("Priya Shah\nTom Lee\n");
});

test("every command has its own --help, exit 0, naming its own usage only", async () => {
  for (const entry of COMMAND_HELP) {
    for (const command of entry.commands) {
      const result = await runCli([...command.split(" "), "--help"]);
      expect([command, result.code]).toEqual([command, 0]);
      expect(result.stdout).toStartWith(`Usage: ${entry.usage.split("\n")[0]}`);
      // Not the global usage: no other command's line.
      expect(result.stdout).not.toContain("memoryd --help | --version");
    }
  }
});

test("agents: list shows main, create, update, delete (not main); team remove; facts delete; end-users export", async () => {
  await cliOk(["workspaces", "create", "ops", ...db]);
  expect(JSON.parse(await cliOk(["agents", "list", "ops", "--json", ...db])).agents.map((a: { slug: string }) => a.slug)).toEqual(["main"]);
  const created = JSON.parse(
    await cliOk(["agents", "create", "ops", "support", "--display-name", "Support", "--instructions", "Be brief.", "--write-memory", "no", "--json", ...db]),
  );
  expect(created).toMatchObject({ slug: "support", display_name: "Support", instructions: "Be brief.", can_write_memory: false, model: null });
  const updated = JSON.parse(await cliOk(["agents", "update", "ops", "support", "--model", "claude-x", "--max-output-tokens", "200", "--json", ...db]));
  expect(updated).toMatchObject({ model: "claude-x", max_output_tokens: 200, instructions: "Be brief." });
  expect(JSON.parse(await cliOk(["agents", "update", "ops", "support", "--model", "default", "--json", ...db])).model).toBeNull();
  const onOllama = JSON.parse(await cliOk(["agents", "update", "ops", "support", "--provider", "openai", "--model", "llama3.1", "--json", ...db]));
  expect(onOllama).toMatchObject({ provider: "openai", model: "llama3.1" });
  const badProvider = await runCli(["agents", "update", "ops", "support", "--provider", "gpt", ...db]);
  expect([badProvider.code, badProvider.stderr.includes("openai")]).toEqual([2, true]);
  const badFlag = await runCli(["agents", "update", "ops", "support", "--write-memory", "maybe", ...db]);
  expect([badFlag.code, badFlag.stderr.includes("yes or no")]).toEqual([2, true]);
  expect((await runCli(["agents", "delete", "ops", "main", ...db])).code).toBe(2);
  await cliOk(["agents", "delete", "ops", "support", ...db]);
  expect((await runCli(["agents", "delete", "ops", "support", ...db])).code).toBe(1);

  await cliOk(["team", "add", "ops", "Tom Lee", ...db]);
  await cliOk(["team", "remove", "ops", "tom lee", ...db]);
  expect(await cliOk(["team", "list", "ops", ...db])).toBe("");

  const keyJson = JSON.parse(await cliOk(["keys", "create", "--workspace", "ops", "--name", "w", "--scopes", "memory.write", "--json", ...db]));
  expect(keyJson.secret).toMatch(/^ak_test_/);
  const file = join(tempDir(), "facts.jsonl");
  await Bun.write(
    file,
    `${JSON.stringify({ text: "Dana prefers tea.", end_user: { id: "u-1", name: "Dana" } })}\n${JSON.stringify({ text: "Office closes at six." })}\n`,
  );
  await cliOk(["facts", "import", file, "--workspace", "ops", ...db]);
  const exported = (await cliOk(["end-users", "export", "ops", "u-1", ...db]))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(exported.map((f: { text: string }) => f.text)).toEqual(["Dana prefers tea."]);
  const office = (await cliOk(["facts", "export", "--workspace", "ops", ...db]))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .find((f: { text: string }) => f.text === "Office closes at six.");
  expect(JSON.parse(await cliOk(["facts", "delete", office.fact_id, "--json", ...db]))).toEqual({ fact_id: office.fact_id, restored: [] });
  expect((await runCli(["facts", "delete", office.fact_id, ...db])).code).toBe(1);
});
