import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export const REDIRECT_URI = "http://127.0.0.1:53682/callback";

/**
 * The MCP SDK's OAuthClientProvider as an application implements it, kept in memory: it registers
 * itself, stores what the SDK hands it, and records where it was told to send the person.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  /** With a metadata URL the client identifies itself by that document instead of registering. */
  constructor(
    readonly redirectTarget: string = REDIRECT_URI,
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return this.redirectTarget;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Test Connector",
      redirect_uris: [this.redirectTarget],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return "state-123";
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
  }
}

export interface ConsentChoice {
  apiKey?: string;
  scopes?: string[];
  audience?: "key" | "internal" | "external";
  decision?: "allow" | "deny";
}

/** The hidden fields and CSRF cookie of a consent page, as a browser would keep them. */
export interface ConsentPage {
  status: number;
  html: string;
  fields: Record<string, string>;
  cookie: string;
}

export async function openConsentPage(authorizationUrl: URL | string): Promise<ConsentPage> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  const html = await res.text();
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)) {
    fields[match[1]!] = match[2]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  }
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { status: res.status, html, fields, cookie };
}

/** Submits a consent page the way its form does; returns the response without following it. */
export async function submitConsent(base: string, page: ConsentPage, choice: ConsentChoice): Promise<Response> {
  const form = new URLSearchParams(page.fields);
  form.set("decision", choice.decision ?? "allow");
  form.set("audience", choice.audience ?? "key");
  if (choice.apiKey !== undefined) form.set("api_key", choice.apiKey);
  for (const scope of choice.scopes ?? ["memory.read", "memory.write", "answers.write"]) form.append("granted_scopes", scope);
  return fetch(new URL("/oauth/authorize", base), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie },
    body: form,
  });
}

/** Opens the page the SDK was sent to and allows it; returns the code from the redirect. */
export async function consentAndGetCode(base: string, authorizationUrl: URL, choice: ConsentChoice): Promise<string> {
  const res = await submitConsent(base, await openConsentPage(authorizationUrl), choice);
  const location = res.headers.get("location");
  if (res.status !== 303 || location === null) throw new Error(`consent was not granted: ${res.status} ${await res.text()}`);
  const code = new URL(location).searchParams.get("code");
  if (code === null) throw new Error(`no code in ${location}`);
  return code;
}
