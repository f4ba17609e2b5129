import { Elysia } from "elysia";
import { teachMessages } from "../capture/messages";
import { teachFacts } from "../capture/teach";
import type { Db } from "../db/types";
import { buildContext } from "../memory/context";
import { deleteVisibleFact, getFact, listFacts } from "../memory/facts";
import type { FactIndexes } from "../memory/index/registry";
import { searchFacts } from "../memory/search";
import {
  ContextPacket,
  RestContextRequest,
  FactIdParams,
  FactList,
  FactListQuery,
  FactQuery,
  FactWithHistory,
  RestSearchRequest,
  SearchResult,
  TeachMessagesRequest,
  TeachMessagesResult,
  TeachRequest,
  TeachResult,
} from "../schema/memory";
import { input } from "../schema/validate";
import type { RequestPipeline } from "./pipeline";

/** The memory routes (docs/api.md, Routes): the pipeline authorizes and validates, the service answers. */
export function memoryRoutes(deps: { db: Db; index: FactIndexes; pipeline: RequestPipeline }) {
  const { db, index } = deps;
  return new Elysia({ name: "memory" })
    .use(deps.pipeline)
    .post("/v1/memory/search", ({ caller, body }) => searchFacts({ db, index, caller }, body), {
      auth: "memory.read",
      json: true,
      body: input(RestSearchRequest),
      returns: { data: SearchResult },
      detail: { summary: "Search memory" },
    })
    .post("/v1/memory/context", ({ caller, body }) => buildContext({ db, index, caller }, body), {
      auth: "memory.read",
      json: true,
      body: input(RestContextRequest),
      returns: { data: ContextPacket },
      detail: { summary: "Context packet" },
    })
    .post("/v1/memory/facts", ({ caller, body }) => teachFacts({ db, index, caller }, body), {
      auth: "memory.write",
      json: true,
      body: input(TeachRequest),
      returns: { status: 202, data: TeachResult },
      detail: { summary: "Teach facts" },
    })
    .post("/v1/memory/messages", ({ caller, body }) => teachMessages({ db, index, caller }, body), {
      auth: "memory.write",
      json: true,
      body: input(TeachMessagesRequest),
      returns: { status: 202, data: TeachMessagesResult },
      detail: { summary: "Teach what the user said in a conversation" },
    })
    .get("/v1/memory/facts", ({ caller, query }) => listFacts({ db, index, caller }, query), {
      auth: "memory.read",
      query: input(FactListQuery, "query"),
      returns: { data: FactList },
      detail: { summary: "List the facts the key may see" },
    })
    .get("/v1/memory/facts/:fact_id", ({ caller, params, query }) => getFact({ db, index, caller }, params.fact_id, query), {
      auth: "memory.read",
      params: input(FactIdParams, "path"),
      query: input(FactQuery, "query"),
      returns: { data: FactWithHistory },
      detail: { summary: "One fact and the earlier versions of its claim" },
    })
    .delete("/v1/memory/facts/:fact_id", ({ caller, params, query }) => deleteVisibleFact({ db, index, caller }, params.fact_id, query), {
      auth: "memory.write",
      params: input(FactIdParams, "path"),
      query: input(FactQuery, "query"),
      returns: {},
      detail: { summary: "Delete a fact on every instance" },
    });
}
