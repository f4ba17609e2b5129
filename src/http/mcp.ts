import type { CallToolResult, McpHttpHandler, McpRequestContext, Server } from "@modelcontextprotocol/server";
import { Elysia } from "elysia";
import pkg from "../../package.json";
import type { AnswerEngine } from "../answers/engine";
import { secretFromHeaders, type AuthContext } from "../auth/authenticate";
import type { Config } from "../config";
import type { DatabaseOutage } from "../db/outage";
import type { Db } from "../db/types";
import { isDatabaseUnavailable } from "../db/unavailable";
import type { FactIndexes } from "../memory/index/registry";
import { ApiError, internalError } from "../errors";
import type { Logger } from "../log";
import { findTool, toolsFor, type ToolDefinition } from "../mcp/tools";
import { issuerOf, resourceMetadataUrl } from "../oauth/metadata";
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody, readBodyText } from "./body";
import { originAllowed } from "./origin";
import type { RequestPipeline } from "./pipeline";

/** Answered to a 2025-era client whose requested protocol version we do not speak. */
const PREFERRED_PROTOCOL_VERSION = "2025-06-18";

/**
 * How long a 2026-07-28 client may keep a key's tool list: the list depends only on the key's
 * scopes, which never change for a key, so a few minutes is safe; it is the key's own ("private").
 */
const TOOL_LIST_TTL_MS = 300_000;

type Sdk = typeof import("@modelcontextprotocol/server");
let sdkLoading: Promise<Sdk> | null = null;

/**
 * The MCP SDK loads on the first MCP request, not at start: a server that is never asked over
 * MCP, and every CLI command, skip its module graph (a fifth of the start-up time).
 */
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= import("@modelcontextprotocol/server");
  return sdkLoading;
}

interface McpDeps {
  db: Db;
  outage: DatabaseOutage;
  index: FactIndexes;
  engine: AnswerEngine;
  config: Config;
  log: Logger;
}

/** Errors decided inside a tool are results the model can read, not protocol failures. */
function toolError(error: ApiError): CallToolResult {
  const body = { error: error.code, message: error.message, http_status: error.status };
  return { content: [{ type: "text", text: JSON.stringify(body) }], isError: true };
}

/**
 * One tool call under one key: its result, or the tool error the model reads. A database that
 * is away is no tool error: it throws `database_unavailable`, which the request answers as a
 * JSON-RPC error at HTTP 503 with Retry-After (handleMcp).
 */
async function callTool(deps: McpDeps, auth: AuthContext, tool: ToolDefinition, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    if (tool.scope !== null && !auth.scopes.includes(tool.scope)) {
      throw new ApiError("scope_missing", `this API key lacks the scope ${tool.scope} needed by ${tool.name}`, { scope: tool.scope });
    }
    const result = await tool.call({ db: deps.db, index: deps.index, engine: deps.engine, auth }, args);
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw deps.outage.refused(error);
    if (error instanceof ApiError && error.code === "database_unavailable") throw error;
    if (error instanceof ApiError) return toolError(error);
    deps.log.error("tool failed", { tool: tool.name, error: error instanceof Error ? error.message : String(error) });
    return toolError(internalError());
  }
}

/** What one MCP request carries into the SDK's server: its authentication, and a refusal its tool call met. */
interface McpCall {
  auth: AuthContext;
  refused: ApiError | null;
}

function buildServer(sdk: Sdk, deps: McpDeps, call: McpCall): Server {
  const { auth } = call;
  const server = new sdk.Server(
    { name: "memoryd", version: pkg.version },
    { capabilities: { tools: {} }, cacheHints: { "tools/list": { ttlMs: TOOL_LIST_TTL_MS, cacheScope: "private" } } },
  );
  server.setRequestHandler("tools/list", async () => ({ tools: toolsFor(auth.scopes) }));
  server.setRequestHandler("tools/call", async (request): Promise<CallToolResult> => {
    const tool = findTool(request.params.name);
    if (!tool) throw new sdk.ProtocolError(sdk.ProtocolErrorCode.InvalidParams, `unknown tool "${request.params.name}"`);
    try {
      return await callTool(deps, auth, tool, request.params.arguments ?? {});
    } catch (error) {
      if (error instanceof ApiError) call.refused = error;
      throw error;
    }
  });
  return server;
}

