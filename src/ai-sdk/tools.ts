/**
 * memoryTools: memoryd's memory tools for the AI SDK (package `ai`, v7), with the MCP tools' names,
 * descriptions and input schemas (src/mcp/tool-specs.ts), each calling the REST API through the
 * client. The server validates the arguments as it does for MCP, so a bad call comes back as a
 * MemorydError that the AI SDK hands the model as the tool's error.
 */
import { type JSONSchema7, jsonSchema, type Tool, tool } from "ai";
import type { ContextBody, Memoryd, SearchBody } from "../client";
import { GET_MEMORY_CONTEXT, SEARCH_MEMORY, TEACH_MEMORY, type ToolSpec, wireInputSchema } from "../mcp/tool-specs";
import type { ContextPacket, EndUser, SearchResult, TeachRequest, TeachResult } from "../schema/memory";

export interface MemoryToolsOptions {
  /**
   * The person the conversation is with. When given it is named on every call, in place of any
   * end_user the model writes: the application knows who it is talking to, the model may not widen that.
   */
  endUser?: EndUser;
  /** The agent the model acts as, named on every call in place of any the model writes (a bound key needs none). */
  agent?: string;
}

/** A type alias, not an interface: generateText's `tools` is an index signature type, which only an alias satisfies. */
export type MemoryTools = {
  search_memory: Tool<SearchBody, SearchResult>;
  get_memory_context: Tool<ContextBody, ContextPacket>;
  teach_memory: Tool<TeachRequest, TeachResult>;
};

export function memoryTools(client: Memoryd, options: MemoryToolsOptions = {}): MemoryTools {
  const { endUser, agent } = options;
  const named = <T extends { end_user?: EndUser; agent?: string }>(input: T): T => ({
    ...input,
    ...(endUser && { end_user: endUser }),
    ...(agent && { agent }),
  });
  return {
    search_memory: tool({
      ...described<SearchBody>(SEARCH_MEMORY),
      execute: (input, { abortSignal }) => client.search(named(input), { signal: abortSignal }),
    }),
    get_memory_context: tool({
      ...described<ContextBody>(GET_MEMORY_CONTEXT),
      execute: (input, { abortSignal }) => client.context(named(input), { signal: abortSignal }),
    }),
    teach_memory: tool({
      ...described<TeachRequest>(TEACH_MEMORY),
      execute: (input, { abortSignal }) => client.teach(named(input), { signal: abortSignal }),
    }),
  };
}

/** A tool's description and input schema, as the MCP server lists them. */
function described<Input>(spec: ToolSpec): { description: string; inputSchema: ReturnType<typeof jsonSchema<Input>> } {
  return { description: spec.description, inputSchema: jsonSchema<Input>(wireInputSchema<JSONSchema7>(spec.inputSchema)) };
}
