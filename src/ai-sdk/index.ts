/**
 * memoryd/ai-sdk: memory for the Vercel AI SDK (package `ai`, v7, an optional peer dependency:
 * only this entry point needs it). withMemory wraps a model so each call reads and teaches memory
 * on its own; memoryTools lets the model search, read and teach memory when it chooses to.
 */
export { type MemoryModel, type WithMemoryOptions, type WrappableModel, withMemory } from "./memory";
export { type MemoryTools, type MemoryToolsOptions, memoryTools } from "./tools";
