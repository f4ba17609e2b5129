/**
 * A fake of the OpenAI embeddings API (`POST /v1/embeddings`) on loopback, for driving memoryd's
 * real embeddings client with vectors under the test's control.
 *
 * A text's vector is the sum of its words' vectors, each word a fixed pseudo-random direction
 * (seeded by the word), except that the words of one `concepts` group share one direction: with
 * `[["hobby", "pottery"]]`, "what hobbies do I have?" and "I go to a pottery class" point the same
 * way. Words are lower-cased, stripped of punctuation and made singular ("hobbies": "hobby"). `vectors` pins a
 * whole text's vector. The prefixes memoryd puts before queries and facts are stripped first.
 *
 * `mode` scripts failures: `down` answers 503, `hang` answers only once the client has given up,
 * `garbage` answers JSON that is not a list of vectors, `refuse` answers 400 for texts containing
 * `refuseWord`; `delayMs` delays every answer; while `gate` is set, every answer waits for it and
 * its request is listed in `held` (a test holds a request in flight for exactly as long as it
 * needs, whatever the machine's speed).
 */
import { loopbackServer, sleep } from "./fake-server";

export type FakeEmbeddingsMode = "ok" | "down" | "hang" | "garbage" | "refuse";

export interface FakeEmbeddings {
  url: string;
  dimensions: number;
  mode: FakeEmbeddingsMode;
  delayMs: number;
  refuseWord: string;
  /** While set, answers wait for this promise (after `delayMs`). */
  gate: Promise<void> | null;
  /** Texts of the requests that waited for a gate. */
  held: string[][];
  /** Texts by request, as received (prefixes included). */
  requests: string[][];
  /** Bearer tokens received. */
  authorizations: string[];
  vectors: Map<string, number[]>;
  vectorOf(text: string): number[];
  stop(): Promise<void>;
}

const PREFIXES = ["search_query: ", "search_document: "];

export function startFakeEmbeddings(options: { dimensions?: number; concepts?: readonly (readonly string[])[] } = {}): FakeEmbeddings {
  const dimensions = options.dimensions ?? 64;
  const conceptOf = new Map<string, string>();
  for (const group of options.concepts ?? []) for (const word of group) conceptOf.set(normalize(word), `concept:${group[0]}`);
  const pending = new Set<() => void>();

  const wordVector = (word: string): number[] => {
    const key = conceptOf.get(word) ?? word;
    let seed = 2166136261;
    for (let i = 0; i < key.length; i++) seed = Math.imul(seed ^ key.charCodeAt(i), 16777619) >>> 0;
    return Array.from({ length: dimensions }, () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32 - 0.5;
    });
  };

  const fake: FakeEmbeddings = {
    url: "",
    dimensions,
    mode: "ok",
    delayMs: 0,
    refuseWord: "REFUSE",
    gate: null,
    held: [],
    requests: [],
    authorizations: [],
    vectors: new Map(),
    vectorOf(text) {
      const plain = PREFIXES.reduce((t, p) => (t.startsWith(p) ? t.slice(p.length) : t), text);
      const pinned = fake.vectors.get(plain);
      if (pinned) return pinned;
      const sum = new Array<number>(dimensions).fill(0);
      for (const word of plain.split(/\s+/u).map(normalize)) {
        if (word === "" || STOP_WORDS.has(word)) continue;
        wordVector(word).forEach((v, i) => {
          sum[i]! += v;
        });
      }
      return sum;
    },
    async stop() {
      for (const release of pending) release();
      await server.stop(true);
    },
  };

  const server = loopbackServer(async (req, path, headers) => {
    if (req.method !== "POST" || path !== "/v1/embeddings") return new Response("not found", { status: 404 });
    const body = (await req.json()) as { input: string | string[]; model: string };
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    fake.requests.push(inputs);
    fake.authorizations.push(headers.authorization ?? "");
    await sleep(fake.delayMs);
    if (fake.gate !== null) {
      fake.held.push(inputs);
      await fake.gate;
    }
    if (fake.mode === "hang") {
      // Held until the client gives up (or the fake stops): a request it abandoned holds nothing.
      await new Promise<void>((resolve) => {
        pending.add(resolve);
        req.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return new Response("gone", { status: 503 });
    }
    if (fake.mode === "down") return Response.json({ error: { message: "model is loading" } }, { status: 503 });
    if (fake.mode === "garbage") return Response.json({ object: "list", data: [{ embedding: "not numbers", index: 0 }] });
    if (fake.mode === "refuse" && inputs.some((t) => t.includes(fake.refuseWord))) {
      return Response.json({ error: { message: "input too long" } }, { status: 400 });
    }
    return Response.json({
      object: "list",
      model: body.model,
      data: inputs.map((text, index) => ({ object: "embedding", index, embedding: fake.vectorOf(text) })),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  });
  fake.url = `http://127.0.0.1:${server.port}/v1`;
  return fake;
}

function normalize(word: string): string {
  return word
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "")
    .replace(/ies$/u, "y")
    .replace(/s$/u, "");
}

const STOP_WORDS = new Set([
  "i",
  "a",
  "an",
  "the",
  "do",
  "what",
  "to",
  "go",
  "have",
  "my",
  "is",
  "of",
  "in",
  "on",
  "and",
  "at",
  "for",
  "we",
  "our",
  "it",
  "you",
]);
