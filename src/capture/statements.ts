import type { analyzeFact as AnalyzeFact } from "./analyze";

/**
 * The statements in a user's message worth remembering: declarative sentences of a few words
 * that say something about the speaker or their team ("I", "my", "we", "our") or that the rules
 * recognise as a decision, a preference or a claim. A sentence that joins independent statements
 * ("…, and I have a dog") gives each its own (capture/clauses.ts). Questions, requests, greetings
 * and fragments ("manager of Ana") are left out.
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

/** A question, a request or a greeting: nothing the user states. */
function asksOrRequests(text: string): boolean {
  return text.endsWith("?") || QUESTION_START.test(text) || REQUEST_START.test(text);
}

export async function statementsIn(message: string): Promise<string[]> {
  // The capture rules and the tagger load on first use, not when the server starts.
  const { analyzeFact } = await import("./analyze");
  const { clausesOf } = await import("./clauses");
  const keeps = (text: string): boolean =>
    !asksOrRequests(text) && text.split(/\s+/).length >= MIN_WORDS && (FIRST_PERSON.test(text) || statesSomething(analyzeFact, text));
  const out: string[] = [];
  for (const raw of message.split(SENTENCE_END)) {
    const sentence = raw.trim();
    if (sentence === "" || asksOrRequests(sentence)) continue;
    // Each statement a sentence joins is its own fact, so that a later change to one leaves the
    // other. A split that would drop a part ("I'm tired.", "She knows me.") keeps the sentence
    // whole instead: splitting never loses what the sentence said.
    const parts = clausesOf(sentence);
    const kept = parts.every(keeps) ? parts : keeps(sentence) ? [sentence] : [];
    for (const part of kept) {
      out.push(part.length > 4000 ? part.slice(0, 4000) : part);
      if (out.length === MAX_STATEMENTS) return out;
    }
  }
  return out;
}
