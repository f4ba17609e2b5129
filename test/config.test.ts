import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config";

describe("loadConfig", () => {
  test("defaults apply when nothing is set", () => {
    const config = loadConfig({}, {});
    expect(config).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      dataDir: "./memoryd-data",
      deployment: "test",
      logLevel: "info",
    });
    expect(config.databaseUrl).toBeUndefined();
  });

  test("flags beat env, env beats defaults", () => {
    const config = loadConfig({ port: "9000" }, { PORT: "9100", HOST: "0.0.0.0", MEMORYD_DEPLOYMENT: "live" });
    expect(config.port).toBe(9000);
    expect(config.host).toBe("0.0.0.0");
    expect(config.deployment).toBe("live");
  });

  test("the openai provider's settings: key (secret), base URL and a default model", () => {
    expect(loadConfig({}, {})).toMatchObject({ openaiModel: "gpt-4.1-mini" });
    const config = loadConfig({}, { OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", OPENAI_MODEL: "llama3.1" });
    expect(config).toMatchObject({ openaiApiKey: "sk-x", openaiBaseUrl: "http://127.0.0.1:11434/v1", openaiModel: "llama3.1" });
  });

  test("an empty env value counts as unset", () => {
    expect(loadConfig({}, { PORT: "" }).port).toBe(8787);
  });

  test.each([
    [{ port: "abc" }, {}, /--port "abc".*integer/],
    [{ port: "70000" }, {}, /--port "70000"/],
    [{}, { MEMORYD_DEPLOYMENT: "prod" }, /MEMORYD_DEPLOYMENT "prod"/],
    [{}, { MEMORYD_LOG_LEVEL: "loud" }, /MEMORYD_LOG_LEVEL "loud"/],
    [{ "database-url": "mysql://x" }, {}, /--database-url \(value hidden\)/],
    [{}, { OPENAI_BASE_URL: "localhost:11434/v1" }, /OPENAI_BASE_URL "localhost:11434\/v1"/],
  ] as const)("bad value %j %j names the setting", (flags, env, message) => {
    expect(() => loadConfig(flags, env)).toThrow(ConfigError);
    expect(() => loadConfig(flags, env)).toThrow(message);
  });

  test("a bad secret is named but never echoed", () => {
    try {
      loadConfig({}, { MEMORYD_ADMIN_TOKEN: "short-secret" });
      throw new Error("expected a ConfigError");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain("MEMORYD_ADMIN_TOKEN");
      expect((error as Error).message).not.toContain("short-secret");
    }
  });
});

