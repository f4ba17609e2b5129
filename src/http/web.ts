import { Elysia } from "elysia";
import { authorizeAdmin } from "../admin/credential";
import { authorizeSession, createSession, endSession, findSession, sessionCookie, sessionCookieHeader } from "../admin/session";
import type { Config } from "../config";
import type { Db } from "../db/types";
import { ApiError } from "../errors";
import { SignInRequest } from "../schema/admin";
import { input } from "../schema/validate";
import appCss from "../web/app.css" with { type: "text" };
import appJs from "../web/app.js" with { type: "text" };
import icon from "../web/icon.svg" with { type: "text" };
import docsJs from "../web/docs.js" with { type: "text" };
import { DOCS_HTML, INDEX_HTML, PAGE_HEADERS } from "../web/page";
import { clientAddress, type RequestPipeline } from "./pipeline";

const ASSETS: Record<string, { body: string; type: string }> = {
  "app.js": { body: appJs, type: "text/javascript; charset=utf-8" },
  "app.css": { body: appCss, type: "text/css; charset=utf-8" },
  "icon.svg": { body: icon, type: "image/svg+xml" },
  "docs.js": { body: docsJs, type: "text/javascript; charset=utf-8" },
};

/** TLS as the request arrived: the cookie is `Secure` then. */
const overTls = (request: Request): boolean => new URL(request.url).protocol === "https:";

/**
 * The settings web app at /app: one page and its two assets, embedded in the binary, plus the
 * session it signs in with (the admin credential exchanged for an HttpOnly, SameSite=Strict
 * cookie and a CSRF token). The page then uses the admin API with that cookie. Pages for people,
 * not API: none of it is in the OpenAPI document.
 */
export function webRoutes(deps: { db: Db; config: Config; pipeline: RequestPipeline }) {
  const { db, config } = deps;
  const page = (body: string, type: string): Response => new Response(body, { headers: { ...PAGE_HEADERS, "content-type": type } });
  const hidden = { detail: { hide: true } } as const;
  return new Elysia({ name: "web" })
    .use(deps.pipeline)
    .get("/app", () => page(INDEX_HTML, "text/html; charset=utf-8"), hidden)
    .get("/docs", () => page(DOCS_HTML, "text/html; charset=utf-8"), hidden)
    .get("/app/", () => page(INDEX_HTML, "text/html; charset=utf-8"), hidden)
    .get(
      "/app/assets/:name",
      ({ params }) => {
        // The name is the client's: "constructor" or "__proto__" is no asset.
        const asset = Object.hasOwn(ASSETS, params.name) ? ASSETS[params.name] : undefined;
        if (!asset) throw new ApiError("not_found", `no asset ${params.name}`);
        return page(asset.body, asset.type);
      },
      hidden,
    )
    .get(
      "/app/session",
      async ({ request, set }) => {
        const id = sessionCookie(request);
        const session = id === undefined ? null : await findSession(db, id);
        set.headers["cache-control"] = "no-store";
        return session === null ? { signed_in: false } : { signed_in: true, csrf_token: session.csrfToken };
      },
      { ...hidden, returns: {} },
    )
    .post(
      "/app/session",
      async ({ body, request, server, set }) => {
        // Wrong tokens count against the address: sign-in attempts are rate-limited like keys.
        await authorizeAdmin(db, config, body.token, clientAddress(request, server));
        const session = await createSession(db);
        set.headers["set-cookie"] = sessionCookieHeader(session.sessionId, overTls(request));
        set.headers["cache-control"] = "no-store";
        return { csrf_token: session.csrfToken };
      },
      { ...hidden, json: true, body: input(SignInRequest), returns: {} },
    )
    .delete(
      "/app/session",
      async ({ request, set }) => {
        const id = sessionCookie(request);
        // A live session ends only with its CSRF token (authorizeSession throws 403 without it).
        if (id !== undefined && (await authorizeSession(db, request))) await endSession(db, id);
        set.headers["set-cookie"] = sessionCookieHeader("", overTls(request), 0);
        return { signed_in: false };
      },
      { ...hidden, returns: {} },
    );
}
