import { Elysia } from "elysia";
import { teachFacts } from "../capture/teach";
import type { Db } from "../db/types";
import { buildContext } from "../memory/context";
import type { FactIndexes } from "../memory/index/registry";
import { searchFacts } from "../memory/search";
import { deleteVisibleFact, getFact, listFacts } from "../memory/facts";
import { ContextRequest, FactIdParams, FactListQuery, FactQuery, SearchRequest, TeachRequest } from "../schema/memory";
import { parseInput } from "../schema/validate";
import { readJsonBody } from "./body";
import { ok, type RequestPipeline } from "./pipeline";

/** The memory routes (docs/api.md, Routes): thin adapters: the pipeline authorizes, the shared schema validates, the service answers. */
export function memoryRoutes(deps: { db: Db; index: FactIndexes; pipeline: RequestPipeline }) {
  const { db, index } = deps;
  return new Elysia({ name: "memory" })
    .use(deps.pipeline)
    .post(
      "/v1/memory/search",
      async ({ caller, request, set }) => ok(set, await searchFacts({ db, index, caller }, parseInput(SearchRequest, await readJsonBody(request)))),
      { auth: "memory.read", parse: "none" },
    )
    .post(
      "/v1/memory/context",
      async ({ caller, request, set }) => ok(set, await buildContext({ db, index, caller }, parseInput(ContextRequest, await readJsonBody(request)))),
      { auth: "memory.read", parse: "none" },
    )
    .post(
      "/v1/memory/facts",
      async ({ caller, request, set }) => ok(set, await teachFacts({ db, index, caller }, parseInput(TeachRequest, await readJsonBody(request))), 202),
      { auth: "memory.write", parse: "none" },
    )
    .get("/v1/memory/facts", async ({ caller, query, set }) => ok(set, await listFacts({ db, index, caller }, parseInput(FactListQuery, query, "query"))), {
      auth: "memory.read",
    })
    .get(
      "/v1/memory/facts/:fact_id",
      async ({ caller, params, query, set }) => {
        const { fact_id: factId } = parseInput(FactIdParams, params, "path");
        return ok(set, await getFact({ db, index, caller }, factId, parseInput(FactQuery, query, "query").end_user ?? null));
      },
      { auth: "memory.read" },
    )
    .delete(
      "/v1/memory/facts/:fact_id",
      async ({ caller, params, query, set }) => {
        const { fact_id: factId } = parseInput(FactIdParams, params, "path");
        return ok(set, await deleteVisibleFact({ db, index, caller }, factId, parseInput(FactQuery, query, "query").end_user ?? null));
      },
      { auth: "memory.write" },
    );
}
