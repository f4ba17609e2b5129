/**
 * `facts import` reads its file as bytes and decodes each line on its own (cli/memory-commands.ts):
 * CRLF endings, a last line without a newline, and a character split by the end of a read chunk
 * must come out as they went in. Through the binary, embedded.
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanup, cliOk, tempDir } from "./binary";

afterAll(cleanup, 30_000);

/** What a file read stream hands over at a time (its default high-water mark). */
const CHUNK = 64 * 1024;
const byteLength = (text: string): number => new TextEncoder().encode(text).length;

/** Texts whose JSON lines, CRLF-separated, put the first chunk's end inside a four-byte emoji. */
function textsAcrossChunk(): string[] {
  const texts: string[] = [];
  let bytes = 0;
  while (bytes < CHUNK - 3000) {
    const text = `Filler ${texts.length}: café “quoted” ${"y".repeat(900)}`;
    texts.push(text);
    bytes += byteLength(JSON.stringify({ text })) + 2;
  }
  const opening = byteLength('{"text":"Split ');
  texts.push(`Split ${"z".repeat(CHUNK - 2 - bytes - opening)}🙂 and after it “end”`);
  for (let i = 0; i < 5; i++) texts.push(`After ${i}: naïve ✓`);
  return texts;
}

test("import decodes CRLF lines and a character split by a read chunk as written", async () => {
  const db = ["--data-dir", tempDir()];
  await cliOk(["workspaces", "create", "lines", ...db]);
  const texts = textsAcrossChunk();
  const file = join(tempDir(), "facts.jsonl");
  const content = texts.map((text) => JSON.stringify({ text })).join("\r\n");
  await Bun.write(file, content);
  // The emoji's four bytes start two bytes before the chunk's end.
  expect(byteLength(content.slice(0, content.indexOf("🙂")))).toBe(CHUNK - 2);

  const imported = JSON.parse(await cliOk(["facts", "import", file, "--workspace", "lines", "--json", ...db])) as { lines: number; created: number };
  expect(imported).toMatchObject({ lines: texts.length, created: texts.length });
  const exported = (await cliOk(["facts", "export", "--workspace", "lines", ...db]))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { text: string }).text);
  expect(exported.sort()).toEqual([...texts].sort());
}, 120_000);
