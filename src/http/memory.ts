import { Elysia } from "elysia";
import { teachFacts } from "../capture/teach";
import type { Db } from "../db/types";
import { buildContext } from "../memory/context";
import type { FactIndexes } from "../memory/index/registry";
import { searchFacts } from "../memory/search";
import { ContextRequest, SearchRequest, TeachRequest } from "../schema/memory";
import { parseInput } from "../schema/validate";
import { readJsonBody } from "./body";
import { ok, type RequestPipeline } from "./pipeline";

/** 4.1-4.3: thin adapters: the pipeline authorizes, the shared schema validates, the service answers. */
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
    );
}
