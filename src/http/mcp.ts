import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { Elysia } from "elysia";
import pkg from "../../package.json";
import type { AnswerEngine } from "../answers/engine";
import type { AuthContext } from "../auth/authenticate";
import type { Config } from "../config";
import type { Db } from "../db/types";
import type { FactIndexes } from "../memory/index/registry";
import { ApiError, internalError } from "../errors";
import type { Logger } from "../log";
import { findTool, toolsFor, type ToolContext } from "../mcp/tools";
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody, readBodyText } from "./body";
import { originAllowed } from "./origin";
import type { RequestPipeline } from "./pipeline";

/** Answered to a client whose requested protocol version we do not speak. */
const PREFERRED_PROTOCOL_VERSION = "2025-06-18";

interface McpDeps {
  db: Db;
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

function buildServer(deps: McpDeps, auth: AuthContext): Server {
  const server = new Server({ name: "memoryd", version: pkg.version }, { capabilities: { tools: {} } });
  const ctx: ToolContext = { db: deps.db, index: deps.index, engine: deps.engine, auth };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsFor(auth.scopes) as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = findTool(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${request.params.name}"`);
    try {
      if (tool.scope !== null && !auth.scopes.includes(tool.scope)) {
        throw new ApiError("scope_missing", 403, `this API key lacks the scope ${tool.scope} needed by ${tool.name}`, { scope: tool.scope });
      }
      const result = await tool.call(ctx, request.params.arguments ?? {});
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    } catch (error) {
      if (error instanceof ApiError) return toolError(error);
      deps.log.error("tool failed", { tool: tool.name, error: error instanceof Error ? error.message : String(error) });
      return toolError(internalError());
    }
  });
  return server;
}

/** Asks for our preferred version when the client's is one we do not speak (the SDK would pick its newest). */
function preferProtocolVersion(message: unknown): void {
  if (message === null || typeof message !== "object" || (message as { method?: unknown }).method !== "initialize") return;
  const params = (message as { params?: { protocolVersion?: unknown } }).params;
  if (params && typeof params.protocolVersion === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion)) {
    params.protocolVersion = PREFERRED_PROTOCOL_VERSION;
  }
}

async function handleMcp(deps: McpDeps, request: Request, auth: AuthContext): Promise<Response> {
  const text = await readBodyText(request);
  let parsedBody: unknown;
  try {
    parsedBody = parseJsonBody(text);
  } catch (error) {
    // Malformed JSON is the transport's to answer (a JSON-RPC parse error); too deep is ours.
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
  preferProtocolVersion(parsedBody);
  // Stateless: a fresh server and transport per request, as the SDK requires without sessions.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = buildServer(deps, auth);
  await server.connect(transport);
  const forwarded = new Request(request.url, { method: "POST", headers: request.headers, body: text });
  const response = await transport.handleRequest(forwarded, parsedBody === undefined ? {} : { parsedBody });
  // The JSON response is complete once returned; closing frees the per-request server.
  void server.close();
  return response;
}

/** 4.6: POST only; GET and DELETE are 405 with `Allow: POST`. */
export function mcpRoutes(deps: McpDeps & { pipeline: RequestPipeline }) {
  const notAllowed = (): never => {
    throw new ApiError("method_not_allowed", 405, "the tool server accepts POST only (stateless Streamable HTTP)", undefined, {
      allow: "POST",
    });
  };
  return new Elysia({ name: "mcp" })
    .use(deps.pipeline)
    // The Origin check comes before authentication: a page from a foreign origin learns nothing.
    .onTransform(({ request }) => {
      if (request.method === "POST" && !originAllowed(request, deps.config)) {
        throw new ApiError("forbidden_origin", 403, "requests from this Origin are not allowed (DNS-rebinding protection)");
      }
    })
    .post("/v1/mcp", ({ auth, request }) => handleMcp(deps, request, auth), { auth: "any-scope", parse: "none" })
    .get("/v1/mcp", notAllowed)
    .delete("/v1/mcp", notAllowed);
}
