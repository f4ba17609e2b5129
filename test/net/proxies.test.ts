import { expect, test } from "bun:test";
import { inRanges, parseCidr, type Cidr } from "../../src/net/cidr";
import { forwardedClient } from "../../src/net/proxies";

const ranges = (...texts: string[]): Cidr[] => texts.map((t) => parseCidr(t)!);
const headers = (h: Record<string, string>): Headers => new Headers(h);

test("CIDR ranges: IPv4, IPv6, single addresses and IPv4-mapped peers; nonsense is refused", () => {
  expect(inRanges("10.1.2.3", ranges("10.0.0.0/8"))).toBe(true);
  expect(inRanges("11.0.0.1", ranges("10.0.0.0/8"))).toBe(false);
  expect(inRanges("172.20.0.5", ranges("172.16.0.0/12"))).toBe(true);
  expect(inRanges("::ffff:127.0.0.1", ranges("127.0.0.1"))).toBe(true);
  expect(inRanges("2001:db8::42", ranges("2001:db8::/32"))).toBe(true);
  expect(inRanges("2001:db9::42", ranges("2001:db8::/32"))).toBe(false);
  expect(inRanges("::1", ranges("::1/128"))).toBe(true);
  for (const bad of ["10.0.0.0/33", "nonsense", "10.0.0/8", "::1/129", ""]) expect(parseCidr(bad)).toBeNull();
});

test("an untrusted peer's forwarding headers are ignored", () => {
  const spoofed = headers({ "x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" });
  expect(forwardedClient("198.51.100.2", spoofed, ranges("127.0.0.1"))).toEqual({ address: "198.51.100.2" });
  expect(forwardedClient("127.0.0.1", spoofed, [])).toEqual({ address: "127.0.0.1" });
});

test("behind trusted proxies the client is the right-most untrusted hop; its scheme and host come along", () => {
  const trusted = ranges("127.0.0.1", "10.0.0.0/8");
  // The client put a fake address first; the proxies appended what they saw.
  const chain = headers({ "x-forwarded-for": "1.2.3.4, 203.0.113.7, 10.0.0.5", "x-forwarded-proto": "https", "x-forwarded-host": "memory.example.com" });
  expect(forwardedClient("127.0.0.1", chain, trusted)).toEqual({ address: "203.0.113.7", protocol: "https:", host: "memory.example.com" });
  // RFC 7239: the proxy that met the client records its scheme and host; the next adds only itself.
  const rfc7239 = headers({ forwarded: 'for="[2001:db8::1]:4711";proto=https;host=memory.example.com, for=10.0.0.5' });
  expect(forwardedClient("127.0.0.1", rfc7239, trusted)).toEqual({ address: "2001:db8::1", protocol: "https:", host: "memory.example.com" });
  expect(forwardedClient("127.0.0.1", headers({ "x-forwarded-for": "203.0.113.7:5555" }), trusted).address).toBe("203.0.113.7");
  // Only trusted hops: the left-most stands for the client; a garbage hop stops the walk.
  expect(forwardedClient("127.0.0.1", headers({ "x-forwarded-for": "10.0.0.9, 10.0.0.5" }), trusted).address).toBe("10.0.0.9");
  expect(forwardedClient("127.0.0.1", headers({ "x-forwarded-for": "not-an-ip, 10.0.0.5" }), trusted).address).toBe("10.0.0.5");
  // A host that is not a host name is not used.
  expect(forwardedClient("127.0.0.1", headers({ "x-forwarded-host": "evil.example/path" }), trusted).host).toBeUndefined();
});
