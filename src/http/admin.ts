import { Elysia } from "elysia";
import { takeBackup } from "../admin/backup";
import { embeddingsSetting, serviceStatus } from "../admin/status";
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from "../agents/service";
import { recentRuns } from "../answers/store";
import { createKey, listKeys, revokeKey } from "../auth/keys";
import {
  addTeamMember,
  changeCredits,
  createWorkspace,
  findWorkspace,
  listTeamMembers,
  listWorkspaces,
  removeTeamMember,
  workspaceSummary,
} from "../auth/workspaces";
import { teachFacts } from "../capture/teach";
import type { Config } from "../config";
import type { Db } from "../db/types";
import { exportFacts, forgetEndUser, setPinned } from "../memory/admin";
import { browseFacts, deleteFact, factHistory, listEndUsers } from "../memory/browse";
import type { FactIndexes } from "../memory/index/registry";
import { searchFacts } from "../memory/search";
import {
  AgentParams,
  ChangeCreditsRequest,
  CreateKeyRequest,
  CreateWorkspaceRequest,
  EndUserParams,
  KeyParams,
  RecentAnswersQuery,
  SlugParams,
  TeamMemberRequest,
  TeamParams,
} from "../schema/admin";
import { Agent, AgentList, CreateAgentInput, UpdateAgentInput } from "../schema/agents";
import { ApiKeyView, CreatedKey, KeyList } from "../schema/auth";
import { AdminFactQuery, FactHistory, FactPage, FactParams } from "../schema/browse";
import { RestSearchRequest, SearchResult, TeachRequest, TeachResult } from "../schema/memory";
import { input } from "../schema/validate";
import { type Caller, OPERATOR_KEY_ID } from "../service";
import type { RequestPipeline } from "./pipeline";

/**
 * The admin API (an extension under /v1/admin, for the settings app and operators): workspaces,
 * keys, agents, team, facts, end users and answers, authenticated by the admin credential, with
 * the same envelope, errors and validation as the rest. Thin adapters over the same service
 * functions as the CLI.
 */
