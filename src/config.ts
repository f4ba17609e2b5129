import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parseCidr } from "./net/cidr";
import { redactUrlCredentials } from "./redact";
import { allowedValues } from "./schema/validate";

const LogLevel = Type.Union([Type.Literal("debug"), Type.Literal("info"), Type.Literal("warn"), Type.Literal("error"), Type.Literal("silent")]);

export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  dataDir: Type.String({ minLength: 1 }),
  databaseUrl: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  deployment: Type.Union([Type.Literal("live"), Type.Literal("test")]),
  anthropicApiKey: Type.Optional(Type.String({ minLength: 1 })),
  anthropicBaseUrl: Type.Optional(Type.String({ pattern: "^https?://" })),
  model: Type.String({ minLength: 1 }),
  openaiApiKey: Type.Optional(Type.String({ minLength: 1 })),
  openaiBaseUrl: Type.Optional(Type.String({ pattern: "^https?://" })),
  openaiModel: Type.String({ minLength: 1 }),
  adminToken: Type.Optional(Type.String({ minLength: 16 })),
  logLevel: LogLevel,
  allowedOrigins: Type.Array(Type.String({ pattern: "^https?://[^/]+$" })),
  indexMemoryMb: Type.Integer({ minimum: 16, maximum: 1_048_576 }),
  answerLeaseSeconds: Type.Integer({ minimum: 3, maximum: 600 }),
  metricsToken: Type.Optional(Type.String({ minLength: 16 })),
  publicUrl: Type.Optional(Type.String({ pattern: "^https?://[^/?#]+$" })),
  outboundAllowPrivate: Type.Boolean(),
  trustedProxies: Type.Array(Type.String({ minLength: 1 })),
  embeddingsUrl: Type.Optional(Type.String({ pattern: "^https?://[^\\s]+$" })),
  embeddingsModel: Type.Optional(Type.String({ minLength: 1 })),
  embeddingsApiKey: Type.Optional(Type.String({ minLength: 1 })),
  embeddingsTimeoutMs: Type.Integer({ minimum: 50, maximum: 60_000 }),
  embeddingsBatch: Type.Integer({ minimum: 1, maximum: 2048 }),
  embeddingsMinSimilarity: Type.Number({ minimum: -1, maximum: 1 }),
  embeddingsQueryPrefix: Type.String(),
  embeddingsDocumentPrefix: Type.String(),
});

export type Config = Static<typeof ConfigSchema>;
export type LogLevelName = Static<typeof LogLevel>;
type Key = keyof Config;

interface Setting {
  env: string;
  flag?: string;
  default?: string;
  integer?: boolean;
  list?: boolean;
  /** "true" or "false". */
  boolean?: boolean;
  /** A decimal number ("0.3"). */
  number?: boolean;
  secret?: boolean;
  description: string;
}