/**
 * Incremental consent (the MCP authorization spec's scope challenge): an OAuth access token
 * calling a tool it lacks the scope for gets HTTP 403 with `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope=...`, so the client can ask the person for that scope. An API
 * key cannot be re-consented: it keeps getting the tool error result.
 */
function challengeMissingScope(config: Config, request: Request, auth: AuthContext, message: unknown): void {
  if (!secretFromHeaders(request.headers)?.startsWith("mat_")) return;
  const call = message as { method?: unknown; params?: { name?: unknown } } | null;
  if (call === null || typeof call !== "object" || call.method !== "tools/call" || typeof call.params?.name !== "string") return;
  const tool = findTool(call.params.name);
  if (tool === undefined || tool.scope === null || auth.scopes.includes(tool.scope)) return;
  const metadata = resourceMetadataUrl(issuerOf(request, config));
  const description = `this access token lacks the scope ${tool.scope} needed by ${tool.name}`;
  throw new ApiError(
    "scope_missing",
    description,
    { scope: tool.scope },
    {
      "www-authenticate": `Bearer error="insufficient_scope", scope="${tool.scope}", resource_metadata="${metadata}", error_description="${description}"`,
    },
  );
}

/** Asks for our preferred version when a 2025-era client's is one we do not speak (the SDK would pick its newest). */
function preferProtocolVersion(sdk: Sdk, message: unknown): void {
  if (message === null || typeof message !== "object" || (message as { method?: unknown }).method !== "initialize") return;
  const params = (message as { params?: { protocolVersion?: unknown } }).params;
  if (params && typeof params.protocolVersion === "string" && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion)) {
    params.protocolVersion = PREFERRED_PROTOCOL_VERSION;
  }
}

/**
 * Both eras on one endpoint. 2026-07-28 (stateless, `_meta` envelope, `server/discover`, header
 * checks, its error codes) is the SDK's modern handler; the 2025 revisions keep the stateless
 * transport they had, answering with plain JSON rather than the SDK fallback's SSE, so existing
 * clients see exactly what they saw. Either way a server is built per request, with that
 * request's authentication — except for a plain 2025-era tool call (plainToolCall), answered
 * directly.
 */
interface McpServing {
  modern: McpHttpHandler;
  callOf: WeakMap<Request, McpCall>;
}

function mcpServing(sdk: Sdk, deps: McpDeps): McpServing {
  const callOf = new WeakMap<Request, McpCall>();
  const factory = (ctx: McpRequestContext): Server => {
    const call = ctx.requestInfo === undefined ? undefined : callOf.get(ctx.requestInfo);
    if (call === undefined) throw new Error("an MCP request reached the SDK without its authentication");
    return buildServer(sdk, deps, call);
  };
  const modern = sdk.createMcpHandler(factory, {
    legacy: "reject",
    onerror: (error) => deps.log.debug("mcp request refused", { error: error.message }),
  });
  return { modern, callOf };
}

async function serveLegacy(sdk: Sdk, deps: McpDeps, request: Request, call: McpCall, parsedBody: unknown): Promise<Response> {
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = buildServer(sdk, deps, call);
  await server.connect(transport);
  const response = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
  // The JSON response is complete once returned; closing frees the per-request server.
  void server.close();
  return response;
}

