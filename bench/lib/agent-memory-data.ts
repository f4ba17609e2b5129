/**
 * Issue 43's corpus, built at run time from the LongMemEval-S dev file: the union of every
 * question's haystack turns, distinct by text, each "role: content" cut at FACT_TEXT_LIMIT
 * characters (about 68,000 turns), and the questions in file order.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { FACT_TEXT_LIMIT } from "./longmemeval-data";

export const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "..", "data", "longmemeval", "dev.jsonl.gz");

interface RawQuestion {
  question: string;
  sessions: { turns: { role: string; content: string }[] }[];
}

export interface AgentCorpus {
  turns: string[];
  questions: string[];
}

export function loadAgentCorpus(path: string = LONGMEMEVAL_PATH): AgentCorpus {
  const seen = new Set<string>();
  const turns: string[] = [];
  const questions: string[] = [];
  for (const line of gunzipSync(readFileSync(path)).toString("utf8").split("\n")) {
    if (line.trim() === "") continue;
    const raw = JSON.parse(line) as RawQuestion;
    questions.push(raw.question);
    for (const session of raw.sessions) {
      for (const turn of session.turns) {
        const content = turn.content.trim();
        if (content === "") continue;
        const text = `${turn.role}: ${content}`.slice(0, FACT_TEXT_LIMIT);
        if (seen.has(text)) continue;
        seen.add(text);
        turns.push(text);
      }
    }
  }
  return { turns, questions };
}
