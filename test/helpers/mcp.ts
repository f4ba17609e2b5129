import { afterAll, beforeAll } from "bun:test";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Db } from "../../src/db/types";
import { answersHarness, type AnswersHarness } from "./answers";
import { createFakeAnthropic, type FakeAnthropic } from "./fake-anthropic";

/** The stateless revision: no initialize, a `_meta` envelope on every request. */
export const MODERN = "2026-07-28";

/** The official SDK v1 client, configured the way users configure theirs: URL plus an auth header. */
export async function connectMcp(baseUrl: string, secret: string): Promise<Client> {
  const client = new Client({ name: "memoryd-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * The SDK v2 client: its default mode speaks the 2025 handshake; `auto` probes with
 * `server/discover`; `{ pin }` speaks exactly that revision or fails.
 */
export async function connectMcpV2(baseUrl: string, secret: string, mode?: "legacy" | "auto" | { pin: string }): Promise<ClientV2> {
  const client = new ClientV2({ name: "memoryd-test-v2", version: "1.0.0" }, mode === undefined ? {} : { versionNegotiation: { mode } });
  const transport = new TransportV2(new URL("/v1/mcp", baseUrl), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } });
  await client.connect(transport);
  return client;
}

/** A 2026-07-28 JSON-RPC request: the params with the revision's `_meta` envelope. */
export function modernBody(method: string, params: Record<string, unknown>, id: number | string) {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
      },
    },
  };
}

/** A tool result's JSON text, parsed. */
export function resultJson(result: unknown): any {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return JSON.parse(content[0]!.text);
}

/** A raw JSON-RPC POST to the tool server. */
export async function rpc(
  baseUrl: string,
  body: unknown,
  options: { key?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(new URL("/v1/mcp", baseUrl), {
    method: options.method ?? "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...options.headers,
    },
    body: options.method === "GET" || options.method === "DELETE" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

/** An answers harness listening on loopback with a fake Anthropic behind it, for MCP clients. */
export interface ServedOverHttp {
  fake: FakeAnthropic;
  harness: AnswersHarness;
  base: string;
  /** Closes the client with the suite. */
  closeLater<T extends { close(): Promise<void> }>(client: T): T;
}

/** Registers the suite's hooks: started before its tests, stopped (clients first) after them. */
export function servedOverHttp(get: () => { db: Db }): ServedOverHttp {
  const clients: { close(): Promise<void> }[] = [];
  const served = {
    closeLater: <T extends { close(): Promise<void> }>(client: T): T => {
      clients.push(client);
      return client;
    },
  } as ServedOverHttp;
  beforeAll(async () => {
    served.fake = createFakeAnthropic();
    served.harness = await answersHarness(get().db, { anthropicUrl: served.fake.url });
    served.harness.app.listen({ port: 0, hostname: "127.0.0.1" });
    served.base = `http://127.0.0.1:${served.harness.app.server!.port}`;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await served.harness.app.stop(true);
    await served.harness.stop();
    await served.fake.stop();
  });
  return served;
}
