/**
 * Loading the LongMemEval-S development set (one gzipped JSON object a line): each question with
 * its haystack of chat sessions. Turns become fact texts the way a user would teach them,
 * "<role>: <content>", a turn too long for one fact split into consecutive chunks.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

/** The most characters one taught fact may hold (the teach route's limit). */
export const FACT_TEXT_LIMIT = 4000;

export interface LmeUnit {
  /** "<session id>#<turn index>": the turn a fact (or a chunk of it) comes from. */
  turnId: string;
  sessionId: string;
  /** When the session took place (its `date`), epoch milliseconds, read as UTC. */
  at: number;
  text: string;
}

export interface LmeQuestion {
  id: string;
  type: string;
  question: string;
  /** When the question is asked (`question_date`), epoch milliseconds, read as UTC. */
  askedAt: number;
  /** Turns marked has_answer. */
  evidenceTurns: string[];
  evidenceSessions: string[];
  /** Every chunk of every turn, in haystack order. */
  units: LmeUnit[];
}

interface RawQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  answer_session_ids: string[];
  sessions: { id: string; date: string; turns: { role: string; content: string; has_answer?: boolean }[] }[];
}

/** Splits a turn's text into consecutive pieces of at most FACT_TEXT_LIMIT characters, each with the role. */
export function turnTexts(role: string, content: string): string[] {
  const prefix = `${role}: `;
  const room = FACT_TEXT_LIMIT - prefix.length;
  const body = content.trim();
  if (body.length <= room) return [prefix + body];
  const pieces: string[] = [];
  for (let at = 0; at < body.length; at += room) pieces.push(prefix + body.slice(at, at + room));
  return pieces;
}

/** "2023/03/13 (Mon) 05:40" (the data set's dates) as epoch milliseconds, read as UTC. */
export function lmeDate(text: string): number {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) \(\w+\) (\d{2}):(\d{2})$/.exec(text.trim());
  if (m === null) throw new Error(`not a LongMemEval date: ${text}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
}

export function loadLongMemEval(path: string): LmeQuestion[] {
  const lines = gunzipSync(readFileSync(path)).toString("utf8").split("\n");
  const questions: LmeQuestion[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    const raw = JSON.parse(line) as RawQuestion;
    const units: LmeUnit[] = [];
    const evidenceTurns: string[] = [];
    for (const session of raw.sessions) {
      const at = lmeDate(session.date);
      session.turns.forEach((turn, i) => {
        if (turn.content.trim() === "") return;
        const turnId = `${session.id}#${i}`;
        if (turn.has_answer === true) evidenceTurns.push(turnId);
        for (const text of turnTexts(turn.role, turn.content)) units.push({ turnId, sessionId: session.id, at, text });
      });
    }
    questions.push({
      id: raw.question_id,
      type: raw.question_type,
      question: raw.question,
      askedAt: lmeDate(raw.question_date),
      evidenceTurns,
      evidenceSessions: raw.answer_session_ids,
      units,
    });
  }
  return questions;
}
