/**
 * The `local` provider: no language model, so memoryd answers with no API key and no network.
 * It lists the facts the context packet was built from (most relevant first, as given), says
 * plainly that it is listing rather than reasoning, and streams that text line by line so clients
 * see the same incremental events as with a real model. Same request in, same text out.
 */
import { countTokens } from "../memory/tokens";
import { singleLine, utcDate } from "../memory/packet";
import type { GenerateRequest, GenerateResult, ModelProvider } from "./types";

/** Facts listed at most; the rest are counted in a closing line. */
export const MAX_LISTED_FACTS = 10;

export const NOTHING_IN_MEMORY = "I have nothing in memory about this yet.";
const NO_MODEL_NOTE = " (No language model is configured, so I can only answer from stored facts.)";

export const LISTING_PREAMBLE = "From memory (no language model is configured, so this lists what I know rather than reasoning about it):";

type Fact = GenerateRequest["facts"][number];

/** The packet's date, or the raw value when it is not a date (the listing shows what is stored). */
function day(recordedTime: string): string {
  const date = utcDate(recordedTime);
  return date === "undated" ? recordedTime.trim() || "undated" : date;
}

/** One line per fact (line breaks collapsed, as in the packet) so a fact can't break the list. */
function bullet(fact: Fact): string {
  return `- ${singleLine(fact.fact_text).replace(/\s+/gu, " ")} (${fact.kind}, ${day(fact.recorded_time)}) [${fact.fact_id}]`;
}

/** The answer as the pieces it is streamed in: lines (each but the last ends with "\n"). */
export function localAnswerPieces(facts: GenerateRequest["facts"]): string[] {
  if (facts.length === 0) return [NOTHING_IN_MEMORY, NO_MODEL_NOTE];
  const lines = [LISTING_PREAMBLE, ...facts.slice(0, MAX_LISTED_FACTS).map(bullet)];
  const rest = facts.length - MAX_LISTED_FACTS;
  if (rest > 0) lines.push(`(${rest} more related ${rest === 1 ? "fact" : "facts"} not listed.)`);
  return lines.map((line, i) => (i < lines.length - 1 ? `${line}\n` : line));
}

const nextTick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function createLocalProvider(): ModelProvider {
  return {
    name: "local",

    async generate(request: GenerateRequest, onDelta: (text: string) => void): Promise<GenerateResult> {
      const abortReason = () => request.signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
      let text = "";
      for (const piece of localAnswerPieces(request.facts)) {
        // Yield to the event loop before every piece, so each one reaches the client on its own.
        await nextTick();
        if (request.signal.aborted) throw abortReason();
        text += piece;
        onDelta(piece);
      }
      const input = countTokens(request.system) + request.messages.reduce((sum, m) => sum + countTokens(m.content), 0);
      return { text, usage: { input_tokens: input, output_tokens: countTokens(text) } };
    },
  };
}
