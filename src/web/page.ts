/**
 * Everything a page loads is ours: no inline script or style, nothing from elsewhere, no framing.
 * `formActions` adds where a form may lead (the OAuth consent form redirects to its client).
 */
export function pageSecurityHeaders(formActions: readonly string[] = []): Record<string, string> {
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    `form-action ${["'self'", ...formActions].join(" ")}`,
    "frame-ancestors 'none'",
  ];
  return {
    "content-security-policy": policy.join("; "),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
  };
}

export const PAGE_HEADERS: Record<string, string> = pageSecurityHeaders();

/** The settings app's one page: a shell the script fills (no inline script or style, for the CSP). */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>memoryd settings</title>
    <link rel="icon" href="/app/assets/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/app/assets/app.css" />
    <script type="module" src="/app/assets/app.js"></script>
  </head>
  <body>
    <header class="topbar">
      <a class="brand" href="#/">memoryd <span>settings</span></a>
      <button id="sign-out" class="link" type="button" hidden>Sign out</button>
    </header>
    <div class="layout">
      <nav id="nav" aria-label="Sections" hidden></nav>
      <main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
    </div>
    <div id="toast" role="status" aria-live="polite"></div>
  </body>
</html>
`;

const DOCS_LINKS = '<a class="brand" href="/docs">memoryd <span>API reference</span></a><a class="brand" href="/openapi.json"><span>openapi.json</span></a>';

/** The API reference page (/docs): the same look, filled from /openapi.json by docs.js. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>memoryd API reference</title>
    <link rel="icon" href="/app/assets/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/app/assets/app.css" />
    <script type="module" src="/app/assets/docs.js"></script>
  </head>
  <body>
    <header class="topbar">${DOCS_LINKS}</header>
    <div class="layout"><main id="main" tabindex="-1"><p class="muted">Loading…</p></main></div>
  </body>
</html>
`;
