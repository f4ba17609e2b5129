import { Elysia } from "elysia";
import { createAgent, deleteAgent, getAgent, listAgents, updateAgent } from "../agents/service";
import { takeBackup } from "../admin/backup";
import { serviceStatus } from "../admin/status";
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
import type { Config } from "../config";
import type { Db } from "../db/types";
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
import { CreateAgentInput, UpdateAgentInput } from "../schema/agents";
import { parseInput } from "../schema/validate";
import { recentRuns } from "../answers/store";
import { teachFacts } from "../capture/teach";
import { exportFacts, forgetEndUser, setPinned } from "../memory/admin";
import { browseFacts, deleteFact, factHistory, listEndUsers } from "../memory/browse";
import type { FactIndexes } from "../memory/index/registry";
import { AdminFactQuery, FactParams } from "../schema/browse";
import { TeachRequest } from "../schema/memory";
import { readJsonBody } from "./body";
import { ok, type RequestPipeline } from "./pipeline";

/**
 * The admin API (an extension under /v1/admin, for the settings app and operators): workspaces,
 * keys, agents, team, facts, end users and answers, authenticated by the admin credential, with
 * the same envelope, errors and validation as the rest. Thin adapters over the same service
 * functions as the CLI.
 */
export function adminRoutes(deps: { db: Db; config: Config; index: FactIndexes; pipeline: RequestPipeline }) {
  const { db, config, index } = deps;
  const body = async <T>(request: Request, parse: (input: unknown) => T): Promise<T> => parse(await readJsonBody(request));
  const workspaceOf = async (params: unknown) => findWorkspace(db, parseInput(SlugParams, params, "path").slug);
  const admin = { admin: true } as const;
  const adminWithBody = { admin: true, parse: "none" } as const;

  return (
    new Elysia({ name: "admin" })
      .use(deps.pipeline)
      .get("/v1/admin/status", async ({ set }) => ok(set, await serviceStatus(db, index.stats())), admin)
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
        admin,
      )
      .get("/v1/admin/workspaces", async ({ set }) => ok(set, { workspaces: await listWorkspaces(db) }), admin)
      .post(
        "/v1/admin/workspaces",
        async ({ request, set }) => {
          const input = await body(request, (b) => parseInput(CreateWorkspaceRequest, b));
          return ok(set, await createWorkspace(db, input.slug, input.credits), 201);
        },
        adminWithBody,
      )
      .get("/v1/admin/workspaces/:slug", async ({ params, set }) => ok(set, await workspaceSummary(db, parseInput(SlugParams, params, "path").slug)), admin)
      .post(
        "/v1/admin/workspaces/:slug/credits",
        async ({ params, request, set }) => {
          const { slug } = parseInput(SlugParams, params, "path");
          const input = await body(request, (b) => parseInput(ChangeCreditsRequest, b));
          const workspace = await changeCredits(db, slug, input.mode, input.amount);
          return ok(set, { slug: workspace.slug, credits: workspace.credits });
        },
        adminWithBody,
      )
      .get(
        "/v1/admin/workspaces/:slug/keys",
        async ({ params, set }) => ok(set, { keys: await listKeys(db, parseInput(SlugParams, params, "path").slug) }),
        admin,
      )
      .post(
        "/v1/admin/workspaces/:slug/keys",
        async ({ params, request, set }) => {
          const { slug } = parseInput(SlugParams, params, "path");
          const input = await body(request, (b) => parseInput(CreateKeyRequest, b));
          return ok(set, await createKey(db, config.deployment, { workspace: slug, ...input }), 201);
        },
        adminWithBody,
      )
      .post("/v1/admin/keys/:key_id/revoke", async ({ params, set }) => ok(set, await revokeKey(db, parseInput(KeyParams, params, "path").key_id)), admin)
      .get("/v1/admin/workspaces/:slug/agents", async ({ params, set }) => ok(set, { agents: await listAgents(db, (await workspaceOf(params)).id) }), admin)
      .post(
        "/v1/admin/workspaces/:slug/agents",
        async ({ params, request, set }) => {
          const workspace = await workspaceOf(params);
          const input = await body(request, (b) => parseInput(CreateAgentInput, b));
          return ok(set, await createAgent(db, workspace.id, input), 201);
        },
        adminWithBody,
      )
      .get(
        "/v1/admin/workspaces/:slug/agents/:agent_slug",
        async ({ params, set }) => {
          const path = parseInput(AgentParams, params, "path");
          return ok(set, await getAgent(db, (await findWorkspace(db, path.slug)).id, path.agent_slug));
        },
        admin,
      )
      .patch(
        "/v1/admin/workspaces/:slug/agents/:agent_slug",
        async ({ params, request, set }) => {
          const path = parseInput(AgentParams, params, "path");
          const input = await body(request, (b) => parseInput(UpdateAgentInput, b));
          return ok(set, await updateAgent(db, (await findWorkspace(db, path.slug)).id, path.agent_slug, input));
        },
        adminWithBody,
      )
      .delete(
        "/v1/admin/workspaces/:slug/agents/:agent_slug",
        async ({ params, set }) => {
          const path = parseInput(AgentParams, params, "path");
          await deleteAgent(db, (await findWorkspace(db, path.slug)).id, path.agent_slug);
          return ok(set, { deleted: path.agent_slug });
        },
        admin,
      )
      .get(
        "/v1/admin/workspaces/:slug/team",
        async ({ params, set }) => ok(set, { members: await listTeamMembers(db, parseInput(SlugParams, params, "path").slug) }),
        admin,
      )
      .post(
        "/v1/admin/workspaces/:slug/team",
        async ({ params, request, set }) => {
          const { slug } = parseInput(SlugParams, params, "path");
          const input = await body(request, (b) => parseInput(TeamMemberRequest, b));
          return ok(set, await addTeamMember(db, slug, input.name), 201);
        },
        adminWithBody,
      )
      .get(
        "/v1/admin/workspaces/:slug/facts",
        async ({ params, query, set }) => ok(set, await browseFacts(db, (await workspaceOf(params)).id, parseInput(AdminFactQuery, query, "query"))),
        admin,
      )
      .post(
        "/v1/admin/workspaces/:slug/facts",
        async ({ params, request, set }) => {
          const workspace = await workspaceOf(params);
          const input = await body(request, (b) => parseInput(TeachRequest, b));
          // The operator teaches as the workspace itself: the same capture pipeline as every key.
          const caller = { workspaceId: workspace.id, keyId: "admin", audience: "internal" as const, channel: "rest" as const, factSeq: null };
          return ok(set, await teachFacts({ db, index, caller }, input), 202);
        },
        adminWithBody,
      )
      .get("/v1/admin/facts/:fact_id", async ({ params, set }) => ok(set, await factHistory(db, parseInput(FactParams, params, "path").fact_id)), admin)
      .post(
        "/v1/admin/facts/:fact_id/pin",
        async ({ params, set }) => ok(set, await setPinned(db, parseInput(FactParams, params, "path").fact_id, true)),
        admin,
      )
      .post(
        "/v1/admin/facts/:fact_id/unpin",
        async ({ params, set }) => ok(set, await setPinned(db, parseInput(FactParams, params, "path").fact_id, false)),
        admin,
      )
      .delete("/v1/admin/facts/:fact_id", async ({ params, set }) => ok(set, await deleteFact(db, parseInput(FactParams, params, "path").fact_id)), admin)
      .get(
        "/v1/admin/workspaces/:slug/end-users",
        async ({ params, set }) => ok(set, { end_users: await listEndUsers(db, (await workspaceOf(params)).id) }),
        admin,
      )
      .get(
        "/v1/admin/workspaces/:slug/end-users/:end_user_id/export",
        async ({ params, set }) => {
          const path = parseInput(EndUserParams, params, "path");
          const workspace = await findWorkspace(db, path.slug);
          const lines: string[] = [];
          for await (const fact of exportFacts(db, workspace.id, path.end_user_id)) lines.push(JSON.stringify(fact));
          set.headers["content-type"] = "application/x-ndjson; charset=utf-8";
          set.headers["content-disposition"] = `attachment; filename="${workspace.slug}-end-user-facts.jsonl"`;
          return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
        },
        admin,
      )
      .post(
        "/v1/admin/workspaces/:slug/end-users/:end_user_id/forget",
        async ({ params, set }) => {
          const path = parseInput(EndUserParams, params, "path");
          const workspace = await findWorkspace(db, path.slug);
          return ok(set, await db.transaction((tx) => forgetEndUser(tx, workspace, path.end_user_id)));
        },
        admin,
      )
      .get(
        "/v1/admin/workspaces/:slug/answers",
        async ({ params, query, set }) => {
          const workspace = await workspaceOf(params);
          const q = parseInput(RecentAnswersQuery, query, "query");
          const rows = await recentRuns(db, workspace.id, q.limit + 1, q.cursor ?? null);
          const page = rows.slice(0, q.limit).map((r) => ({
            ...r,
            created_at: new Date(r.created_at).toISOString(),
            finished_at: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
          }));
          return ok(set, { answers: page, next_cursor: rows.length > q.limit ? (page.at(-1)?.answer_id ?? null) : null });
        },
        admin,
      )
      .delete(
        "/v1/admin/workspaces/:slug/team/:name",
        async ({ params, set }) => {
          const path = parseInput(TeamParams, params, "path");
          await removeTeamMember(db, path.slug, path.name);
          return ok(set, { removed: path.name });
        },
        admin,
      )
  );
}
