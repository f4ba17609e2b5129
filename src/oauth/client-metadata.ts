/**
 * Client ID Metadata Documents (the MCP authorization spec's preferred registration, used by
 * ChatGPT's and Claude's connectors): the client_id is the https URL of a JSON document that
 * names the client and its redirect URIs. memoryd fetches it on the first authorization request
 * (see net/outbound.ts for what it refuses to fetch), checks it, and caches it in oauth_clients
 * for as long as the document's Cache-Control allows, within bounds.
 */
import type { Config } from "../config";
import type { Queryable } from "../db/types";
import { ApiError } from "../errors";
import { fetchOutbound, OutboundError } from "../net/outbound";
import { ClientMetadataDocument } from "../schema/oauth";
import { parseOAuthInput, redirectUriProblem } from "./validate";
import { findFreshMetadataClient, upsertMetadataClient, type ClientRow } from "./store";

/** The draft recommends 5 KB: a metadata document is a few fields. */
const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;
/** How long a document is trusted: its max-age, held between five minutes and a day. */
const CACHE_SECONDS = { default: 3_600, min: 300, max: 86_400 };

/**
 * Whether a client_id names a metadata document: an https URL with a path, and no fragment,
 * credentials or dot segments (the draft's rules), so it can be told from a registered id.
 */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!clientId.startsWith("https://") || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  if (url.hash !== "" || clientId.includes("#") || url.username !== "" || url.password !== "") return false;
  // Dot segments are checked as written: the URL parser would resolve them away.
  if (url.pathname === "/" || /\/\.{1,2}(?:[/?]|$)/u.test(clientId)) return false;
  return true;
}

/** The client a metadata-document client_id names, fetched and checked unless a fresh copy is cached. */
export async function resolveMetadataClient(db: Queryable, config: Pick<Config, "outboundAllowPrivate">, clientId: string): Promise<ClientRow> {
  const cached = await findFreshMetadataClient(db, clientId);
  if (cached !== null) return cached;
  let fetched;
  try {
    fetched = await fetchOutbound(clientId, {
      allowPrivate: config.outboundAllowPrivate,
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxRedirects: MAX_REDIRECTS,
    });
  } catch (error) {
    if (error instanceof OutboundError) throw refused(`its metadata document could not be fetched: ${error.message}`);
    throw error;
  }
  if (fetched.status !== 200) throw refused(`its metadata document answered HTTP ${fetched.status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fetched.body);
  } catch {
    throw refused("its metadata document is not JSON");
  }
  const document = parseOAuthInput(ClientMetadataDocument, parsed, "invalid_client_metadata");
  if (document.client_id !== clientId) throw refused(`its metadata document names another client_id ("${document.client_id.slice(0, 200)}")`);
  const authMethod = document.token_endpoint_auth_method;
  if (authMethod !== undefined && authMethod !== "none") {
    throw refused(`its metadata document asks for token_endpoint_auth_method "${authMethod}"; memoryd serves public clients with PKCE only ("none")`);
  }
  for (const uri of document.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw refused(`its metadata document lists a redirect URI memoryd does not accept: ${problem}`);
  }
  const name = document.client_name?.trim() || new URL(clientId).host;
  return upsertMetadataClient(db, clientId, name, document.redirect_uris, cacheSeconds(fetched.headers.get("cache-control")));
}

const refused = (reason: string): ApiError => ApiError.oauth("invalid_client", `this application cannot be authorized: ${reason}`);

/** max-age from Cache-Control, within bounds; no-store or no-cache still gets the minimum (each authorization would otherwise refetch). */
function cacheSeconds(cacheControl: string | null): number {
  const maxAge = /(?:^|,)\s*max-age=(\d+)/iu.exec(cacheControl ?? "")?.[1];
  const seconds = maxAge === undefined ? CACHE_SECONDS.default : Number(maxAge);
  return Math.min(CACHE_SECONDS.max, Math.max(CACHE_SECONDS.min, seconds));
}
