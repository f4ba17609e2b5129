import { Kind, type TSchema } from "@sinclair/typebox";
import { Elysia, type DocumentDecoration, type InternalRoute } from "elysia";
import pkg from "../../package.json";
import { ERROR_STATUS } from "../errors";
import * as adminSchemas from "../schema/admin";
import * as agentSchemas from "../schema/agents";
import * as answerSchemas from "../schema/answers";
import * as authSchemas from "../schema/auth";
import * as browseSchemas from "../schema/browse";
import * as errorSchemas from "../schema/errors";
import * as memorySchemas from "../schema/memory";
import * as oauthSchemas from "../schema/oauth";
import * as webhookSchemas from "../schema/webhooks";
import type { RouteInput } from "../schema/validate";

/**
 * The OpenAPI 3.1 document, generated from the routes themselves: each route's declaration (its
 * `auth`/`admin`, `body`, `query`, `params`, `returns` and `detail.summary`) is read back from the
 * app, and every schema in it is the one the route validates or answers with, so the document
 * cannot drift from the code.
 */

type JsonObject = Record<string, unknown>;

/** Schemas by their export name: the document's `components.schemas`, referenced by name. */
const NAMED = new Map<TSchema, string>();
for (const module of [errorSchemas, authSchemas, memorySchemas, answerSchemas, adminSchemas, agentSchemas, browseSchemas, webhookSchemas, oauthSchemas]) {
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "object" && value !== null && Kind in value && !NAMED.has(value as TSchema)) NAMED.set(value as TSchema, name);
  }
}
const SCHEMA_BY_NAME = new Map([...NAMED].map(([schema, name]) => [name, schema]));

/** A TypeBox schema as plain JSON Schema (TypeBox's symbols dropped). */
const plain = (schema: TSchema): JsonObject => JSON.parse(JSON.stringify(schema)) as JsonObject;

/** A named schema by reference, any other inline. */
const schemaOf = (schema: TSchema): JsonObject => {
  const name = NAMED.get(schema);
  return name === undefined ? plain(schema) : { $ref: `#/components/schemas/${name}` };
};

/** What a route answers on success: the `returns` option of the request pipeline. */
export type Reply =
  | {
      /** 200 unless given. */
      status?: number;
      /** The shape of `data` in the `{ data }` envelope the handler's value is sent in. */
      data?: TSchema;
      description?: string;
      /** The other success the handler may send as its own Response (the answer stream). */
      or?: { status: number; media: string; description: string };
    }
  | {
      status?: number;
      /** The handler sends its own Response of this media type (a file, a page, a bare document). */
      media: string;
      /** The body's schema, when it is a bare JSON document (the OAuth endpoints'). */
      schema?: TSchema;
      description?: string;
      /** Errors in RFC 6749's shape rather than the envelope. */
      oauth?: boolean;
    };

const ERROR_RESPONSE = {
  description: "an error in the envelope; see the error codes",
  content: { "application/json": { schema: schemaOf(errorSchemas.ErrorEnvelope) } },
};
const OAUTH_ERROR_RESPONSE = {
  description: "an OAuth error (RFC 6749 §5.2)",
  content: { "application/json": { schema: schemaOf(errorSchemas.OAuthErrorBody) } },
};

/** A `returns` declaration as the operation's `responses`. */
export function replyResponses(reply: Reply): DocumentDecoration["responses"] {
  const status = String(reply.status ?? 200);
  const description = reply.description ?? "success";
  if ("media" in reply) {
    const schema = reply.schema === undefined ? { type: reply.media === "application/json" ? "object" : "string" } : schemaOf(reply.schema);
    return { [status]: { description, content: { [reply.media]: { schema } } }, default: reply.oauth ? OAUTH_ERROR_RESPONSE : ERROR_RESPONSE };
  }
  const data = reply.data === undefined ? {} : schemaOf(reply.data);
  const envelope = { "application/json": { schema: { type: "object", required: ["data"], properties: { data } } } };
  const other = reply.or && { [String(reply.or.status)]: { description: reply.or.description, content: { [reply.or.media]: { schema: { type: "string" } } } } };
  return { [status]: { description, content: envelope }, ...other, default: ERROR_RESPONSE } as DocumentDecoration["responses"];
}

