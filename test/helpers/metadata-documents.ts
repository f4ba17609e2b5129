/**
 * A metadata-document host for tests: JSON documents over TLS on loopback, with a test certificate
 * for "localhost" that a memoryd started with NODE_EXTRA_CA_CERTS=TEST_CA trusts.
 */
import { join } from "node:path";
import type { Server } from "bun";

const TLS_DIR = join(import.meta.dir, "..", "fixtures", "tls");
export const TEST_CA = join(TLS_DIR, "localhost-cert.pem");
const TEST_KEY = join(TLS_DIR, "localhost-key.pem");

/** Serves documents by path ([status, body, extra headers]); `documents` gets the server's origin. */
export function documentServer(documents: (origin: string) => Record<string, [number, string, Record<string, string>?]>): Server<undefined> {
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: Bun.file(TEST_CA), key: Bun.file(TEST_KEY) },
    fetch(req) {
      const entry = documents(`https://localhost:${server.port}`)[new URL(req.url).pathname];
      if (entry === undefined) return new Response("not found", { status: 404 });
      const [status, body, headers] = entry;
      return new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
    },
  });
  return server;
}
