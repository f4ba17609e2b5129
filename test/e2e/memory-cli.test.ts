import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanup, cliOk, runCli, tempDir } from "./binary";

afterAll(cleanup, 30_000);

interface Exported {
  fact_id: string;
  text: string;
  kind: string;
  origin: string;
  subject: string;
  subject_type: string;
  end_user: { id: string; name?: string } | null;
  recorded_time: string;
  sensitive: boolean;
  pinned: boolean;
  superseded_by: string | null;
}

const lines = (text: string): Exported[] =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Exported);

describe("facts import / export / pin and end-users forget (binary, embedded)", () => {
  test("import reports bad lines by number, keeps the good ones; export round-trips into a new workspace", async () => {
    const dataDir = tempDir();
    const db = ["--data-dir", dataDir];
    await cliOk(["workspaces", "create", "source", ...db]);
    await cliOk(["workspaces", "create", "copy", ...db]);
    const file = join(tempDir(), "facts.jsonl");
    await Bun.write(
      file,
      [
        JSON.stringify({ text: "Priya's manager is Tom." }),
        "{not json",
        JSON.stringify({ text: "Priya's manager is Alex.", origin: "user_stated" }),
        JSON.stringify({ nope: true }),
        JSON.stringify({ text: "   " }),
        JSON.stringify({ text: "Prefers tea over coffee", end_user: { id: "cust-1", name: "Dana" }, pinned: true }),
        JSON.stringify({ text: "Priya's manager is Alex." }),
        "",
        JSON.stringify({ text: "We decided to ship on Thursdays.", recorded_time: "2025-03-04T05:06:07.000Z" }),
      ].join("\n"),
    );
    const imported = await runCli(["facts", "import", file, "--workspace", "source", "--json", ...db]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ lines: 9, created: 3, superseded: 1, skipped: 1, rejected: 3 });
    expect(imported.stderr).toContain("line 2:");
    expect(imported.stderr).toContain("line 4:");
    expect(imported.stderr).toContain("line 5:");

    const exported = lines(await cliOk(["facts", "export", "--workspace", "source", ...db]));
    expect(exported).toHaveLength(4);
    const tom = exported.find((f) => f.text === "Priya's manager is Tom.")!;
    const alex = exported.find((f) => f.text === "Priya's manager is Alex.")!;
    expect(tom.superseded_by).toBe(alex.fact_id);
    expect(alex).toMatchObject({ origin: "user_stated", superseded_by: null, subject: "Priya" });
    expect(exported.find((f) => f.text.startsWith("Prefers tea"))).toMatchObject({
      end_user: { id: "cust-1", name: "Dana" },
      subject_type: "end_user",
      pinned: true,
    });
    expect(exported.find((f) => f.text.startsWith("We decided"))?.recorded_time).toBe("2025-03-04T05:06:07.000Z");

    const dump = join(tempDir(), "export.jsonl");
    await Bun.write(dump, exported.map((f) => JSON.stringify(f)).join("\n"));
    await cliOk(["facts", "import", dump, "--workspace", "copy", ...db]);
    const copy = lines(await cliOk(["facts", "export", "--workspace", "copy", ...db]));
    const shape = (fs: Exported[]) =>
      fs
        .map((f) => ({
          text: f.text,
          kind: f.kind,
          origin: f.origin,
          subject: f.subject,
          end_user: f.end_user,
          recorded_time: f.recorded_time,
          pinned: f.pinned,
          sensitive: f.sensitive,
          superseded: f.superseded_by === null ? null : fs.find((g) => g.fact_id === f.superseded_by)?.text,
        }))
        .sort((a, b) => a.text.localeCompare(b.text));
    expect(shape(copy)).toEqual(shape(exported));
  }, 60_000);

  test("import reads every line of a file larger than one read, CRLF included", async () => {
    const dataDir = tempDir();
    const db = ["--data-dir", dataDir];
    const file = join(tempDir(), "bulk.jsonl");
    const count = 3000;
    const texts = Array.from(
      { length: count },
      (_, i) => `Shipment ${i} left warehouse ${i % 7} with ${i * 3} crates of ${["oranges", "bolts", "paper"][i % 3]}.`,
    );
    // Several read chunks (64 KiB each), lines split across them, and Windows line ends.
    await Bun.write(file, `${texts.map((text) => JSON.stringify({ text, origin: "ingested" })).join("\r\n")}\r\n`);
    expect((await Bun.file(file).arrayBuffer()).byteLength).toBeGreaterThan(3 * 65536);
    // From source too: there the capture rules take a while to load before the first line is read.
    for (const fromSource of [false, true]) {
      const workspace = fromSource ? "bulk-source" : "bulk";
      await cliOk(["workspaces", "create", workspace, ...db]);
      const imported = await runCli(["facts", "import", file, "--workspace", workspace, "--json", ...db], { fromSource, timeoutMs: 90_000 });
      expect(imported.stderr).toBe("");
      expect(JSON.parse(imported.stdout)).toEqual({ lines: count, created: count, superseded: 0, skipped: 0, rejected: 0 });
      const exported = lines(await cliOk(["facts", "export", "--workspace", workspace, ...db]));
      expect(exported.map((f) => f.text).sort()).toEqual([...texts].sort());
    }
    // A bulk load ends by storing the workspace's search index, so the first search reads one row.
    await cliOk(["workspaces", "create", "bulk-text", ...db]);
    const told = await cliOk(["facts", "import", file, "--workspace", "bulk-text", ...db]);
    expect(told).toContain(`${count} created`);
    expect(told).toContain(`search index snapshot stored (${count} facts)`);
  }, 120_000);

  test("pin/unpin a fact; unknown fact is an error; forget deletes everything about an end user", async () => {
    const dataDir = tempDir();
    const db = ["--data-dir", dataDir];
    await cliOk(["workspaces", "create", "acme", ...db]);
    const file = join(tempDir(), "facts.jsonl");
    await Bun.write(
      file,
      [
        JSON.stringify({ text: "Likes hiking", end_user: { id: "u-1" } }),
        JSON.stringify({ text: "Lives in Oslo", end_user: { id: "u-1" } }),
        JSON.stringify({ text: "Likes chess", end_user: { id: "u-2" } }),
        JSON.stringify({ text: "The office closes at 6pm." }),
      ].join("\n"),
    );
    await cliOk(["facts", "import", file, "--workspace", "acme", ...db]);
    const before = lines(await cliOk(["facts", "export", "--workspace", "acme", ...db]));
    const office = before.find((f) => f.text.startsWith("The office"))!;
    expect(JSON.parse(await cliOk(["facts", "pin", office.fact_id, "--json", ...db]))).toEqual({ fact_id: office.fact_id, pinned: true });
    expect(JSON.parse(await cliOk(["facts", "unpin", office.fact_id, "--json", ...db]))).toEqual({ fact_id: office.fact_id, pinned: false });
    const missing = await runCli(["facts", "pin", "fact_nope", ...db]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("not found");

    const receipt = JSON.parse(await cliOk(["end-users", "forget", "acme", "u-1", "--json", ...db]));
    expect(receipt).toMatchObject({ workspace: "acme", end_user_id: "u-1", facts_deleted: 2, end_user_deleted: true });
    const after = lines(await cliOk(["facts", "export", "--workspace", "acme", ...db]));
    expect(after.map((f) => f.text).sort()).toEqual(["Likes chess", "The office closes at 6pm."]);
  }, 60_000);
});