/** An object schema's fields as parameters (`in: path` or `in: query`). */
function parameters(schema: TSchema | undefined, where: "path" | "query"): JsonObject[] {
  if (schema === undefined) return [];
  const shape = plain(schema) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(shape.properties ?? {}).map(([name, schema]) => ({
    name,
    in: where,
    required: where === "path" || (shape.required?.includes(name) ?? false),
    schema,
  }));
}

/**
 * What a page validates itself (it answers bad input with a page, not the envelope) declared for
 * the document: its query fields, or its form body.
 */
export function pageInput(where: "query" | "form", schema: TSchema): DocumentDecoration {
  return where === "query"
    ? { parameters: parameters(schema, "query") as unknown as DocumentDecoration["parameters"] }
    : { requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: schemaOf(schema) } } } };
}

/** A route's declaration as an OpenAPI operation. */
function operationOf(route: InternalRoute, detail: DocumentDecoration): JsonObject {
  const hooks = route.hooks as { body?: RouteInput<TSchema>; query?: RouteInput<TSchema>; params?: RouteInput<TSchema> };
  const params = [...parameters(hooks.params?.schema, "path"), ...parameters(hooks.query?.schema, "query"), ...(detail.parameters ?? [])];
  const body = hooks.body && { required: true, content: { [hooks.body.media]: { schema: schemaOf(hooks.body.schema) } } };
  const { hide: _hide, ...operation } = detail;
  return {
    ...operation,
    security: detail.security ?? [],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: detail.responses ?? { "200": { description: "success" }, default: ERROR_RESPONSE },
  };
}

/** The components every `$ref` in the document names. */
function referencedSchemas(document: JsonObject): JsonObject {
  const names = new Set(Array.from(JSON.stringify(document).matchAll(/"#\/components\/schemas\/(\w+)"/g), (match) => match[1] ?? ""));
  return Object.fromEntries(
    [...names].sort().flatMap((name) => {
      const schema = SCHEMA_BY_NAME.get(name);
      return schema === undefined ? [] : [[name, plain(schema)]];
    }),
  );
}

/** The document for these routes: every route but preflights and those declared `hide`. */
export function openApiDocument(routes: readonly InternalRoute[]): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const detail = (route.hooks.detail ?? {}) as DocumentDecoration;
    if (detail.hide || route.method === "OPTIONS") continue;
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route, detail) };
  }
  const document: JsonObject = {
    openapi: "3.1.0",
    info: {
      title: "memoryd",
      version: pkg.version,
      description: `Workspace memory for AI agents. Errors: ${Object.entries(ERROR_STATUS)
        .map(([code, status]) => `${code} (${status})`)
        .join(", ")}.`,
    },
    paths,
  };
  return {
    ...document,
    components: {
      schemas: referencedSchemas(document),
      securitySchemes: {
        bearerKey: { type: "http", scheme: "bearer", description: "an API key (Authorization: Bearer ak_…) or an OAuth access token (mat_…) granted from one" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-Api-Key" },
        adminToken: { type: "http", scheme: "bearer", description: "the admin credential (MEMORYD_ADMIN_TOKEN or the adm_… token)" },
      },
    },
  };
}

/** The security requirements the pipeline's `auth` and `admin` options declare. */
type Security = NonNullable<DocumentDecoration["security"]>;
export const KEY_SECURITY: Security = [{ bearerKey: [] }, { apiKeyHeader: [] }];
export const ADMIN_SECURITY: Security = [{ adminToken: [] }];

/** GET /openapi.json: the document for the app's routes, built once on first request (routes do not change after start). */
export function openApiRoutes(deps: { routes: () => readonly InternalRoute[] }) {
  let document: JsonObject | null = null;
  return new Elysia({ name: "openapi" }).get(
    "/openapi.json",
    () => {
      document ??= openApiDocument(deps.routes());
      return Response.json(document, { headers: { "cache-control": "no-store" } });
    },
    { detail: { hide: true } },
  );
}
