/**
 * Which model providers this server has, and which one (with which default model) runs an agent.
 * An agent names its provider; `auto` picks the best one configured: anthropic, else openai, else
 * the offline local provider. A provider the agent names explicitly but the server lacks fails the
 * run with `model_not_configured`: answering from another provider than the one asked for would
 * hide the misconfiguration.
 */
import type { Config } from "../config";
import { redactUrlCredentials } from "../redact";
import type { AgentProvider } from "../schema/agents";
import { createAnthropicProvider } from "./anthropic";
import { createLocalProvider } from "./local";
import { createOpenAIProvider, OPENAI_DEFAULT_BASE_URL } from "./openai";
import { ModelError, type ModelProvider } from "./types";

/** A provider and the model an agent without its own model name uses with it. */
export interface ResolvedProvider {
  provider: ModelProvider;
  defaultModel: string;
}

export interface ModelProviders {
  /** Throws ModelError `model_not_configured` for a provider this server lacks. */
  resolve(choice: AgentProvider): ResolvedProvider;
  /** One line for the operator: what is configured and what `auto` means here (never a key). */
  describe(): string;
}

/** Providers built elsewhere (tests point them at fake servers); each one counts as configured. */
export interface ProviderOverrides {
  anthropic?: ModelProvider;
  openai?: ModelProvider;
  local?: ModelProvider;
}

const HOW_TO_CONFIGURE = {
  anthropic: "set ANTHROPIC_API_KEY",
  openai: "set OPENAI_BASE_URL or OPENAI_API_KEY",
} as const;

export function createModelProviders(config: Config, overrides: ProviderOverrides = {}): ModelProviders {
  const anthropicKey = config.anthropicApiKey;
  const anthropic =
    overrides.anthropic ?? (anthropicKey === undefined ? undefined : createAnthropicProvider({ apiKey: anthropicKey, baseURL: config.anthropicBaseUrl }));
  // A key alone means OpenAI itself; a base URL alone, a local server that needs no key.
  const openaiConfigured = config.openaiApiKey !== undefined || config.openaiBaseUrl !== undefined;
  const openai = overrides.openai ?? (openaiConfigured ? createOpenAIProvider({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl }) : undefined);
  const local = overrides.local ?? createLocalProvider();

  const configured: { anthropic?: ResolvedProvider; openai?: ResolvedProvider; local: ResolvedProvider } = {
    anthropic: anthropic && { provider: anthropic, defaultModel: config.model },
    openai: openai && { provider: openai, defaultModel: config.openaiModel },
    local: { provider: local, defaultModel: "local" },
  };
  const auto = configured.anthropic ?? configured.openai ?? configured.local;

  return {
    resolve(choice) {
      if (choice === "auto") return auto;
      if (choice === "local") return configured.local;
      const resolved = configured[choice];
      if (resolved) return resolved;
      throw new ModelError("model_not_configured", `the ${choice} provider is not configured on this server (${HOW_TO_CONFIGURE[choice]})`);
    },

    describe() {
      const parts = [
        anthropic ? `anthropic (default model ${config.model})` : `anthropic not configured (${HOW_TO_CONFIGURE.anthropic})`,
        openai
          ? `openai at ${redactUrlCredentials(config.openaiBaseUrl ?? OPENAI_DEFAULT_BASE_URL)} (default model ${config.openaiModel})`
          : `openai not configured (${HOW_TO_CONFIGURE.openai})`,
        "local",
      ];
      return `model providers: ${parts.join(", ")}; agents on auto use ${auto.provider.name}`;
    },
  };
}
