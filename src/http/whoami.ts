import { Elysia } from "elysia";
import { whoami } from "../auth/whoami";
import { WhoamiResult } from "../schema/auth";
import type { RequestPipeline } from "./pipeline";

/** REST twin of the `whoami` tool: lets an operator check a key without an MCP client. */
export function whoamiRoutes(deps: { pipeline: RequestPipeline }) {
  return new Elysia({ name: "whoami" })
    .use(deps.pipeline)
    .get("/v1/whoami", ({ auth }) => whoami(auth), { auth: "any-scope", returns: { data: WhoamiResult }, detail: { summary: "The calling key" } });
}
