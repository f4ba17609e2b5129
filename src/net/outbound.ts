/**
 * Fetching a URL someone else chose (an OAuth client's metadata document, a webhook): https only, never to
 * a private, loopback or link-local address (the server must not become a way into the network
 * it runs in), a bounded body, a time limit and few redirects, each redirect checked like the
 * first URL.
 *
 * Trade-off: the address is checked by resolving the name first and fetch resolves it again, so
 * a name whose answer changes between the two (DNS rebinding) is not caught; pinning the address
 * would need a TLS connection by IP with the name as SNI, which fetch does not offer.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { inRanges, parseCidr, type Cidr } from "./cidr";

export interface OutboundOptions {
  /** Private and loopback addresses (and plain http to them) allowed: development and tests only. */
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

/** Why a fetch was refused or failed, for the person or client that named the URL. */
export class OutboundError extends Error {
  override name = "OutboundError";
}

export interface OutboundResponse {
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

/** GETs `url` under the rules above and returns its body as text. */
export async function fetchOutbound(url: string, options: OutboundOptions, accept = "application/json"): Promise<OutboundResponse> {
  let current = new URL(url);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  for (let hop = 0; ; hop++) {
    await checkDestination(current, options.allowPrivate);
    let response: Response;
    try {
      response = await fetch(current, { redirect: "manual", signal: deadline, headers: { accept } });
    } catch (error) {
      throw new OutboundError(
        deadline.aborted ? `no answer from ${current.host} within ${options.timeoutMs} ms` : `could not reach ${current.host}: ${errorText(error)}`,
      );
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      if (hop >= options.maxRedirects) throw new OutboundError(`more than ${options.maxRedirects} redirects from ${url}`);
      current = new URL(location, current);
      continue;
    }
    const body = await readBounded(response, options.maxBytes);
    return { url: current.href, status: response.status, headers: response.headers, body };
  }
}

/**
 * POSTs `body` to `url` under the same destination rules, following no redirect (a 3xx is the
 * answer), and returns the status; the response body is not read.
 */
export async function postOutbound(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: Pick<OutboundOptions, "allowPrivate" | "timeoutMs">,
): Promise<number> {
  const target = new URL(url);
  await checkDestination(target, options.allowPrivate);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(target, { method: "POST", redirect: "manual", signal: deadline, headers, body });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    throw new OutboundError(
      deadline.aborted ? `no answer from ${target.host} within ${options.timeoutMs} ms` : `could not reach ${target.host}: ${errorText(error)}`,
    );
  }
}

/** Throws an OutboundError when memoryd would not send to `url` (see the module comment). */
export async function checkDestination(url: URL, allowPrivate: boolean): Promise<void> {
  if (url.username !== "" || url.password !== "") throw new OutboundError("the URL carries credentials");
  const host = url.hostname.replace(/^\[|\]$/gu, "");
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) throw new OutboundError(`${url.protocol} URLs are not fetched: https only`);
  if (allowPrivate) return;
  const addresses =
    isIP(host) !== 0
      ? [host]
      : await lookup(host, { all: true, verbatim: true }).then(
          (found) => found.map((a) => a.address),
          () => [],
        );
  if (addresses.length === 0) throw new OutboundError(`the name ${host} does not resolve`);
  const inner = addresses.find(isPrivateAddress);
  if (inner !== undefined) throw new OutboundError(`${host} is a private, loopback or link-local address (${inner}); memoryd fetches only public addresses`);
}

/** Blocks of addresses that are not on the public internet (IPv4-mapped IPv6 counts as IPv4). */
const PRIVATE_RANGES: readonly Cidr[] = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local (cloud metadata at 169.254.169.254)
  "172.16.0.0/12",
  "192.0.0.0/24", // protocol assignments
  "192.168.0.0/16",
  "198.18.0.0/15", // benchmarking
  "224.0.0.0/3", // multicast and reserved
  "::/128",
  "::1/128",
  "fc00::/7", // unique local
  "fe80::/10", // link-local
  "ff00::/8", // multicast
].map((range) => parseCidr(range)!);

export function isPrivateAddress(address: string): boolean {
  return inRanges(address, PRIVATE_RANGES);
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new OutboundError(`the document is larger than ${maxBytes} bytes`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new OutboundError(`the document is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
