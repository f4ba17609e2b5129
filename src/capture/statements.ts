/**
 * The statements in a user's message worth remembering: declarative sentences of a few words.
 * Questions, requests and greetings are left out: "What is my manager's name?" is not a fact.
 */
const SENTENCE_END = /(?<=[.!?])\s+|\n+/;
const QUESTION_START =
  /^(what|who|whom|whose|when|where|why|how|which|is|are|am|was|were|do|does|did|can|could|would|should|will|shall|may|might|have|has|had)\b/i;
const REQUEST_START =
  /^(please|tell|show|give|list|find|explain|describe|summari[sz]e|write|help|remind|search|look|let me know|hi|hello|hey|thanks|thank you|ok|okay)\b/i;
const MIN_WORDS = 3;
const MAX_STATEMENTS = 10;

export function statementsIn(message: string): string[] {
  const out: string[] = [];
  for (const raw of message.split(SENTENCE_END)) {
    const sentence = raw.trim();
    if (sentence === "" || sentence.endsWith("?")) continue;
    if (QUESTION_START.test(sentence) || REQUEST_START.test(sentence)) continue;
    if (sentence.split(/\s+/).length < MIN_WORDS) continue;
    out.push(sentence.length > 4000 ? sentence.slice(0, 4000) : sentence);
    if (out.length === MAX_STATEMENTS) break;
  }
  return out;
}
