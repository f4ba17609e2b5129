import { Type, type Static } from "@sinclair/typebox";
import { AgentSlug, Text } from "./memory";

/**
 * The model provider an agent runs on; `auto` = anthropic when it is configured, else openai when
 * it is configured, else local.
 */
export const AgentProvider = Type.Union([Type.Literal("auto"), Type.Literal("anthropic"), Type.Literal("openai"), Type.Literal("local")], {
  description:
    "the model provider: anthropic, openai (any OpenAI-compatible server), local (no model), " +
    "or auto (anthropic when configured, else openai when configured, else local)",
});
export type AgentProvider = Static<typeof AgentProvider>;

export const AgentSlugParam = AgentSlug;

const DisplayName = Text({ minLength: 1, maxLength: 200, description: "how people see the agent (1-200 characters)" });
const Instructions = Text({
  minLength: 0,
  maxLength: 8000,
  description: "added to the system prompt after the memory block (0-8000 characters)",
});
const MODEL_DESCRIPTION = "the provider's model name; null uses the server's default for the provider (MEMORYD_MODEL for anthropic, OPENAI_MODEL for openai)";
const Model = Type.Union([Text({ minLength: 1, maxLength: 200, description: "a model name" }), Type.Null()], { description: MODEL_DESCRIPTION });
const MEMORY_SCOPE =
  "where what the agent learns while answering goes (the user's statements, its remember tool): workspace (every agent sees it) or agent (its own)";
const MemoryScope = Type.Union([Type.Literal("workspace"), Type.Literal("agent")], { description: MEMORY_SCOPE });
const MaxOutputTokens = Type.Integer({ minimum: 1, maximum: 64000, description: "the most tokens one answer may have (1-64000)" });

/** An agent: one worker configuration of a workspace. */
export const Agent = Type.Object({
  slug: Type.String(),
  display_name: Type.String(),
  instructions: Type.String(),
  provider: AgentProvider,
  model: Type.Union([Type.String(), Type.Null()]),
  can_write_memory: Type.Boolean({ description: "whether the agent has the remember tool" }),
  memory_scope: MemoryScope,
  max_output_tokens: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type Agent = Static<typeof Agent>;

export const CreateAgentInput = Type.Object({
  slug: AgentSlugParam,
  display_name: DisplayName,
  instructions: Type.String({ ...Instructions, default: "" }),
  provider: Type.Union(AgentProvider.anyOf, { default: "auto", description: AgentProvider.description }),
  model: Type.Union(Model.anyOf, { default: null, description: MODEL_DESCRIPTION }),
  can_write_memory: Type.Boolean({ default: true, description: "whether the agent has the remember tool" }),
  memory_scope: Type.Union(MemoryScope.anyOf, { default: "workspace", description: MEMORY_SCOPE }),
  max_output_tokens: Type.Integer({ minimum: 1, maximum: 64000, default: 1024, description: "the most tokens one answer may have (1-64000)" }),
});
export type CreateAgentInput = Static<typeof CreateAgentInput>;

/** Any subset of an agent's settings (the slug is its name and does not change). */
export const UpdateAgentInput = Type.Object({
  display_name: Type.Optional(DisplayName),
  instructions: Type.Optional(Instructions),
  provider: Type.Optional(AgentProvider),
  model: Type.Optional(Model),
  can_write_memory: Type.Optional(Type.Boolean({ description: "whether the agent has the remember tool" })),
  memory_scope: Type.Optional(MemoryScope),
  max_output_tokens: Type.Optional(MaxOutputTokens),
});
export type UpdateAgentInput = Static<typeof UpdateAgentInput>;

/** GET /v1/admin/workspaces/:slug/agents */
export const AgentList = Type.Object({ agents: Type.Array(Agent) });
export type AgentList = Static<typeof AgentList>;
