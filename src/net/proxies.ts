/**
 * Who a request came from when memoryd sits behind reverse proxies it trusts
 * (MEMORYD_TRUSTED_PROXIES). Only a TCP peer inside a trusted range may speak for the client:
 * then the client is the right-most address of `X-Forwarded-For` (or `Forwarded: for=`) that is
 * not itself a trusted proxy, and the scheme and host the client used come from
 * `X-Forwarded-Proto`/`X-Forwarded-Host` (or `Forwarded: proto=`/`host=`). From any other peer
 * these headers are ignored: anyone can send them.
 */
import { addressBytes, inRanges, type Cidr } from "./cidr";

/** What a request says about its client, taken from the proxy headers only when the peer is trusted. */
export interface ForwardedClient {
  address: string;
  /** "https:" or "http:" as the client used it, when a trusted proxy said so. */
  protocol?: string;
  host?: string;
}

export function forwardedClient(peer: string, headers: Headers, trusted: readonly Cidr[]): ForwardedClient {
  if (trusted.length === 0 || !inRanges(peer, trusted)) return { address: peer };
  const forwarded = parseForwarded(headers.get("forwarded"));
  const chain = forwarded.length > 0 ? forwarded.map((f) => f.for ?? "") : splitList(headers.get("x-forwarded-for"));
  // Right to left: each trusted hop vouches for the one before it; the first untrusted one is the client.
  let address = peer;
  let at = chain.length;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = stripPort(chain[i]!);
    if (hop === "" || addressBytes(hop) === null) break;
    address = hop;
    at = i;
    if (!inRanges(hop, trusted)) break;
  }
  // The scheme and host the client used are what the proxy that received it recorded: the
  // element of the client's hop (or, in a list of one per hop, its position; else the last).
  const pick = (list: string[]): string | undefined => (list.length === chain.length ? list[at] : undefined) ?? list.at(-1);
  const element = forwarded[at];
  const protocol = (element?.proto ?? pick(splitList(headers.get("x-forwarded-proto"))))?.toLowerCase();
  const host = element?.host ?? pick(splitList(headers.get("x-forwarded-host")));
  return {
    address,
    ...(protocol === "https" || protocol === "http" ? { protocol: `${protocol}:` } : {}),
    ...(host !== undefined && /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/u.test(host) ? { host } : {}),
  };
}

const splitList = (value: string | null): string[] =>
  (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/** "1.2.3.4:5678" -> "1.2.3.4", "[2001:db8::1]:443" -> "2001:db8::1", a bare IPv6 address unchanged. */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/u.exec(hop);
  if (bracketed) return bracketed[1]!;
  return /^[\d.]+:\d+$/u.test(hop) ? hop.slice(0, hop.lastIndexOf(":")) : hop;
}

/** RFC 7239: `for=192.0.2.60;proto=http;host=example.com, for="[2001:db8::1]"`. */
function parseForwarded(value: string | null): { for?: string; proto?: string; host?: string }[] {
  return splitList(value).map((element) => {
    const fields: Record<string, string> = {};
    for (const pair of element.split(";")) {
      const eq = pair.indexOf("=");
      if (eq < 0) continue;
      fields[pair.slice(0, eq).trim().toLowerCase()] = pair
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/gu, "");
    }
    return {
      ...(fields.for !== undefined ? { for: fields.for } : {}),
      ...(fields.proto !== undefined ? { proto: fields.proto } : {}),
      ...(fields.host !== undefined ? { host: fields.host } : {}),
    };
  });
}

/**
 * The client of each request in flight, worked out once by the request pipeline: the lockout,
 * the OAuth throttle, the issuer URL, the request log and the metrics' loopback check all read it.
 */
const clients = new WeakMap<Request, ForwardedClient>();

export function rememberClient(request: Request, client: ForwardedClient): void {
  clients.set(request, client);
}

export function rememberedClient(request: Request): ForwardedClient | undefined {
  return clients.get(request);
}
