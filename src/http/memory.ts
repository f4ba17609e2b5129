import { Elysia } from "elysia";
import { teachFacts } from "../capture/teach";
import type { Db } from "../db/types";
import { buildContext } from "../memory/context";
import type { FactIndexes } from "../memory/index/registry";
import { searchFacts } from "../memory/search";
import { ContextRequest, SearchRequest, TeachRequest } from "../schema/memory";
import { parseInput } from "../schema/validate";
import { authorize, ok, readJsonBody } from "./context";

/** 4.1-4.3: thin adapters: authorize, validate with the shared schema, call the service, wrap. */
export function memoryRoutes(deps: { db: Db; index: FactIndexes }) {
  const { db, index } = deps;
  return new Elysia({ name: "memory" })
    .post(
      "/v1/memory/search",
      async (ctx) => {
        const auth = await authorize(db, ctx, "memory.read");
        const input = parseInput(SearchRequest, await readJsonBody(ctx.request));
        return ok(ctx, await searchFacts({ db, index, auth, channel: "rest" }, input));
      },
      { parse: "none" },
    )
    .post(
      "/v1/memory/context",
      async (ctx) => {
        const auth = await authorize(db, ctx, "memory.read");
        const input = parseInput(ContextRequest, await readJsonBody(ctx.request));
        return ok(ctx, await buildContext({ db, index, auth, channel: "rest" }, input));
      },
      { parse: "none" },
    )
    .post(
      "/v1/memory/facts",
      async (ctx) => {
        const auth = await authorize(db, ctx, "memory.write");
        const input = parseInput(TeachRequest, await readJsonBody(ctx.request));
        return ok(ctx, await teachFacts({ db, index, auth, channel: "rest" }, input), 202);
      },
      { parse: "none" },
    );
}