/** A 2025-era `tools/call` of one of our tools that nothing about the request makes unusual. */
interface PlainToolCall {
  id: string | number;
  tool: ToolDefinition;
  args: Record<string, unknown>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/**
 * The hot path of the tool server, a 2025-era `tools/call`, answered without building an SDK
 * server and transport for it (they validate the whole result, a tenth of a search's cost). Only
 * a request the SDK's transport would accept as it stands qualifies: both media types accepted,
 * a JSON body that is one well-formed call of a known tool, a protocol version header absent or
 * one the SDK serves. Anything else, every error included, goes through the SDK, so the wire
 * stays the SDK's own.
 */
function plainToolCall(sdk: Sdk, request: Request, message: unknown): PlainToolCall | null {
  const accept = request.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return null;
  if (request.headers.get("content-type") !== "application/json") return null;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if (!isPlainObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call") return null;
  if (Object.keys(message).some((key) => key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params")) return null;
  const { id, params } = message;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) return null;
  if (!isPlainObject(params) || typeof params.name !== "string" || Object.keys(params).some((key) => key !== "name" && key !== "arguments")) return null;
  const tool = findTool(params.name);
  if (tool === undefined || !(params.arguments === undefined || isPlainObject(params.arguments))) return null;
  return { id, tool, args: params.arguments ?? {} };
}

/**
 * The JSON-RPC reply to a tool call. A result carries its data twice, as JSON text and as
 * `structuredContent`; that text is the structured content's own serialisation, so it is
 * written in place rather than serialising the data a second time.
 */
function toolCallReply(id: string | number, result: CallToolResult): string {
  const [content] = result.content;
  if (result.structuredContent === undefined || result.content.length !== 1 || content?.type !== "text") {
    return JSON.stringify({ result, jsonrpc: "2.0", id });
  }
  const text = content.text;
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

async function handleMcp(deps: McpDeps, servingOf: (sdk: Sdk) => McpServing, request: Request, auth: AuthContext): Promise<Response> {
  const sdk = await loadSdk();
  const text = await readBodyText(request);
  let parsedBody: unknown;
  try {
    parsedBody = parseJsonBody(text);
  } catch (error) {
    // Malformed JSON is the SDK's to answer (a JSON-RPC parse error); too deep is ours.
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw error;
    parsedBody = undefined;
  }
  // JSON-RPC batches were dropped from MCP (2025-06-18); one message per POST keeps every call
  // under its own authentication, rate count and error.
  if (Array.isArray(parsedBody)) {
    return Response.json(
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are not supported; send one JSON-RPC message per POST" } },
      { status: 400 },
    );
  }
  challengeMissingScope(deps.config, request, auth, parsedBody);
  preferProtocolVersion(sdk, parsedBody);
  const legacy = parsedBody === undefined || (await sdk.isLegacyRequest(request, parsedBody));
  const plain = legacy ? plainToolCall(sdk, request, parsedBody) : null;
  if (plain !== null) {
    try {
      return new Response(toolCallReply(plain.id, await callTool(deps, auth, plain.tool, plain.args)), { headers: { "content-type": "application/json" } });
    } catch (error) {
      if (error instanceof ApiError && error.code === "database_unavailable") return error.toJsonRpcResponse(plain.id);
      throw error;
    }
  }
  const forwarded = new Request(request.url, { method: "POST", headers: request.headers, body: text });
  const call: McpCall = { auth, refused: null };
  let response: Response;
  if (legacy) response = await serveLegacy(sdk, deps, forwarded, call, parsedBody);
  else {
    const serving = servingOf(sdk);
    serving.callOf.set(forwarded, call);
    response = await serving.modern.fetch(forwarded, { parsedBody });
  }
  // The SDK answered the refused call as a JSON-RPC error at HTTP 200: a client should see 503 and Retry-After.
  if (call.refused?.code === "database_unavailable") return call.refused.toJsonRpcResponse(messageId(parsedBody));
  return response;
}

/** The id of a JSON-RPC request, or null. */
function messageId(message: unknown): string | number | null {
  const id = isPlainObject(message) ? message.id : null;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** The tool server (docs/mcp.md): POST only; GET and DELETE are 405 with `Allow: POST`. */
export function mcpRoutes(deps: McpDeps & { pipeline: RequestPipeline }) {
  const notAllowed = (): never => {
    throw new ApiError("method_not_allowed", "the tool server accepts POST only (stateless Streamable HTTP)", undefined, {
      allow: "POST",
    });
  };
  // The modern handler is built once, with the SDK, on the first request that needs it.
  let serving: McpServing | null = null;
  const servingOf = (sdk: Sdk): McpServing => (serving ??= mcpServing(sdk, deps));
  return (
    new Elysia({ name: "mcp" })
      .use(deps.pipeline)
      // The Origin check comes before authentication: a page from a foreign origin learns nothing.
      .onTransform(({ request }) => {
        if (request.method === "POST" && !originAllowed(request, deps.config)) {
          throw new ApiError("forbidden_origin", "requests from this Origin are not allowed (DNS-rebinding protection)");
        }
      })
      .post("/v1/mcp", ({ auth, request }) => handleMcp(deps, servingOf, request, auth), {
        auth: "any-scope",
        parse: "none",
        returns: { media: "application/json", description: "a JSON-RPC 2.0 response, or its event stream" },
        detail: { summary: "MCP tool server (stateless Streamable HTTP, JSON-RPC 2.0)" },
      })
      .get("/v1/mcp", notAllowed, { detail: { hide: true } })
      .delete("/v1/mcp", notAllowed, { detail: { hide: true } })
  );
}
