import { Elysia } from "elysia";
import { whoami } from "../auth/whoami";
import type { Db } from "../db/types";
import { authorize, ok } from "./context";

/** REST twin of the `whoami` tool: lets an operator check a key without an MCP client. */
export function whoamiRoutes(deps: { db: Db }) {
  return new Elysia({ name: "whoami" }).get("/v1/whoami", async (ctx) => ok(ctx, whoami(await authorize(deps.db, ctx, null))));
}
