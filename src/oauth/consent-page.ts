import { isMetadataDocumentId } from "./client-metadata";
import type { Scope } from "../schema/auth";
import { AuthorizationRequest } from "../schema/oauth";

/**
 * The consent page of MCP authorization: plain server-rendered HTML (no script), every value
 * escaped, styled by the settings app's stylesheet.
 */

const SCOPE_WORDS: Record<Scope, string> = {
  "memory.read": "search and read the workspace's memory",
  "memory.write": "teach and delete facts",
  "answers.write": "ask the workspace's agents (spends credits)",
};

const GRANT_LIMITS = "It acts as the API key you give below, with no more than the permissions you tick, until that key is revoked.";

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/gu, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

function shell(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="/app/assets/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/app/assets/app.css" />
  </head>
  <body>
    <header class="topbar"><span class="brand">memoryd <span>authorization</span></span></header>
    <main class="signin">${body}</main>
  </body>
</html>
`;
}

/** Where the browser goes next, shown so a person can tell a look-alike application. */
function destination(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.host : `${url.protocol}//${url.host}`;
}

export interface ConsentPageInput {
  request: AuthorizationRequest;
  clientName: string;
  scopes: readonly Scope[];
  csrf: string;
  /** Why the last submission was refused, shown above the form. */
  problem?: string;
}

/** A client known by its metadata document: the document's host vouches for the name shown. */
function identifiedBy(clientId: string): string {
  if (!isMetadataDocumentId(clientId)) return "";
  return `<p class="muted">Its name comes from the metadata document published at <b>${escapeHtml(new URL(clientId).host)}</b>.</p>`;
}

export function renderConsentPage(input: ConsentPageInput): string {
  const { request } = input;
  // Only the request's own fields ride along: a re-shown form must never echo the key it was sent.
  const carried: Record<string, unknown> = Object.fromEntries(
    Object.keys(AuthorizationRequest.properties).map((name) => [name, (request as Record<string, unknown>)[name]]),
  );
  const hidden = Object.entries({ ...carried, csrf: input.csrf })
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}" />`)
    .join("\n        ");
  const scopes = input.scopes
    .map(
      (scope) =>
        `<label class="check"><input type="checkbox" name="granted_scopes" value="${scope}" checked /> ` +
        `<span><b>${scope}</b>: ${SCOPE_WORDS[scope]}</span></label>`,
    )
    .join("\n          ");
  const problem = input.problem === undefined ? "" : `<p class="error" role="alert">${escapeHtml(input.problem)}</p>`;
  return shell(
    "Allow access to memoryd?",
    `
      <form class="panel" method="post" action="/oauth/authorize">
        <h1>Allow <b>${escapeHtml(input.clientName)}</b> to use memoryd?</h1>
        ${identifiedBy(request.client_id)}
        <p class="muted">After you allow it, you return to <b>${escapeHtml(destination(request.redirect_uri))}</b>. ${GRANT_LIMITS}</p>
        ${problem}
        ${hidden}
        <fieldset>
          <legend>Permissions</legend>
          ${scopes}
        </fieldset>
        <fieldset>
          <legend>Audience</legend>
          <label class="check"><input type="radio" name="audience" value="key" checked /> the key's own audience</label>
          <label class="check"><input type="radio" name="audience" value="external" /> external only (facts marked internal stay hidden)</label>
        </fieldset>
        <label>API key of the workspace<input type="password" name="api_key" autocomplete="off" placeholder="ak_live_…" /></label>
        <details>
          <summary>Or grant as the administrator</summary>
          <p class="muted">A key of its own is made for this application, with what you tick above; revoke it in the settings app to disconnect.</p>
          <label>Workspace<input type="text" name="workspace" autocomplete="off" placeholder="default" /></label>
          <label>Admin token<input type="password" name="admin_token" autocomplete="off" /></label>
        </details>
        <p class="actions">
          <button type="submit" name="decision" value="allow">Allow</button>
          <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
        </p>
      </form>`,
  );
}

/** A request that cannot go back to its application (unknown client, unregistered redirect URI). */
export function renderAuthorizationError(message: string): string {
  return shell(
    "Authorization failed",
    `
      <section class="panel">
        <h1>This authorization request cannot be completed</h1>
        <p class="error" role="alert">${escapeHtml(message)}</p>
        <p class="muted">Start the connection again from the application.</p>
      </section>`,
  );
}
