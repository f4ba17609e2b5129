/**
 * What a plain statement of how things are looks like: the only kind of fact an update links or a
 * tie moves (capture/updates.ts, memory/index/freshness.ts). Read once when a fact is indexed (the
 * PLAIN flag) and when capture reads a new fact.
 */
import { wordsOf } from "./terms";

/** Facts longer than this (in words) are chat turns or notes, not statements of one state. */
const STATEMENT_MAX_WORDS = 24;
/**
 * "Caroline: …", "Dr. Ana Ruiz: …", "assistant: …": a turn of a conversation, said by someone, not
 * a statement of how things are. A name's every word is capitalised ("Travel policy update: …" is
 * no speaker).
 */
const SPEAKER = /^(?:\p{Lu}[\p{L}'.-]*(?: \p{Lu}[\p{L}'.-]*){0,3}|user|assistant|system|tool): /u;

/**
 * Whether a text is a plain statement of how things are, the only kind an update links or a tie
 * moves: short, not a turn of a conversation, not a question or an exclamation. A chat log's turns
 * follow each other in time without the later one saying the earlier has changed.
 */
export function isPlainStatement(text: string): boolean {
  if (text.includes("?") || text.includes("!") || SPEAKER.test(text)) return false;
  return wordsOf(text).length <= STATEMENT_MAX_WORDS;
}
