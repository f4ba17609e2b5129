/**
 * What every SDK-backed provider must do alike, whatever its wire format: stream as it arrives,
 * retry as configured, turn a dead or silent server into model_unavailable / model_timeout, and
 * stop promptly on abort with the abort's reason (never a ModelError). Each provider's test file
 * runs this suite against its own fake server, with the few responses that differ given by name.
 */
import { describe, expect, test } from "bun:test";
import { ModelError, type GenerateResult, type ModelProvider } from "../../src/models/types";
import { failure, harness, modelError, type Harness } from "./generate";

type Text = { text: string; chunks?: number; delayMs?: number };

export interface ContractSetup<R> {
  name: string;
  apiKey: string;
  /** The fake, started by the caller (and reset after each test). */
  fake(): { url: string; requests: readonly unknown[]; enqueue(...responses: (R | Text | { hang: true })[]): void };
  provider(options: { baseURL?: string; timeoutMs?: number; maxRetries?: number }): ModelProvider;
  /** The API path under the server's root that the fake's `url` already includes. */
  rootPath: string;
  toolCall(name: string, input: unknown): R;
  error(status: number): R;
  /** A failure the SDK retries, and the code it ends as. */
  overloaded: { response: R; code: ModelError["code"] };
  /** The first bytes of a 200 stream, after which a raw server cuts the connection. */
  firstEvent: string;
}

export function providerContract<R>(setup: ContractSetup<R>): void {
  const run = (h: Harness, options: { baseURL?: string; timeoutMs?: number; maxRetries?: number } = {}): Promise<GenerateResult> =>
    setup.provider({ baseURL: setup.fake().url, maxRetries: 0, ...options }).generate(h.request, (delta) => h.deltas.push(delta));

  describe(`${setup.name} provider: streaming, retries, timeouts`, () => {
    test("deltas reach onDelta while the response is still streaming", async () => {
      setup.fake().enqueue({ text: "one two three four", chunks: 4, delayMs: 40 });
      const h = harness();
      const seen: number[] = [];
      const started = Date.now();
      const result = await setup.provider({ baseURL: setup.fake().url, maxRetries: 0 }).generate(h.request, () => seen.push(Date.now() - started));
      expect(seen.length).toBe(4);
      // Spread over time, not delivered in one burst at the end.
      expect(seen[3]! - seen[0]!).toBeGreaterThanOrEqual(80);
      expect(result.text).toBe("one two three four");
    });

    test("retries per maxRetries: a 429 then an answer succeeds", async () => {
      setup.fake().enqueue(setup.error(429), { text: "Second time lucky." });
      expect((await run(harness(), { maxRetries: 1 })).text).toBe("Second time lucky.");
      expect(setup.fake().requests.length).toBe(2);
    });

    test("the default is one retry", async () => {
      const { response, code } = setup.overloaded;
      setup.fake().enqueue(response, response, { text: "never reached" });
      const h = harness();
      const error = await modelError(setup.provider({ baseURL: setup.fake().url }).generate(h.request, () => {}));
      expect(error.code).toBe(code);
      expect(setup.fake().requests.length).toBe(2);
    });

    test("a connection reset mid-stream -> model_unavailable", async () => {
      // Bun.serve can't cut a socket, so this one case uses a raw TCP server.
      const raw = Bun.listen({
        hostname: "127.0.0.1",
        port: 0,
        socket: {
          data(socket) {
            socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
            socket.write(`${Buffer.byteLength(setup.firstEvent).toString(16)}\r\n${setup.firstEvent}\r\n`);
            setTimeout(() => socket.end(), 10);
          },
        },
      });
      try {
        const error = await modelError(run(harness(), { baseURL: `http://127.0.0.1:${raw.port}${setup.rootPath}` }));
        expect(error.code).toBe("model_unavailable");
      } finally {
        raw.stop(true);
      }
    });

    test("nothing listening -> model_unavailable", async () => {
      const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
      const url = `http://127.0.0.1:${closed.port}${setup.rootPath}`;
      await closed.stop(true);
      const error = await modelError(run(harness(), { baseURL: url }));
      expect(error.code).toBe("model_unavailable");
      expect(error.message).not.toContain(setup.apiKey);
    });

    test("no response within timeoutMs -> model_timeout", async () => {
      setup.fake().enqueue({ hang: true });
      const started = Date.now();
      expect((await modelError(run(harness(), { timeoutMs: 150 }))).code).toBe("model_timeout");
      expect(Date.now() - started).toBeLessThan(3_000);
    });

    test("a stream that stalls longer than timeoutMs -> model_timeout", async () => {
      setup.fake().enqueue({ text: "slow slow slow", chunks: 3, delayMs: 2_000 });
      const started = Date.now();
      const error = await modelError(run(harness(), { timeoutMs: 150 }));
      expect(error.code).toBe("model_timeout");
      expect(error.message).toMatch(/stalled/);
      expect(Date.now() - started).toBeLessThan(1_500);
    });
  });

  describe(`${setup.name} provider: abort`, () => {
    test("aborting mid-stream stops the stream and rejects with the abort reason, not a ModelError", async () => {
      setup.fake().enqueue({ text: "a ".repeat(40), chunks: 40, delayMs: 25 });
      const h = harness();
      const promise = setup.provider({ baseURL: setup.fake().url, maxRetries: 0 }).generate(h.request, (delta) => {
        h.deltas.push(delta);
        if (h.deltas.length === 2) h.controller.abort(new Error("client went away"));
      });
      const started = Date.now();
      const error = await failure(promise);
      expect(error).not.toBeInstanceOf(ModelError);
      expect((error as Error).message).toBe("client went away");
      expect(Date.now() - started).toBeLessThan(500);
      const count = h.deltas.length;
      await Bun.sleep(100);
      expect(h.deltas.length).toBe(count);
      expect(count).toBeLessThan(5);
    });

    test("aborting while waiting for a response rejects promptly", async () => {
      setup.fake().enqueue({ hang: true });
      const h = harness();
      const promise = run(h, { timeoutMs: 10_000 });
      setTimeout(() => h.controller.abort(), 50);
      const started = Date.now();
      const error = await failure(promise);
      expect(error).not.toBeInstanceOf(ModelError);
      expect((error as Error).name).toBe("AbortError");
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    test("aborting during a tool call stops before the next model call", async () => {
      setup.fake().enqueue(setup.toolCall("search_memory", { query: "x" }), { text: "never" });
      const h = harness(
        {},
        {
          searchMemory: async () => {
            h.controller.abort();
            return { text: "late", factIds: [] };
          },
        },
      );
      expect(await failure(run(h))).not.toBeInstanceOf(ModelError);
      expect(setup.fake().requests.length).toBe(1);
    });

    test("an already-aborted signal sends nothing", async () => {
      const h = harness();
      h.controller.abort();
      expect(await failure(run(h))).not.toBeInstanceOf(ModelError);
      expect(setup.fake().requests.length).toBe(0);
    });
  });
}
