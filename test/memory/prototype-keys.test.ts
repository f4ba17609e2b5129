/**
 * Words that are names on Object.prototype ("constructor", "__proto__", "toString") or keys of the
 * tables capture and search look words up in are words like any other: a teach call holding them
 * stores its other facts too, and search, context, teaching from messages and the MCP tools answer
 * without a 5xx, on both databases. "The constructor is Bo" once found Object.prototype.constructor
 * in a plain-object table and failed its whole teach call with a 500.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../../src/app";
import { ATTRIBUTE_LEXICON } from "../../src/capture/attributes";
import { NUMBER_WORDS } from "../../src/capture/attributes/values";
import * as CAPTURE_LEXICON from "../../src/capture/rules/lexicon";
import type { Db } from "../../src/db/types";
import { INTENT_PREFIX } from "../../src/memory/lexicon/intents";
import { CATEGORY_PREFIX } from "../../src/memory/lexicon/lexicon";
import { QUESTION_FRAMES } from "../../src/memory/lexicon/question-frames";
import { SOFTWARE_KINDS } from "../../src/memory/lexicon/software-kinds";
import { UNIT_MS } from "../../src/memory/time/words";
import { call, makeKey, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { connectMcp, resultJson, servedOverHttp, type ServedOverHttp } from "../helpers/mcp";

setDefaultTimeout(300_000);

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** Whether a value is a table looked up by key (a plain or prototype-less object), not a set, list or pattern. */
const isTable = (value: unknown): value is object =>
  typeof value === "object" && value !== null && [null, Object.prototype].includes(Object.getPrototypeOf(value));

/** The keys of the capture lexicon's tables (change verbs, hedges, value aliases ...), number words and time units. */
const TABLE_KEYS = [...Object.values(CAPTURE_LEXICON).filter(isTable), NUMBER_WORDS, UNIT_MS].flatMap((table) => Object.keys(table));

/** The attribute lexicon's names and nouns, the question frames (intents) and the software kinds (categories). */
const LEXICON_WORDS = [
  ...ATTRIBUTE_LEXICON.flatMap((r) => [r.attribute, ...(r.nouns ?? [])]),
  ...QUESTION_FRAMES.flatMap((f) => [f.attribute, ...f.frames]),
  ...SOFTWARE_KINDS.flatMap((k) => [k.kind, ...k.nouns]),
];

const WORDS = [...new Set([...PROTOTYPE_NAMES, ...TABLE_KEYS, ...LEXICON_WORDS])];

/** The word as subject, as possessed attribute, as place, alone, and as a modifier. */
const TEMPLATES: readonly ((word: string) => string)[] = [
  (w) => `The ${w} is Bo`,
  (w) => `Bo's ${w} is Al`,
  (w) => `I moved to ${w}`,
  (w) => w,
  (w) => `${w} manager is Cy`,
];

/** Words per workspace: a workspace's facts stay few, so every call's capture stays quick. */
const GROUP = 24;
/** Ordinary facts in each teach call of up to 20. */
const ORDINARY_PER_CALL = 4;
/** Requests per key before the next one: under the 120 per minute limit. */
const REQUESTS_PER_KEY = 100;

const groups: string[][] = [];
for (let i = 0; i < WORDS.length; i += GROUP) groups.push(WORDS.slice(i, i + GROUP));

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A name no other fact has: its fact supersedes nothing and is superseded by nothing. */
const ordinaryName = (n: number): string => `Ordwin${n.toString(26).replace(/./g, (d) => String.fromCharCode(97 + Number.parseInt(d, 26)))}`;
let ordinaryCount = 0;
const ordinaryFact = (): string => `${ordinaryName(ordinaryCount++)} drinks green tea every morning.`;

/** A workspace and the keys on it, a new key before the last one reaches the rate limit. */
class Keys {
  private key: TestKey | undefined;
  private used = 0;
  constructor(
    private readonly db: Db,
    readonly workspace: string,
  ) {}
  static async open(db: Db): Promise<Keys> {
    return new Keys(db, (await makeKey(db)).workspace);
  }
  async next(): Promise<{ key: TestKey; fresh: boolean }> {
    const fresh = this.key === undefined || this.used >= REQUESTS_PER_KEY;
    if (fresh) {
      this.key = await makeKey(this.db, { workspace: this.workspace });
      this.used = 0;
    }
    this.used += 1;
    return { key: this.key!, fresh };
  }
}

/** An MCP client on a workspace, a new key's client before the last key reaches the rate limit. */
class McpClients {
  private client: Client | undefined;
  private constructor(
    private readonly keys: Keys,
    private readonly served: ServedOverHttp,
  ) {}
  static async open(db: Db, served: ServedOverHttp): Promise<McpClients> {
    return new McpClients(await Keys.open(db), served);
  }
  async next(): Promise<Client> {
    const { key, fresh } = await this.keys.next();
    if (fresh || this.client === undefined) this.client = this.served.closeLater(await connectMcp(this.served.base, key.secret));
    return this.client;
  }
}

/** Runs `work` over the groups a few at a time. */
async function eachGroup(work: (words: string[]) => Promise<void>): Promise<void> {
  const queue = [...groups];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let words = queue.shift(); words !== undefined; words = queue.shift()) await work(words);
    }),
  );
}

