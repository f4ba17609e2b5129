import type { analyzeFact as AnalyzeFact } from "./analyze";

/**
 * The statements in a user's message worth remembering: declarative sentences of a few words
 * that say something about the speaker or their team ("I", "my", "we", "our") or that the rules
 * recognise as a decision, a preference or a claim. Questions, requests, greetings and
 * fragments ("manager of Ana") are left out.
 */
const SENTENCE_END = /(?<=[.!?])\s+|\n+/;
const QUESTION_START =
  /^(what|who|whom|whose|when|where|why|how|which|is|are|am|was|were|do|does|did|can|could|would|should|will|shall|may|might|have|has|had)\b/i;
const REQUEST_START =
  /^(please|tell|show|give|list|find|explain|describe|summari[sz]e|write|help|remind|search|look|let me know|hi|hello|hey|thanks|thank you|ok|okay)\b/i;
const MIN_WORDS = 3;
const FIRST_PERSON = /\b(i|i'm|i've|i'd|my|mine|we|we're|we've|our|ours)\b/i;
const MAX_STATEMENTS = 10;

/** A decision, a preference or a claim ("Ana's manager is Tom"): not a bare noun phrase. */
function statesSomething(analyzeFact: typeof AnalyzeFact, sentence: string): boolean {
  const analysis = analyzeFact({ text: sentence, teamMembers: [] });
  return analysis.claim !== null || analysis.kind === "decision" || analysis.kind === "preference";
}

export async function statementsIn(message: string): Promise<string[]> {
  // The capture rules load on first use, not when the server starts.
  const { analyzeFact } = await import("./analyze");
  const out: string[] = [];
  for (const raw of message.split(SENTENCE_END)) {
    const sentence = raw.trim();
    if (sentence === "" || sentence.endsWith("?")) continue;
    if (QUESTION_START.test(sentence) || REQUEST_START.test(sentence)) continue;
    if (sentence.split(/\s+/).length < MIN_WORDS) continue;
    if (!FIRST_PERSON.test(sentence) && !statesSomething(analyzeFact, sentence)) continue;
    out.push(sentence.length > 4000 ? sentence.slice(0, 4000) : sentence);
    if (out.length === MAX_STATEMENTS) break;
  }
  return out;
}
