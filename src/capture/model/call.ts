/**
 * One call of the capture model: a prompt's system text, the quoted data as the one user turn, no
 * tools, a deadline. Every failure ends as a ModelError with a stable code (never a key in it).
 */
import { ModelError, type ModelProvider, type Usage } from "../../models/types";
import { systemText, type Prompt } from "./prompts";

/** The model a workspace set, resolved against this server's providers. */
export interface CaptureModel {
  provider: ModelProvider;
  model: string;
  /** provider/model, as decisions record it. */
  name: string;
}

export interface ModelReply {
  text: string;
  usage: Usage;
  seconds: number;
}

export async function askModel(model: CaptureModel, prompt: Prompt, input: string, timeoutMs: number): Promise<ModelReply> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const result = await model.provider.generate(
      {
        model: model.model,
        system: systemText(prompt),
        messages: [{ role: "user", content: input }],
        maxOutputTokens: prompt.maxOutputTokens,
        tools: null,
        facts: [],
        signal,
      },
      () => {},
    );
    return { text: result.text, usage: result.usage, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    if (error instanceof ModelError) throw error;
    if (signal.aborted) throw new ModelError("model_timeout", `The capture model did not answer within ${timeoutMs} ms.`);
    throw new ModelError("model_error", `The capture model call failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
