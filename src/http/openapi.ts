import { Type, type TSchema } from "@sinclair/typebox";
import pkg from "../../package.json";
import { ERROR_STATUS } from "../errors";
import { ChangeCreditsRequest, CreateKeyRequest, CreateWorkspaceRequest, RecentAnswersQuery, TeamMemberRequest } from "../schema/admin";
import { CreateAgentInput, UpdateAgentInput, Agent } from "../schema/agents";
import { Answer, AnswerRequest, GetAnswerQuery, QueuedAnswer, Usage, Source } from "../schema/answers";
import { ApiKeyView, WhoamiResult } from "../schema/auth";
import { AdminFactQuery, FactHistory, FactPage } from "../schema/browse";
import { ErrorEnvelope, OAuthErrorBody } from "../schema/errors";
import {
  AuthorizationRequest,
  AuthorizationServerMetadata,
  ClientRegistration,
  ClientRegistrationRequest,
  ConsentForm,
  ProtectedResourceMetadata,
  RevocationRequest,
  TokenRequest,
  TokenResponse,
} from "../schema/oauth";
import { CreatedWebhook, CreateWebhookRequest, UpdateWebhookRequest, Webhook } from "../schema/webhooks";
import {
  ContextPacket,
  ContextRequest,
  FactList,
  FactListQuery,
  FactQuery,
  FactWithHistory,
  SearchRequest,
  SearchResult,
  TeachRequest,
  TeachResult,
} from "../schema/memory";

/**
 * The OpenAPI 3.1 document, generated from the one TypeBox schema set: every schema below is the
 * schema the routes validate with or answer with, so the document cannot drift from the code.
 * What is written here is only what a schema cannot say: paths, methods, statuses, auth.
 */

/** A TypeBox schema as plain JSON Schema (TypeBox's symbols dropped). */
const json = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const SCHEMAS: Record<string, TSchema> = {
  Error: ErrorEnvelope,
  WhoamiResult,
  SearchRequest,
  SearchResult,
  ContextRequest,
  ContextPacket,
  TeachRequest,
  TeachResult,
  FactList,
  FactWithHistory,
  AnswerRequest,
  Answer,
  QueuedAnswer,
  Usage,
  Source,
  ApiKeyView,
  CreatedKey: Type.Composite([ApiKeyView, Type.Object({ secret: Type.String({ description: "shown once" }) })]),
  CreateWorkspaceRequest,
  ChangeCreditsRequest,
  CreateKeyRequest,
  TeamMemberRequest,
  Agent,
  CreateAgentInput,
  UpdateAgentInput,
  FactPage,
  FactHistory,
  CreateWebhookRequest,
  UpdateWebhookRequest,
  Webhook,
  CreatedWebhook,
  OAuthError: OAuthErrorBody,
  ClientRegistrationRequest,
  ClientRegistration,
  ConsentForm,
  TokenRequest,
  TokenResponse,
  RevocationRequest,
  ProtectedResourceMetadata,
  AuthorizationServerMetadata,
};

type Auth = "key" | "admin" | "none";
interface Operation {
  summary: string;
  auth: Auth;
  scope?: string;
  body?: string;
  /** The body is form-encoded (the OAuth endpoints) rather than JSON. */
  form?: boolean;
  /** OAuth endpoints: the success schema is the body itself and errors are RFC 6749's shape. */
  oauth?: boolean;
  query?: TSchema;
  path?: string[];
  /** The success response: a `{data}` envelope of `schema`, or text of `contentType`. */
  ok: { status: number; schema?: string; description?: string; contentType?: string };
  /** A second success response (the queued 202 of POST /v1/answers). */
  also?: { status: number; schema: string; description: string };
  headers?: Record<string, unknown>[];
}