export function adminRoutes(deps: { db: Db; config: Config; index: FactIndexes; pipeline: RequestPipeline }) {
  const { db, config, index } = deps;
  const workspace = input(SlugParams, "path");
  const agent = input(AgentParams, "path");
  const endUser = input(EndUserParams, "path");
  const fact = input(FactParams, "path");
  const workspaceId = async (slug: string): Promise<string> => (await findWorkspace(db, slug)).id;
  /** The operator acting as the workspace itself: an internal caller, as a key with every scope. */
  const workspaceCaller = async (slug: string): Promise<Caller> => ({
    workspaceId: await workspaceId(slug),
    keyId: OPERATOR_KEY_ID,
    audience: "internal",
    channel: "rest",
    agent: null,
    boundAgent: null,
    factSeq: null,
  });

  return (
    new Elysia({ name: "admin" })
      .use(deps.pipeline)
      .get("/v1/admin/status", () => serviceStatus(db, index.stats(), embeddingsSetting(config, index.semantic?.client.dimensions ?? null)), {
        admin: true,
        returns: {},
        detail: {
          summary: "The database, migrations, answer queue, counts, the embeddings endpoint's vectors and this process's index memory (memoryd doctor)",
        },
      })
      // A consistent snapshot of the embedded database while it serves (PostgreSQL: 409, use pg_dump).
      .get(
        "/v1/admin/backup",
        async () => {
          const backup = await takeBackup(db);
          const name = `memoryd-${new Date().toISOString().replace(/[:.]/g, "-")}.tar.gz`;
          return new Response(backup, {
            headers: { "content-type": "application/gzip", "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" },
          });
        },
        {
          admin: true,
          returns: { media: "application/gzip", description: "the data directory as a gzipped tarball, for memoryd restore" },
          detail: { summary: "A consistent snapshot of the embedded database (gzipped tar); 409 backup_unsupported on PostgreSQL" },
        },
      )
      .get("/v1/admin/workspaces", async () => ({ workspaces: await listWorkspaces(db) }), {
        admin: true,
        returns: {},
        detail: { summary: "Workspaces" },
      })
      .post("/v1/admin/workspaces", ({ body }) => createWorkspace(db, body.slug, body.credits), {
        admin: true,
        json: true,
        body: input(CreateWorkspaceRequest),
        returns: { status: 201 },
        detail: { summary: "Create a workspace" },
      })
      .get("/v1/admin/workspaces/:slug", ({ params }) => workspaceSummary(db, params.slug), {
        admin: true,
        params: workspace,
        returns: {},
        detail: { summary: "A workspace with its counts" },
      })
      .post(
        "/v1/admin/workspaces/:slug/credits",
        async ({ params, body }) => {
          const changed = await changeCredits(db, params.slug, body.mode, body.amount);
          return { slug: changed.slug, credits: changed.credits };
        },
        { admin: true, json: true, params: workspace, body: input(ChangeCreditsRequest), returns: {}, detail: { summary: "Set or add credits" } },
      )
      .get("/v1/admin/workspaces/:slug/keys", async ({ params }): Promise<KeyList> => ({ keys: await listKeys(db, params.slug) }), {
        admin: true,
        params: workspace,
        returns: { data: KeyList },
        detail: { summary: "A workspace's keys" },
      })
      .post("/v1/admin/workspaces/:slug/keys", ({ params, body }) => createKey(db, config.deployment, { workspace: params.slug, ...body }), {
        admin: true,
        json: true,
        params: workspace,
        body: input(CreateKeyRequest),
        returns: { status: 201, data: CreatedKey },
        detail: { summary: "Create a key (the secret is shown once)" },
      })
      .post("/v1/admin/keys/:key_id/revoke", ({ params }) => revokeKey(db, params.key_id), {
        admin: true,
        params: input(KeyParams, "path"),
        returns: { data: ApiKeyView },
        detail: { summary: "Revoke a key" },
      })
      .get("/v1/admin/workspaces/:slug/agents", async ({ params }): Promise<AgentList> => ({ agents: await listAgents(db, await workspaceId(params.slug)) }), {
        admin: true,
        params: workspace,
        returns: { data: AgentList },
        detail: { summary: "A workspace's agents" },
      })
      .post("/v1/admin/workspaces/:slug/agents", async ({ params, body }) => createAgent(db, await workspaceId(params.slug), body), {
        admin: true,
        json: true,
        params: workspace,
        body: input(CreateAgentInput),
        returns: { status: 201, data: Agent },
        detail: { summary: "Create an agent" },
      })
      .get("/v1/admin/workspaces/:slug/agents/:agent_slug", async ({ params }) => getAgent(db, await workspaceId(params.slug), params.agent_slug), {
        admin: true,
        params: agent,
        returns: { data: Agent },
        detail: { summary: "An agent" },
      })
      .patch(
        "/v1/admin/workspaces/:slug/agents/:agent_slug",
        async ({ params, body }) => updateAgent(db, await workspaceId(params.slug), params.agent_slug, body),
        { admin: true, json: true, params: agent, body: input(UpdateAgentInput), returns: { data: Agent }, detail: { summary: "Change an agent's settings" } },
      )
      .delete(
        "/v1/admin/workspaces/:slug/agents/:agent_slug",
        async ({ params }) => {
          await deleteAgent(db, await workspaceId(params.slug), params.agent_slug);
          return { deleted: params.agent_slug };
        },
        { admin: true, params: agent, returns: {}, detail: { summary: "Delete an agent (not main)" } },
      )
      .get("/v1/admin/workspaces/:slug/team", async ({ params }) => ({ members: await listTeamMembers(db, params.slug) }), {
        admin: true,
        params: workspace,
        returns: {},
        detail: { summary: "Team members" },
      })
      .post("/v1/admin/workspaces/:slug/team", ({ params, body }) => addTeamMember(db, params.slug, body.name), {
        admin: true,
        json: true,
        params: workspace,
        body: input(TeamMemberRequest),
        returns: { status: 201 },
        detail: { summary: "Add a team member" },
      })
      .delete(
        "/v1/admin/workspaces/:slug/team/:name",
        async ({ params }) => {
          await removeTeamMember(db, params.slug, params.name);
          return { removed: params.name };
        },
        { admin: true, params: input(TeamParams, "path"), returns: {}, detail: { summary: "Remove a team member" } },
      )
      .get("/v1/admin/workspaces/:slug/facts", async ({ params, query }) => browseFacts(db, await workspaceId(params.slug), query), {
        admin: true,
        params: workspace,
        query: input(AdminFactQuery, "query"),
        returns: { data: FactPage },
        detail: { summary: "Browse facts" },
      })
      .post(
        "/v1/admin/workspaces/:slug/facts",
        // The operator teaches as the workspace itself: the same capture pipeline as every key.
        async ({ params, body }) => teachFacts({ db, index, caller: await workspaceCaller(params.slug) }, body),
        {
          admin: true,
          json: true,
          params: workspace,
          body: input(TeachRequest),
          returns: { status: 202, data: TeachResult },
          detail: { summary: "Teach facts as the workspace" },
        },
      )
      .post(
        "/v1/admin/workspaces/:slug/search",
        // The operator searches as an internal key of the workspace would: the same ranking, with explain.
        async ({ params, body }) => searchFacts({ db, index, caller: await workspaceCaller(params.slug) }, body),
        {
          admin: true,
          json: true,
          params: workspace,
          body: input(RestSearchRequest),
          returns: { data: SearchResult },
          detail: { summary: "Search memory as the workspace (ranked; explain says why)" },
        },
      )
      .get("/v1/admin/facts/:fact_id", ({ params }) => factHistory(db, params.fact_id), {
        admin: true,
        params: fact,
        returns: { data: FactHistory },
        detail: { summary: "A fact and its supersession chain" },
      })
      .post("/v1/admin/facts/:fact_id/pin", ({ params }) => setPinned(db, params.fact_id, true), {
        admin: true,
        params: fact,
        returns: {},
        detail: { summary: "Pin a fact" },
      })
      .post("/v1/admin/facts/:fact_id/unpin", ({ params }) => setPinned(db, params.fact_id, false), {
        admin: true,
        params: fact,
        returns: {},
        detail: { summary: "Unpin a fact" },
      })
      .delete("/v1/admin/facts/:fact_id", ({ params }) => deleteFact(db, params.fact_id), {
        admin: true,
        params: fact,
        returns: {},
        detail: { summary: "Delete a fact" },
      })
      .get("/v1/admin/workspaces/:slug/end-users", async ({ params }) => ({ end_users: await listEndUsers(db, await workspaceId(params.slug)) }), {
        admin: true,
        params: workspace,
        returns: {},
        detail: { summary: "End users" },
      })
      .get(
        "/v1/admin/workspaces/:slug/end-users/:end_user_id/export",
        async ({ params }) => {
          const owner = await findWorkspace(db, params.slug);
          const lines: string[] = [];
          for await (const exported of exportFacts(db, owner.id, params.end_user_id)) lines.push(JSON.stringify(exported));
          return new Response(lines.length === 0 ? "" : `${lines.join("\n")}\n`, {
            headers: {
              "content-type": "application/x-ndjson; charset=utf-8",
              "content-disposition": `attachment; filename="${owner.slug}-end-user-facts.jsonl"`,
            },
          });
        },
        { admin: true, params: endUser, returns: { media: "application/x-ndjson" }, detail: { summary: "One end user's facts as JSONL" } },
      )
      .post(
        "/v1/admin/workspaces/:slug/end-users/:end_user_id/forget",
        async ({ params }) => {
          const owner = await findWorkspace(db, params.slug);
          return db.transaction((tx) => forgetEndUser(tx, owner, params.end_user_id));
        },
        { admin: true, params: endUser, returns: {}, detail: { summary: "Forget an end user" } },
      )
      .get(
        "/v1/admin/workspaces/:slug/answers",
        async ({ params, query }) => {
          const rows = await recentRuns(db, await workspaceId(params.slug), query.limit + 1, query.cursor ?? null);
          const page = rows.slice(0, query.limit).map((r) => ({
            ...r,
            created_at: new Date(r.created_at).toISOString(),
            finished_at: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
          }));
          return { answers: page, next_cursor: rows.length > query.limit ? (page.at(-1)?.answer_id ?? null) : null };
        },
        { admin: true, params: workspace, query: input(RecentAnswersQuery, "query"), returns: {}, detail: { summary: "Recent answers" } },
      )
  );
}
