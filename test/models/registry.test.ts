import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { createModelProviders } from "../../src/models/registry";
import { ModelError } from "../../src/models/types";

const providers = (env: Record<string, string>) => createModelProviders(loadConfig({}, env));

function notConfigured(run: () => unknown): ModelError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error("expected a ModelError");
}

describe("model providers", () => {
  test("with nothing configured: auto is local, and naming anthropic or openai fails with how to configure it", () => {
    const models = providers({});
    expect(models.resolve("auto").provider.name).toBe("local");
    expect(models.resolve("local").provider.name).toBe("local");
    const openai = notConfigured(() => models.resolve("openai"));
    expect(openai.code).toBe("model_not_configured");
    expect(openai.message).toBe("the openai provider is not configured on this server (set OPENAI_BASE_URL or OPENAI_API_KEY)");
    expect(notConfigured(() => models.resolve("anthropic")).message).toContain("set ANTHROPIC_API_KEY");
    expect(models.describe()).toBe(
      "model providers: anthropic not configured (set ANTHROPIC_API_KEY), openai not configured (set OPENAI_BASE_URL or OPENAI_API_KEY), local; agents on auto use local",
    );
  });

  test("a base URL alone configures openai (a local server needs no key); auto then uses it, with OPENAI_MODEL", () => {
    const models = providers({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", OPENAI_MODEL: "llama3.1" });
    expect(models.resolve("auto")).toMatchObject({ provider: { name: "openai" }, defaultModel: "llama3.1" });
    expect(models.resolve("openai").defaultModel).toBe("llama3.1");
    expect(models.describe()).toBe(
      "model providers: anthropic not configured (set ANTHROPIC_API_KEY), openai at http://127.0.0.1:11434/v1 (default model llama3.1), local; agents on auto use openai",
    );
  });

  test("with both, auto prefers anthropic and each agent can still name either; the line shows no key or URL password", () => {
    const models = providers({
      ANTHROPIC_API_KEY: "sk-ant-SECRET-1",
      OPENAI_API_KEY: "sk-openai-SECRET-2",
      OPENAI_BASE_URL: "https://proxy-user:proxy-pass@llm.internal/v1",
    });
    expect(models.resolve("auto")).toMatchObject({ provider: { name: "anthropic" }, defaultModel: "claude-sonnet-5-5" });
    expect(models.resolve("openai")).toMatchObject({ provider: { name: "openai" }, defaultModel: "gpt-4.1-mini" });
    const line = models.describe();
    expect(line).toContain("anthropic (default model claude-sonnet-5-5)");
    expect(line).toContain("openai at https://***@llm.internal/v1 (default model gpt-4.1-mini)");
    expect(line).toEndWith("agents on auto use anthropic");
    for (const secret of ["SECRET", "proxy-pass"]) expect(line).not.toContain(secret);
  });

  test("a key alone means OpenAI itself", () => {
    expect(providers({ OPENAI_API_KEY: "sk-x" }).describe()).toContain("openai at https://api.openai.com/v1 (default model gpt-4.1-mini)");
  });
});