function operation(op: Operation): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  for (const name of op.path ?? []) parameters.push({ name, in: "path", required: true, schema: { type: "string" } });
  if (op.query) {
    const q = json(op.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {})) {
      parameters.push({ name, in: "query", required: q.required?.includes(name) ?? false, schema });
    }
  }
  parameters.push(...(op.headers ?? []));
  const envelope = (name: string) => ({ "application/json": { schema: { type: "object", required: ["data"], properties: { data: ref(name) } } } });
  const bare = (name: string) => ({ "application/json": { schema: ref(name) } });
  const okContent = op.ok.contentType
    ? { [op.ok.contentType]: { schema: { type: "string" } } }
    : op.ok.schema
      ? op.oauth
        ? bare(op.ok.schema)
        : envelope(op.ok.schema)
      : undefined;
  const bodyType = op.form ? "application/x-www-form-urlencoded" : "application/json";
  return {
    summary: op.summary,
    ...(op.scope ? { description: `Needs the \`${op.scope}\` scope.` } : {}),
    security: op.auth === "none" ? [] : op.auth === "admin" ? [{ adminToken: [] }] : [{ bearerKey: [] }, { apiKeyHeader: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { [bodyType]: { schema: ref(op.body) } } } } : {}),
    responses: {
      [String(op.ok.status)]: { description: op.ok.description ?? "success", ...(okContent ? { content: okContent } : {}) },
      ...(op.also ? { [String(op.also.status)]: { description: op.also.description, content: envelope(op.also.schema) } } : {}),
      default: op.oauth
        ? { description: "an OAuth error (RFC 6749 §5.2)", content: { "application/json": { schema: ref("OAuthError") } } }
        : { description: "an error in the envelope; see the error codes", content: { "application/json": { schema: ref("Error") } } },
    },
  };
}

const ws = ["slug"];

