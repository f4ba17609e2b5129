import type { Usage } from "../schema/answers";

/** One turn of the conversation as the model sees it. */
export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export type { Usage } from "../schema/answers";

/**
 * What a model may call during a run. The runner binds these to the caller's workspace and
 * visibility, so a tool can never reach past what the run itself may see.
 */
export interface RunTools {
  /** Extra retrieval inside the run; returns the facts found (text for the model, ids as sources). */
  searchMemory(query: string): Promise<{ text: string; factIds: string[] }>;
  /**
   * Stores a conclusion through the capture pipeline with origin `agent_inferred`; absent when
   * the agent may not write memory (the model is then not offered the tool).
   */
  remember?(fact: string): Promise<string>;
}

export interface GenerateRequest {
  model: string;
  /** System prompt with the rendered context packet inside it. */
  system: string;
  /** Earlier turns of the conversation, then the new user input last. */
  messages: ChatMessage[];
  maxOutputTokens: number;
  /** null: no tools are offered (the capture model reads and replies, nothing more). */
  tools: RunTools | null;
  /** The facts the packet was built from, for providers that answer from them directly. */
  facts: readonly { fact_id: string; fact_text: string; kind: string; recorded_time: string }[];
  signal: AbortSignal;
}

export interface GenerateResult {
  text: string;
  usage: Usage;
}

/** A stable failure a run can end with; `code` is what clients switch on. */
export class ModelError extends Error {
  constructor(
    readonly code:
      | "model_rate_limited"
      | "model_overloaded"
      | "model_auth_failed"
      | "model_timeout"
      | "model_unavailable"
      | "model_error"
      /** The agent's provider is not configured on this server: fix the configuration, not a retry. */
      | "model_not_configured",
    message: string,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

/** A model behind one small interface: stream text out through `onDelta`, return the whole. */
export interface ModelProvider {
  readonly name: "anthropic" | "openai" | "local";
  generate(request: GenerateRequest, onDelta: (text: string) => void): Promise<GenerateResult>;
}
