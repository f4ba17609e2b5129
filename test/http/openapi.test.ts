/**
 * /openapi.json: a valid OpenAPI 3.1 document (checked by an OpenAPI validator) that documents
 * every route the app serves, and whose schemas the app's real responses satisfy (checked with Ajv).
 */
import { expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020";
import { Type } from "@sinclair/typebox";
import { input } from "../../src/schema/validate";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp, uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

/** Routes the document leaves out on purpose: the app's pages and assets, the catch-alls, MCP's 405s. */
const UNDOCUMENTED = /^(GET \/app|POST \/app|DELETE \/app|GET \/docs|GET \/openapi\.json|OPTIONS |ALL |GET \/v1\/mcp|DELETE \/v1\/mcp)/;

describeEachDb("OpenAPI", (get) => {
  test("the document is valid OpenAPI 3.1 and lists every route the app serves", async () => {
    const app = testApp(get().db);
    const res = await call(app, "GET", "/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.json as Doc;
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");

    const documented = new Set(Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)));
    const served = app.routes.map((r) => `${r.method} ${r.path.replace(/:([a-z_]+)/g, "{$1}")}`).filter((route) => !UNDOCUMENTED.test(route));
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
    expect((await call(app, "GET", "/docs")).headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  test("an operation is generated from its route's declaration: auth, input schemas, status and data", async () => {
    const Probe = Type.Object({ text: Type.String({ minLength: 1, description: "probe text" }) });
    const Params = Type.Object({ probe_id: Type.String({ pattern: "^p_" }) });
    const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) });
    const app = testApp(get().db).post("/v1/probes/:probe_id", ({ body }) => body, {
      auth: "memory.write",
      json: true,
      params: input(Params, "path"),
      query: input(Query, "query"),
      body: input(Probe),
      returns: { status: 201, data: Probe },
      detail: { summary: "Make a probe" },
    });
    const doc = (await call(app, "GET", "/openapi.json")).json as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const operation = doc.paths["/v1/probes/{probe_id}"]?.post;
    expect(operation).toMatchObject({
      summary: "Make a probe",
      description: "Needs the `memory.write` scope.",
      security: [{ bearerKey: [] }, { apiKeyHeader: [] }],
      parameters: [
        { name: "probe_id", in: "path", required: true, schema: { type: "string", pattern: "^p_" } },
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1 } },
      ],
      requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["text"] } } } },
      responses: {
        "201": { content: { "application/json": { schema: { required: ["data"], properties: { data: { properties: { text: { minLength: 1 } } } } } } } },
        default: { content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } } },
      },
    });
    // A named schema is a reference to the component of that name.
    expect(doc.paths["/v1/memory/search"]?.post?.requestBody).toEqual({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/RestSearchRequest" } } },
    });
    const key = await makeKey(get().db, { scopes: ["memory.write"] });
    const made = await call(app, "POST", "/v1/probes/p_1", { key: key.secret, body: { text: "hi" } });
    expect([made.status, made.json]).toEqual([201, { data: { text: "hi" } }]);
  });

  /** Checks a real response body against the schema the document gives for it. */
  const checkerFor = async (app: ReturnType<typeof testApp>) => {
    const doc = (await call(app, "GET", "/openapi.json")).json as Doc;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
    return (method: string, path: string, status: number, body: unknown): void => {
      const schema =
        doc.paths[path]?.[method]?.responses[String(status)]?.content?.["application/json"]?.schema ??
        doc.paths[path]?.[method]?.responses.default?.content?.["application/json"]?.schema;
      expect(schema).toBeDefined();
      const validate = ajv.compile(schema as object);
      const ok = validate(body);
      expect([method, path, status, ok ? [] : validate.errors]).toEqual([method, path, status, []]);
    };
  };

  test("real responses of the key-holder API satisfy the documented schemas", async () => {
    const app = testApp(get().db);
    const check = await checkerFor(app);

    const key = await makeKey(get().db);
    const taught = await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "Ana's manager is Bo." }, { text: "Ana's manager is Cy." }] },
    });
    check("post", "/v1/memory/facts", 202, taught.json);
    check("post", "/v1/memory/search", 200, (await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "Ana manager" } })).json);
    check("post", "/v1/memory/context", 200, (await call(app, "POST", "/v1/memory/context", { key: key.secret, body: { query: "Ana manager" } })).json);
    const listed = await call(app, "GET", "/v1/memory/facts", { key: key.secret });
    check("get", "/v1/memory/facts", 200, listed.json);
    check(
      "get",
      "/v1/memory/facts/{fact_id}",
      200,
      (await call(app, "GET", `/v1/memory/facts/${listed.json.data.facts[0].fact_id}`, { key: key.secret })).json,
    );
    check("get", "/v1/whoami", 200, (await call(app, "GET", "/v1/whoami", { key: key.secret })).json);
    const queued = await call(app, "POST", "/v1/answers", { key: key.secret, body: { input: "Who is Ana's manager?", stream: false } });
    check("post", "/v1/answers", 202, queued.json);
    const polled = await call(app, "GET", `/v1/answers/${queued.json.data.answer_id}`, { key: key.secret });
    check("get", "/v1/answers/{answer_id}", 200, polled.json);
    // Errors are the envelope, whatever the route.
    check("post", "/v1/memory/search", 422, (await call(app, "POST", "/v1/memory/search", { key: key.secret, body: {} })).json);
    check("get", "/v1/whoami", 401, (await call(app, "GET", "/v1/whoami")).json);
  });

  test("real responses of the admin API satisfy the documented schemas", async () => {
    const app = testApp(get().db, { outboundAllowPrivate: true });
    const check = await checkerFor(app);
    /** One admin call, its status asserted, its body checked against the document. */
    const admin = async (method: string, path: string, route: string, status: number, body?: unknown) => {
      const res = await call(app, method, path, { key: TEST_ADMIN_TOKEN, body });
      expect([method, path, res.status]).toEqual([method, path, status]);
      check(method.toLowerCase(), route, status, res.json);
      return res.json;
    };
    const slug = uniqueSlug();
    const ws = "/v1/admin/workspaces/{slug}";
    const at = `/v1/admin/workspaces/${slug}`;
    await admin("POST", "/v1/admin/workspaces", "/v1/admin/workspaces", 201, { slug });
    const created = await admin("POST", `${at}/keys`, `${ws}/keys`, 201, { name: "k", scopes: ["memory.read"] });
    await admin("GET", `${at}/keys`, `${ws}/keys`, 200);
    await admin("POST", `/v1/admin/keys/${created.data.id}/revoke`, "/v1/admin/keys/{key_id}/revoke", 200);
    await admin("POST", `${at}/agents`, `${ws}/agents`, 201, { slug: "helper", display_name: "Helper" });
    await admin("GET", `${at}/agents/helper`, `${ws}/agents/{agent_slug}`, 200);
    await admin("GET", `${at}/agents`, `${ws}/agents`, 200);
    await admin("PATCH", `${at}/agents/helper`, `${ws}/agents/{agent_slug}`, 200, { display_name: "Helper 2" });
    await admin("POST", `${at}/agents`, `${ws}/agents`, 422, {});
    await admin("POST", `${at}/facts`, `${ws}/facts`, 202, { facts: [{ text: "Ana's manager is Bo." }] });
    const page = await admin("GET", `${at}/facts`, `${ws}/facts`, 200);
    await admin("GET", `/v1/admin/facts/${page.data.facts[0].fact_id}`, "/v1/admin/facts/{fact_id}", 200);
    const hook = await admin("POST", `${at}/webhooks`, `${ws}/webhooks`, 201, { url: "http://127.0.0.1:9/hook", events: ["fact.created"] });
    await admin("GET", `/v1/admin/webhooks/${hook.data.webhook_id}`, "/v1/admin/webhooks/{webhook_id}", 200);
    await admin("PATCH", `/v1/admin/webhooks/${hook.data.webhook_id}`, "/v1/admin/webhooks/{webhook_id}", 200, { enabled: false });
    await admin("GET", `${at}/webhooks`, `${ws}/webhooks`, 200);
    await admin("GET", `/v1/admin/webhooks/${hook.data.webhook_id}/deliveries`, "/v1/admin/webhooks/{webhook_id}/deliveries", 200);
  });
});