/** Every setting, where it comes from and its default. Flags beat env, env beats defaults. */
export const SETTINGS: Record<Key, Setting> = {
  port: { env: "PORT", flag: "port", default: "8787", integer: true, description: "HTTP port" },
  host: { env: "HOST", flag: "host", default: "127.0.0.1", description: "address to bind" },
  dataDir: {
    env: "MEMORYD_DATA_DIR",
    flag: "data-dir",
    default: "./memoryd-data",
    description: "embedded database directory (used when no DATABASE_URL)",
  },
  databaseUrl: {
    env: "DATABASE_URL",
    flag: "database-url",
    secret: true,
    description: "PostgreSQL URL; when set, the embedded database is not used",
  },
  deployment: { env: "MEMORYD_DEPLOYMENT", default: "test", description: "`live` issues ak_live_ keys, `test` ak_test_" },
  anthropicApiKey: { env: "ANTHROPIC_API_KEY", secret: true, description: "enables the anthropic provider" },
  anthropicBaseUrl: { env: "ANTHROPIC_BASE_URL", description: "Anthropic API base URL" },
  model: { env: "MEMORYD_MODEL", default: "claude-sonnet-5-5", description: "default model for agents on the anthropic provider" },
  openaiApiKey: { env: "OPENAI_API_KEY", secret: true, description: "enables the openai provider (optional for a local server)" },
  openaiBaseUrl: {
    env: "OPENAI_BASE_URL",
    description: "OpenAI-compatible API base URL (http://127.0.0.1:11434/v1 for Ollama); setting it enables the openai provider",
  },
  openaiModel: { env: "OPENAI_MODEL", default: "gpt-4.1-mini", description: "default model for agents on the openai provider" },
  adminToken: { env: "MEMORYD_ADMIN_TOKEN", secret: true, description: "token for the settings app (min 16 chars)" },
  logLevel: { env: "MEMORYD_LOG_LEVEL", default: "info", description: "debug, info, warn, error or silent" },
  allowedOrigins: {
    env: "MEMORYD_ALLOWED_ORIGINS",
    default: "",
    list: true,
    description: "comma-separated browser origins (https://app.example.com) allowed to call /v1/mcp besides loopback",
  },
  indexMemoryMb: {
    env: "MEMORYD_INDEX_MEMORY_MB",
    default: "1024",
    integer: true,
    description: "memory for in-process search indexes (MB); least recently used workspaces are evicted past it",
  },
  metricsToken: {
    env: "MEMORYD_METRICS_TOKEN",
    secret: true,
    description: "bearer token for GET /metrics (min 16 chars); unset, only loopback clients may read it",
  },
  publicUrl: {
    env: "MEMORYD_PUBLIC_URL",
    description:
      "the origin clients reach this server at (https://memory.example.com, no path), used in the OAuth metadata; unset, each request's own Host is used",
  },
  trustedProxies: {
    env: "MEMORYD_TRUSTED_PROXIES",
    default: "",
    list: true,
    description:
      "comma-separated addresses or CIDR ranges (127.0.0.1, 10.0.0.0/8) of reverse proxies " +
      "whose X-Forwarded-For / Forwarded headers say who the client is; empty trusts none",
  },
  outboundAllowPrivate: {
    env: "MEMORYD_OUTBOUND_ALLOW_PRIVATE",
    default: "false",
    boolean: true,
    description:
      "true lets memoryd fetch from private and loopback addresses (OAuth client metadata documents); " +
      "for development and tests only, never on a server others can reach",
  },
  embeddingsUrl: {
    env: "MEMORYD_EMBEDDINGS_URL",
    description: "base URL of an OpenAI-compatible embeddings API (http://127.0.0.1:11434/v1 for Ollama); set, search also ranks by the model's vectors",
  },
  embeddingsModel: { env: "MEMORYD_EMBEDDINGS_MODEL", description: "embedding model name (nomic-embed-text); required with MEMORYD_EMBEDDINGS_URL" },
  embeddingsApiKey: { env: "MEMORYD_EMBEDDINGS_API_KEY", secret: true, description: "bearer key for the embeddings API, if it needs one" },
  embeddingsTimeoutMs: {
    env: "MEMORYD_EMBEDDINGS_TIMEOUT_MS",
    default: "1000",
    integer: true,
    description: "how long a search waits for its query's vector before it ranks without it (50-60000 ms)",
  },
  embeddingsBatch: { env: "MEMORYD_EMBEDDINGS_BATCH", default: "32", integer: true, description: "facts embedded per request to the embeddings API (1-2048)" },
  embeddingsMinSimilarity: {
    env: "MEMORYD_EMBEDDINGS_MIN_SIMILARITY",
    default: "0.3",
    number: true,
    description: "the least cosine similarity at which a fact's vector counts in the ranking (-1 to 1; models differ: 0.3 suits most)",
  },
  embeddingsQueryPrefix: {
    env: "MEMORYD_EMBEDDINGS_QUERY_PREFIX",
    default: "",
    description: 'text put before each query for models that want one ("search_query: " for nomic-embed-text)',
  },
  embeddingsDocumentPrefix: {
    env: "MEMORYD_EMBEDDINGS_DOCUMENT_PREFIX",
    default: "",
    description: 'text put before each fact for models that want one ("search_document: " for nomic-embed-text)',
  },
  answerLeaseSeconds: {
    env: "MEMORYD_ANSWER_LEASE_SECONDS",
    default: "15",
    integer: true,
    description: "how long a running answer's lease lasts (renewed every third of it); another instance takes a run over once its lease lapses (3-600)",
  },
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Resolves the configuration once: flags > env > defaults, then validates. The first bad value
 * throws a ConfigError naming the setting (and never echoing a secret's value).
 */
export function loadConfig(flags: Record<string, string | undefined>, env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, string | number | boolean | string[]> = {};
  const sources: Record<string, string> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [Key, Setting][]) {
    const fromFlag = setting.flag === undefined ? undefined : flags[setting.flag];
    const fromEnv = env[setting.env] === "" ? undefined : env[setting.env];
    const value = fromFlag ?? fromEnv ?? setting.default;
    if (value === undefined) continue;
    const source = fromFlag !== undefined ? `--${setting.flag}` : fromEnv !== undefined ? setting.env : `default ${key}`;
    const shown = setting.secret ? "(value hidden)" : `"${redactUrlCredentials(value)}"`;
    sources[key] = `${source} ${shown}`;
    if (setting.integer && !/^\d+$/.test(value)) throw new ConfigError(`invalid ${sources[key]}: expected an integer`);
    if (setting.boolean && value !== "true" && value !== "false") throw new ConfigError(`invalid ${sources[key]}: expected true or false`);
    if (setting.number && !/^-?\d+(?:\.\d+)?$/.test(value)) throw new ConfigError(`invalid ${sources[key]}: expected a number`);
    raw[key] = setting.boolean
      ? value === "true"
      : setting.integer || setting.number
        ? Number(value)
        : setting.list
          ? value
              .split(",")
              .map((v) => v.trim())
              .filter((v) => v !== "")
          : value;
  }
  const error = Value.Errors(ConfigSchema, raw).First();
  if (error) {
    const key = error.path.split("/")[1] ?? "";
    throw new ConfigError(
      `invalid ${sources[key] ?? key}: ${allowedValues(error.schema) ? `expected one of ${allowedValues(error.schema)?.join(", ")}` : error.message}`,
    );
  }
  if ((raw.embeddingsUrl === undefined) !== (raw.embeddingsModel === undefined)) {
    throw new ConfigError(
      raw.embeddingsUrl === undefined
        ? `${sources.embeddingsModel} needs MEMORYD_EMBEDDINGS_URL: the model is served by an OpenAI-compatible embeddings API`
        : `${sources.embeddingsUrl} needs MEMORYD_EMBEDDINGS_MODEL: name the embedding model (for example nomic-embed-text)`,
    );
  }
  const badRange = (raw.trustedProxies as string[]).find((range) => parseCidr(range) === null);
  if (badRange !== undefined) throw new ConfigError(`invalid ${sources.trustedProxies}: "${badRange}" is not an IP address or CIDR range`);
  return raw as Config;
}
