import { expect, test } from "bun:test";
import { originAllowed } from "../../src/http/origin";

const on = (host: string, allowedOrigins: string[] = []) => ({ host, allowedOrigins });
const from = (origin: string | null, hostHeader = "memory.example.com:8787"): Request =>
  new Request("http://memory.example.com:8787/v1/mcp", { method: "POST", headers: { host: hostHeader, ...(origin === null ? {} : { origin }) } });

test.each([
  ["no Origin (not a browser page)", null, on("127.0.0.1"), true],
  ["a loopback page", "http://localhost:3000", on("127.0.0.1"), true],
  ["a loopback IPv6 page", "http://[::1]:5173", on("127.0.0.1"), true],
  ["a foreign page against a loopback server (DNS rebinding)", "https://evil.example", on("127.0.0.1"), false],
  ["a listed origin", "https://app.example.com", on("127.0.0.1", ["https://app.example.com"]), true],
  ["a listed origin's other port is another origin", "https://app.example.com:444", on("127.0.0.1", ["https://app.example.com"]), false],
  ["the server's own host when serving publicly", "http://memory.example.com:8787", on("0.0.0.0"), true],
  ["its own host name is no pass on loopback", "http://memory.example.com:8787", on("127.0.0.1"), false],
  ["an unparseable Origin", "not a url", on("0.0.0.0"), false],
  ["the literal null Origin of sandboxed frames", "null", on("0.0.0.0"), false],
] as const)("%s", (_name, origin, config, allowed) => {
  expect(originAllowed(from(origin), { host: config.host, allowedOrigins: [...config.allowedOrigins] })).toBe(allowed);
});