test("MEMORYD_TRUSTED_PROXIES takes addresses and CIDR ranges, and names a bad one", () => {
  expect(loadConfig({}, { MEMORYD_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8,::1" }).trustedProxies).toEqual(["127.0.0.1", "10.0.0.0/8", "::1"]);
  expect(loadConfig({}, {}).trustedProxies).toEqual([]);
  expect(() => loadConfig({}, { MEMORYD_TRUSTED_PROXIES: "10.0.0.0/40" })).toThrow(ConfigError);
  expect(() => loadConfig({}, { MEMORYD_TRUSTED_PROXIES: "proxy.internal" })).toThrow('"proxy.internal" is not an IP address or CIDR range');
  expect(loadConfig({}, { MEMORYD_OUTBOUND_ALLOW_PRIVATE: "true" }).outboundAllowPrivate).toBe(true);
  expect(() => loadConfig({}, { MEMORYD_OUTBOUND_ALLOW_PRIVATE: "yes" })).toThrow("expected true or false");
});

describe("the embeddings endpoint's settings", () => {
  const URL_ = "http://127.0.0.1:11434/v1";
  const KEY = "sk-embeddings-secret-9c1d";

  test("unset by default: no endpoint, no model; the tuning settings have defaults", () => {
    const config = loadConfig({}, {});
    expect(config.embeddingsUrl).toBeUndefined();
    expect(config.embeddingsModel).toBeUndefined();
    expect(config.embeddingsApiKey).toBeUndefined();
    expect(config).toMatchObject({ embeddingsTimeoutMs: 1000, embeddingsBatch: 32, embeddingsQueryPrefix: "", embeddingsDocumentPrefix: "" });
  });

  test("all of them read from the environment", () => {
    const config = loadConfig(
      {},
      {
        MEMORYD_EMBEDDINGS_URL: URL_,
        MEMORYD_EMBEDDINGS_MODEL: "nomic-embed-text",
        MEMORYD_EMBEDDINGS_API_KEY: KEY,
        MEMORYD_EMBEDDINGS_TIMEOUT_MS: "250",
        MEMORYD_EMBEDDINGS_BATCH: "64",
        MEMORYD_EMBEDDINGS_QUERY_PREFIX: "search_query: ",
        MEMORYD_EMBEDDINGS_DOCUMENT_PREFIX: "search_document: ",
      },
    );
    expect(config).toMatchObject({
      embeddingsUrl: URL_,
      embeddingsModel: "nomic-embed-text",
      embeddingsApiKey: KEY,
      embeddingsTimeoutMs: 250,
      embeddingsBatch: 64,
      embeddingsQueryPrefix: "search_query: ",
      embeddingsDocumentPrefix: "search_document: ",
    });
  });

  test.each([
    [{ MEMORYD_EMBEDDINGS_URL: URL_ }, /MEMORYD_EMBEDDINGS_URL "http:\/\/127\.0\.0\.1:11434\/v1" needs MEMORYD_EMBEDDINGS_MODEL/],
    [{ MEMORYD_EMBEDDINGS_MODEL: "nomic-embed-text" }, /MEMORYD_EMBEDDINGS_MODEL "nomic-embed-text" needs MEMORYD_EMBEDDINGS_URL/],
    [{ MEMORYD_EMBEDDINGS_URL: "127.0.0.1:11434/v1", MEMORYD_EMBEDDINGS_MODEL: "m" }, /invalid MEMORYD_EMBEDDINGS_URL "127\.0\.0\.1:11434\/v1"/],
    [{ MEMORYD_EMBEDDINGS_URL: "http://host name/v1", MEMORYD_EMBEDDINGS_MODEL: "m" }, /invalid MEMORYD_EMBEDDINGS_URL/],
    [{ MEMORYD_EMBEDDINGS_URL: URL_, MEMORYD_EMBEDDINGS_MODEL: "m", MEMORYD_EMBEDDINGS_TIMEOUT_MS: "10" }, /MEMORYD_EMBEDDINGS_TIMEOUT_MS "10"/],
    [{ MEMORYD_EMBEDDINGS_URL: URL_, MEMORYD_EMBEDDINGS_MODEL: "m", MEMORYD_EMBEDDINGS_BATCH: "4096" }, /MEMORYD_EMBEDDINGS_BATCH "4096"/],
    [{ MEMORYD_EMBEDDINGS_URL: URL_, MEMORYD_EMBEDDINGS_MODEL: "m", MEMORYD_EMBEDDINGS_BATCH: "many" }, /MEMORYD_EMBEDDINGS_BATCH "many".*integer/],
  ])("%j is a ConfigError naming the setting, never the key", (env, message) => {
    const withKey = { ...env, MEMORYD_EMBEDDINGS_API_KEY: KEY };
    expect(() => loadConfig({}, withKey)).toThrow(ConfigError);
    expect(() => loadConfig({}, withKey)).toThrow(message);
    try {
      loadConfig({}, withKey);
    } catch (error) {
      expect((error as Error).message).not.toContain(KEY);
    }
  });

  test("a URL's credentials are redacted in the error", () => {
    expect(() => loadConfig({}, { MEMORYD_EMBEDDINGS_URL: "https://ops:hunter22@embed.example.com/v1" })).toThrow(
      'MEMORYD_EMBEDDINGS_URL "https://***@embed.example.com/v1" needs MEMORYD_EMBEDDINGS_MODEL',
    );
  });
});