describeEachDb("words that are Object.prototype names or lexicon keys", (get) => {
  const served = servedOverHttp(get);
  const app = (): App => served.harness.app;

  test("REST: teach, search, context and messages answer without a 5xx; the ordinary facts are stored", async () => {
    const failures: string[] = [];
    const expectStatus = (what: string, res: { status: number; text: string }, status: number) => {
      if (res.status !== status) failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
    };
    await eachGroup(async (words) => {
      const keys = await Keys.open(get().db);
      const rest = async (method: string, path: string, body?: unknown) => call(app(), method, path, { key: (await keys.next()).key.secret, body });
      const ordinary: string[] = [];
      const said = words.flatMap((w) => TEMPLATES.map((t) => t(w)));
      for (const part of chunks(said, 20 - ORDINARY_PER_CALL)) {
        const plain = Array.from({ length: ORDINARY_PER_CALL }, ordinaryFact);
        ordinary.push(...plain);
        const texts = [...part.slice(0, 2), ...plain, ...part.slice(2)];
        const res = await rest("POST", "/v1/memory/facts", { facts: texts.map((text) => ({ text })) });
        expectStatus(`teach ${JSON.stringify(part)}`, res, 202);
      }
      const messages = words.flatMap((w) => [
        { role: "user", content: `The ${w} is Bo. Bo's ${w} is Al.` },
        { role: "assistant", content: `Noted: ${w}.` },
      ]);
      expectStatus(`messages ${JSON.stringify(words)}`, await rest("POST", "/v1/memory/messages", { messages }), 202);
      for (const w of words) {
        expectStatus(`search ${JSON.stringify(w)}`, await rest("POST", "/v1/memory/search", { query: w, explain: true }), 200);
        const question = `Who is Bo's ${w}? ${CATEGORY_PREFIX}${w} ${INTENT_PREFIX}${w}`;
        expectStatus(
          `search in a question ${JSON.stringify(w)}`,
          await rest("POST", "/v1/memory/search", { query: question, end_user: { id: w, name: w }, explain: true }),
          200,
        );
        expectStatus(`context ${JSON.stringify(w)}`, await rest("POST", "/v1/memory/context", { query: `What is the ${w}?` }), 200);
      }
      const stored = new Set<string>();
      for (let cursor: string | null = null; ; ) {
        const res = await rest("GET", `/v1/memory/facts?limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
        expectStatus("list facts", res, 200);
        if (res.status !== 200) break;
        for (const fact of res.json.data.facts as { fact_text: string }[]) stored.add(fact.fact_text);
        cursor = res.json.data.next_cursor;
        if (cursor === null) break;
      }
      const lost = ordinary.filter((text) => !stored.has(text));
      if (lost.length > 0) failures.push(`ordinary facts not stored next to ${JSON.stringify(words)}: ${JSON.stringify(lost)}`);
    });
    expect(failures).toEqual([]);
  });

  test("MCP: the tools answer these words without an internal error", async () => {
    const failures: string[] = [];
    /** A tool call whose failure, if any, is the caller's (a tool result under 500), not the server's. */
    const check = async (client: Client, name: string, args: Record<string, unknown>, what: string) => {
      try {
        const result = await client.callTool({ name, arguments: args });
        if (result.isError) {
          const body = resultJson(result) as { error: string; http_status: number };
          if (body.http_status >= 500 || body.error === "internal_error") failures.push(`${name} ${what}: ${JSON.stringify(body)}`);
        }
      } catch (error) {
        const internal = !(error instanceof McpError) || error.code === ErrorCode.InternalError;
        failures.push(`${name} ${what}: ${internal ? "internal error" : "protocol error"} ${String(error)}`);
      }
    };
    await eachGroup(async (words) => {
      const client = await McpClients.open(get().db, served);
      // Taught over REST in every position above; here the tool's arguments carry the word.
      const said = words.flatMap((w) => [TEMPLATES[0]!(w), TEMPLATES[3]!(w)]);
      for (const part of chunks(said, 20 - ORDINARY_PER_CALL)) {
        const facts = [...part, ...Array.from({ length: ORDINARY_PER_CALL }, ordinaryFact)].map((text) => ({ text }));
        await check(await client.next(), "teach_memory", { facts }, JSON.stringify(part));
      }
      for (const w of words) {
        await check(await client.next(), "search_memory", { query: w }, JSON.stringify(w));
        await check(await client.next(), "get_memory_context", { query: `Who is Bo's ${w}?`, end_user: { id: w, name: w } }, JSON.stringify(w));
      }
    });
    // The worker's question, and arguments that name things (an agent, an answer, a tool): a validation error at most.
    const client = await McpClients.open(get().db, served);
    for (const w of PROTOTYPE_NAMES) {
      await check(await client.next(), "search_memory", { query: w, agent: w.toLowerCase() }, `agent ${JSON.stringify(w)}`);
      await check(await client.next(), "teach_memory", { facts: [{ text: w }], agent: w.toLowerCase(), scope: "agent" }, `agent ${JSON.stringify(w)}`);
      await check(await client.next(), "ask_worker", { input: w, idempotency_key: w, timeout_seconds: 0 }, `input ${JSON.stringify(w)}`);
      await check(await client.next(), "wait_for_answer", { answer_id: w, timeout_seconds: 0 }, `answer_id ${JSON.stringify(w)}`);
      try {
        await (await client.next()).callTool({ name: w, arguments: { query: w } });
        failures.push(`tool named ${JSON.stringify(w)} was called`);
      } catch (error) {
        if (!(error instanceof McpError) || error.code === ErrorCode.InternalError) failures.push(`tool named ${JSON.stringify(w)}: ${String(error)}`);
      }
    }
    // The worker's runs end before the suite closes the database under them.
    for (const started = Date.now(); Date.now() - started < 60_000; await Bun.sleep(50)) {
      const [open] = await get().db.sql<{ n: number }>`SELECT count(*)::int AS n FROM answers WHERE status IN ('queued', 'in_progress')`;
      if (open?.n === 0) break;
    }
    expect(failures).toEqual([]);
  });
});
