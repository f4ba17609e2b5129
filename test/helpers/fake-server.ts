/** What the fake model servers (fake-anthropic.ts, fake-openai.ts) share. */
import type { Server } from "bun";

/** Splits text into `count` pieces of whole code points (fewer if the text is shorter). */
export function split(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(Math.floor(count), chars.length));
  const size = Math.ceil(chars.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}

export const sleep = (ms: number): Promise<void> => (ms > 0 ? Bun.sleep(ms) : Promise.resolve());

/**
 * An HTTP server on 127.0.0.1 with an OS-assigned port; `handle` gets the request, its path and
 * its headers with lower-cased names.
 */
export function loopbackServer(handle: (req: Request, path: string, headers: Record<string, string>) => Response | Promise<Response>): Server<undefined> {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // Hanging requests are meant to outlive Bun's default 10 s idle timeout.
    idleTimeout: 0,
    fetch(req) {
      const headers: Record<string, string> = {};
      req.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      return handle(req, new URL(req.url).pathname, headers);
    },
  });
}
