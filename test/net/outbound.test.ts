import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { fetchOutbound, isPrivateAddress, OutboundError } from "../../src/net/outbound";

let server: Server<undefined>;
let base: string;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/doc") return Response.json({ ok: true });
      if (path === "/big") return new Response("x".repeat(10_000));
      if (path === "/hop") return new Response(null, { status: 302, headers: { location: "/doc" } });
      if (path === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } });
      if (path === "/slow") await Bun.sleep(2_000);
      return new Response("late");
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const open = { allowPrivate: true, maxBytes: 5_000, timeoutMs: 1_000, maxRedirects: 2 };

test("private, loopback, link-local and reserved addresses are recognised; public ones are not", () => {
  for (const a of [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fd00::1",
    "fe80::1",
    "::ffff:127.0.0.1",
  ]) {
    expect(isPrivateAddress(a)).toBe(true);
  }
  for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPrivateAddress(a)).toBe(false);
});

test("by default: https only, and never a private or loopback address", async () => {
  const strict = { ...open, allowPrivate: false };
  await expect(fetchOutbound(`${base}/doc`, strict)).rejects.toThrow("https only");
  await expect(fetchOutbound(`https://127.0.0.1:${server.port}/doc`, strict)).rejects.toThrow("private, loopback or link-local");
  await expect(fetchOutbound("https://localhost:1/doc", strict)).rejects.toBeInstanceOf(OutboundError);
  await expect(fetchOutbound("https://user:pw@example.com/doc", strict)).rejects.toThrow("credentials");
});

test("bounded: body size, redirects and time", async () => {
  expect(JSON.parse((await fetchOutbound(`${base}/doc`, open)).body)).toEqual({ ok: true });
  const hopped = await fetchOutbound(`${base}/hop`, open);
  expect(hopped.url).toBe(`${base}/doc`);
  await expect(fetchOutbound(`${base}/big`, open)).rejects.toThrow("larger than 5000 bytes");
  await expect(fetchOutbound(`${base}/loop`, open)).rejects.toThrow("more than 2 redirects");
  await expect(fetchOutbound(`${base}/slow`, { ...open, timeoutMs: 100 })).rejects.toThrow("within 100 ms");
});