/** The document served at /openapi.json. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {
    "/healthz": { get: operation({ summary: "Liveness probe", auth: "none", ok: { status: 200 } }) },
    "/readyz": { get: operation({ summary: "Readiness probe (503 while shutting down or without the database)", auth: "none", ok: { status: 200 } }) },
    "/v1/whoami": { get: operation({ summary: "The calling key", auth: "key", ok: { status: 200, schema: "WhoamiResult" } }) },
    "/v1/memory/search": {
      post: operation({
        summary: "Search memory",
        auth: "key",
        scope: "memory.read",
        body: "SearchRequest",
        ok: { status: 200, schema: "SearchResult" },
      }),
    },
    "/v1/memory/context": {
      post: operation({
        summary: "Context packet",
        auth: "key",
        scope: "memory.read",
        body: "ContextRequest",
        ok: { status: 200, schema: "ContextPacket" },
      }),
    },
    "/v1/memory/facts": {
      post: operation({ summary: "Teach facts", auth: "key", scope: "memory.write", body: "TeachRequest", ok: { status: 202, schema: "TeachResult" } }),
      get: operation({
        summary: "List the facts the key may see",
        auth: "key",
        scope: "memory.read",
        query: FactListQuery,
        ok: { status: 200, schema: "FactList" },
      }),
    },
    "/v1/memory/facts/{fact_id}": {
      get: operation({
        summary: "One fact and the earlier versions of its claim",
        auth: "key",
        scope: "memory.read",
        path: ["fact_id"],
        query: FactQuery,
        ok: { status: 200, schema: "FactWithHistory" },
      }),
      delete: operation({
        summary: "Delete a fact on every instance",
        auth: "key",
        scope: "memory.write",
        path: ["fact_id"],
        query: FactQuery,
        ok: { status: 200 },
      }),
    },
    "/v1/answers": {
      post: operation({
        summary: "Ask the worker: streamed (server-sent events) or queued",
        auth: "key",
        scope: "answers.write",
        body: "AnswerRequest",
        ok: {
          status: 200,
          contentType: "text/event-stream",
          description:
            "stream: true. Events, in order: answer.created {answer_id, conversation_id}; answer.delta {text}…; then answer.completed (an Answer) or answer.failed {error: {code, message}}; then done {ok: true}.",
        },
        also: { status: 202, schema: "QueuedAnswer", description: "stream: false: queued; poll GET /v1/answers/{answer_id}" },
        headers: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            schema: { type: "string", pattern: "^[\\x20-\\x7E]{1,200}$" },
            description: "queued mode: a replay returns the same answer_id",
          },
        ],
      }),
    },
    "/v1/answers/{answer_id}": {
      get: operation({
        summary: "Poll an answer",
        auth: "key",
        scope: "answers.write",
        path: ["answer_id"],
        query: GetAnswerQuery,
        ok: { status: 200, schema: "Answer" },
      }),
    },
    "/v1/mcp": { post: operation({ summary: "MCP tool server (stateless Streamable HTTP, JSON-RPC 2.0)", auth: "key", ok: { status: 200 } }) },
    "/v1/admin/status": {
      get: operation({
        summary: "The database, migrations, answer queue, counts and this process's index memory (memoryd doctor)",
        auth: "admin",
        ok: { status: 200 },
      }),
    },
    "/v1/admin/backup": {
      get: operation({
        summary: "A consistent snapshot of the embedded database (gzipped tar); 409 backup_unsupported on PostgreSQL",
        auth: "admin",
        ok: { status: 200, contentType: "application/gzip", description: "the data directory as a gzipped tarball, for memoryd restore" },
      }),
    },
    "/v1/admin/workspaces": {
      get: operation({ summary: "Workspaces", auth: "admin", ok: { status: 200 } }),
      post: operation({ summary: "Create a workspace", auth: "admin", body: "CreateWorkspaceRequest", ok: { status: 201 } }),
    },
    "/v1/admin/workspaces/{slug}": { get: operation({ summary: "A workspace with its counts", auth: "admin", path: ws, ok: { status: 200 } }) },
    "/v1/admin/workspaces/{slug}/credits": {
      post: operation({ summary: "Set or add credits", auth: "admin", path: ws, body: "ChangeCreditsRequest", ok: { status: 200 } }),
    },
    "/v1/admin/workspaces/{slug}/keys": {
      get: operation({ summary: "A workspace's keys", auth: "admin", path: ws, ok: { status: 200 } }),
      post: operation({
        summary: "Create a key (the secret is shown once)",
        auth: "admin",
        path: ws,
        body: "CreateKeyRequest",
        ok: { status: 201, schema: "CreatedKey" },
      }),
    },
    "/v1/admin/keys/{key_id}/revoke": {
      post: operation({ summary: "Revoke a key", auth: "admin", path: ["key_id"], ok: { status: 200, schema: "ApiKeyView" } }),
    },
    "/v1/admin/workspaces/{slug}/agents": {
      get: operation({ summary: "A workspace's agents", auth: "admin", path: ws, ok: { status: 200 } }),
      post: operation({ summary: "Create an agent", auth: "admin", path: ws, body: "CreateAgentInput", ok: { status: 201, schema: "Agent" } }),
    },
    "/v1/admin/workspaces/{slug}/agents/{agent_slug}": {
      get: operation({ summary: "An agent", auth: "admin", path: [...ws, "agent_slug"], ok: { status: 200, schema: "Agent" } }),
      patch: operation({
        summary: "Change an agent's settings",
        auth: "admin",
        path: [...ws, "agent_slug"],
        body: "UpdateAgentInput",
        ok: { status: 200, schema: "Agent" },
      }),
      delete: operation({ summary: "Delete an agent (not main)", auth: "admin", path: [...ws, "agent_slug"], ok: { status: 200 } }),
    },
    "/v1/admin/workspaces/{slug}/team": {
      get: operation({ summary: "Team members", auth: "admin", path: ws, ok: { status: 200 } }),
      post: operation({ summary: "Add a team member", auth: "admin", path: ws, body: "TeamMemberRequest", ok: { status: 201 } }),
    },
    "/v1/admin/workspaces/{slug}/team/{name}": {
      delete: operation({ summary: "Remove a team member", auth: "admin", path: [...ws, "name"], ok: { status: 200 } }),
    },
    "/v1/admin/workspaces/{slug}/facts": {
      get: operation({ summary: "Browse facts", auth: "admin", path: ws, query: AdminFactQuery, ok: { status: 200, schema: "FactPage" } }),
      post: operation({ summary: "Teach facts as the workspace", auth: "admin", path: ws, body: "TeachRequest", ok: { status: 202, schema: "TeachResult" } }),
    },
    "/v1/admin/facts/{fact_id}": {
      get: operation({ summary: "A fact and its supersession chain", auth: "admin", path: ["fact_id"], ok: { status: 200, schema: "FactHistory" } }),
      delete: operation({ summary: "Delete a fact", auth: "admin", path: ["fact_id"], ok: { status: 200 } }),
    },
    "/v1/admin/facts/{fact_id}/pin": { post: operation({ summary: "Pin a fact", auth: "admin", path: ["fact_id"], ok: { status: 200 } }) },
    "/v1/admin/facts/{fact_id}/unpin": { post: operation({ summary: "Unpin a fact", auth: "admin", path: ["fact_id"], ok: { status: 200 } }) },
    "/v1/admin/workspaces/{slug}/webhooks": {
      get: operation({ summary: "Webhook endpoints", auth: "admin", path: ws, ok: { status: 200 } }),
      post: operation({
        summary: "Add a webhook endpoint (its signing secret is shown once)",
        auth: "admin",
        path: ws,
        body: "CreateWebhookRequest",
        ok: { status: 201, schema: "CreatedWebhook" },
      }),
    },
    "/v1/admin/webhooks/{webhook_id}": {
      get: operation({ summary: "A webhook endpoint", auth: "admin", path: ["webhook_id"], ok: { status: 200, schema: "Webhook" } }),
      patch: operation({
        summary: "Change a webhook endpoint",
        auth: "admin",
        path: ["webhook_id"],
        body: "UpdateWebhookRequest",
        ok: { status: 200, schema: "Webhook" },
      }),
      delete: operation({ summary: "Delete a webhook endpoint", auth: "admin", path: ["webhook_id"], ok: { status: 200 } }),
    },
    "/v1/admin/webhooks/{webhook_id}/deliveries": {
      get: operation({ summary: "A webhook endpoint's delivery log", auth: "admin", path: ["webhook_id"], ok: { status: 200 } }),
    },
    "/v1/admin/workspaces/{slug}/end-users": { get: operation({ summary: "End users", auth: "admin", path: ws, ok: { status: 200 } }) },
    "/v1/admin/workspaces/{slug}/end-users/{end_user_id}/export": {
      get: operation({
        summary: "One end user's facts as JSONL",
        auth: "admin",
        path: [...ws, "end_user_id"],
        ok: { status: 200, contentType: "application/x-ndjson" },
      }),
    },
    "/v1/admin/workspaces/{slug}/end-users/{end_user_id}/forget": {
      post: operation({ summary: "Forget an end user", auth: "admin", path: [...ws, "end_user_id"], ok: { status: 200 } }),
    },
    "/v1/admin/workspaces/{slug}/answers": {
      get: operation({ summary: "Recent answers", auth: "admin", path: ws, query: RecentAnswersQuery, ok: { status: 200 } }),
    },
    "/.well-known/oauth-protected-resource": {
      get: operation({
        summary: "MCP authorization: protected-resource metadata (RFC 9728)",
        auth: "none",
        oauth: true,
        ok: { status: 200, schema: "ProtectedResourceMetadata" },
      }),
    },
    "/.well-known/oauth-protected-resource/v1/mcp": {
      get: operation({
        summary: "The same, at the path RFC 9728 derives from /v1/mcp",
        auth: "none",
        oauth: true,
        ok: { status: 200, schema: "ProtectedResourceMetadata" },
      }),
    },
    "/.well-known/oauth-authorization-server": {
      get: operation({
        summary: "MCP authorization: authorization-server metadata (RFC 8414)",
        auth: "none",
        oauth: true,
        ok: { status: 200, schema: "AuthorizationServerMetadata" },
      }),
    },
    "/oauth/register": {
      post: operation({
        summary: "Dynamic client registration (RFC 7591); every client is public",
        auth: "none",
        oauth: true,
        body: "ClientRegistrationRequest",
        ok: { status: 201, schema: "ClientRegistration" },
      }),
    },
    "/oauth/authorize": {
      get: operation({
        summary: "The consent page (authorization code with PKCE S256)",
        auth: "none",
        oauth: true,
        query: AuthorizationRequest,
        ok: { status: 200, contentType: "text/html" },
      }),
      post: operation({
        summary: "The consent page's answer: 303 to the client's redirect URI with a code or an error",
        auth: "none",
        oauth: true,
        form: true,
        body: "ConsentForm",
        ok: { status: 303, description: "redirect to the client" },
      }),
    },
    "/oauth/token": {
      post: operation({
        summary: "Tokens for a code (PKCE) or a refresh token (rotated)",
        auth: "none",
        oauth: true,
        form: true,
        body: "TokenRequest",
        ok: { status: 200, schema: "TokenResponse" },
      }),
    },
    "/oauth/revoke": {
      post: operation({
        summary: "Revoke a token and its grant (RFC 7009)",
        auth: "none",
        oauth: true,
        form: true,
        body: "RevocationRequest",
        ok: { status: 200 },
      }),
    },
    "/metrics": {
      get: operation({ summary: "Prometheus metrics (loopback, or MEMORYD_METRICS_TOKEN)", auth: "none", ok: { status: 200, contentType: "text/plain" } }),
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "memoryd",
      version: pkg.version,
      description: `Workspace memory for AI agents. Errors: ${Object.entries(ERROR_STATUS)
        .map(([code, status]) => `${code} (${status})`)
        .join(", ")}.`,
    },
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, json(schema)])),
      securitySchemes: {
        bearerKey: { type: "http", scheme: "bearer", description: "an API key (Authorization: Bearer ak_…) or an OAuth access token (mat_…) granted from one" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-Api-Key" },
        adminToken: { type: "http", scheme: "bearer", description: "the admin credential (MEMORYD_ADMIN_TOKEN or the adm_… token)" },
      },
    },
  };
}
