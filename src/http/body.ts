import { ApiError } from "../errors";
import { UnreadInput } from "../schema/validate";

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * JSON nesting deeper than this is refused before parsing: no request shape goes past a few
 * levels, and validating thousands of levels overflows the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** The body's text within the byte limit (declared and actual): 413 past it. */
export async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw payloadTooLarge();
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  return new TextDecoder().decode(bytes);
}

/** True when arrays and objects nest deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* backslash */) i += 1;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 || c === 91 /* { [ */) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 125 || c === 93 /* } ] */) {
      depth -= 1;
    }
  }
  return false;
}

/** Parses a JSON body: 422 when it is empty, nested too deeply, or not JSON. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") {
    throw new ApiError("validation_error", "request body is empty: send a JSON object", {
      fields: [{ path: "body", reason: "required" }],
    });
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError("validation_error", `request body nests deeper than ${MAX_JSON_DEPTH} levels`, {
      fields: [{ path: "body", reason: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("validation_error", "request body is not valid JSON", {
      fields: [{ path: "body", reason: "malformed JSON" }],
    });
  }
}

/** The one way a JSON body is read: byte limit, then parse. */
async function readJsonBody(request: Request): Promise<unknown> {
  return parseJsonBody(await readBodyText(request));
}

/**
 * A route's body parser from a reader: what cannot be read is handed on as `UnreadInput`, for
 * the route's validator to throw, so the route's authentication answers before any complaint
 * about the body.
 */
export function bodyParser(read: (request: Request) => Promise<unknown>): (context: { request: Request }) => Promise<unknown> {
  return ({ request }) =>
    read(request).catch((error: unknown) => {
      if (error instanceof ApiError) return new UnreadInput(error);
      throw error;
    });
}

/** The JSON body of a route that declares `json: true`. */
export const parseJsonInput = bodyParser(readJsonBody);

export function payloadTooLarge(): ApiError {
  return new ApiError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);
}
