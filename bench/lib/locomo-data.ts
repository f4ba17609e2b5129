/** Loading and lenient parsing of the LoCoMo data set (snap-research/LoCoMo, data/locomo10.json). */
import { readFileSync } from "node:fs";

export interface Turn {
  diaId: string;
  /** When its session took place (`session_N_date_time`), epoch milliseconds, read as UTC; null when the data has no date. */
  at: number | null;
  speaker: string;
  text: string;
}

export interface Question {
  question: string;
  category: number;
  /** Evidence turn ids that name a turn of this conversation (normalised, de-duplicated). */
  evidence: string[];
  /** Evidence strings that did not parse or name no turn. */
  badEvidence: string[];
}

export interface Conversation {
  sampleId: string;
  /** When the questions are asked: a day after the last dated session (the data set gives no date). */
  askedAt: number | null;
  turns: Turn[];
  questions: Question[];
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; category: number; evidence?: unknown }[];
}

/** "D1:3" -> "D1:3"; also "D30:05", "D:11:26" and several ids in one string ("D8:6; D9:17"). */
export function parseEvidence(raw: string): string[] {
  const ids: string[] = [];
  for (const m of raw.matchAll(/D\s*:?\s*(\d+)\s*:\s*(\d+)/gi)) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
  return ids;
}

/** Normalises a turn id the same way as evidence ids, so "D30:05" in either place matches. */
function normaliseDiaId(raw: string): string {
  return parseEvidence(raw)[0] ?? raw;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" (the data set's session dates) as epoch milliseconds, read as UTC; null when it does not read. */
export function locomoDate(text: unknown): number | null {
  const m = typeof text === "string" ? /^(\d{1,2}):(\d{2}) ([ap]m) on (\d{1,2}) (\w+),? (\d{4})$/i.exec(text.trim()) : null;
  const month = m === null ? -1 : MONTHS.indexOf(m[5]!.toLowerCase());
  if (m === null || month < 0) return null;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

export function loadLocomo(path: string): Conversation[] {
  const samples = JSON.parse(readFileSync(path, "utf8")) as RawSample[];
  return samples.map((sample) => {
    const sessions = Object.keys(sample.conversation)
      .map((key) => /^session_(\d+)$/.exec(key))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: Turn[] = [];
    let last: number | null = null;
    for (const n of sessions) {
      const session = sample.conversation[`session_${n}`];
      if (!Array.isArray(session)) continue;
      const at = locomoDate(sample.conversation[`session_${n}_date_time`]);
      if (at !== null) last = Math.max(last ?? at, at);
      for (const t of session as RawTurn[]) {
        if (typeof t.text !== "string" || t.text.trim() === "") continue;
        turns.push({ diaId: normaliseDiaId(t.dia_id), at, speaker: t.speaker, text: t.text });
      }
    }
    const known = new Set(turns.map((t) => t.diaId));
    const questions: Question[] = sample.qa.map((qa) => {
      const evidence: string[] = [];
      const badEvidence: string[] = [];
      const raws = Array.isArray(qa.evidence) ? qa.evidence.map(String) : [];
      for (const raw of raws) {
        const ids = parseEvidence(raw).filter((id) => known.has(id));
        if (ids.length === 0) badEvidence.push(raw);
        for (const id of ids) if (!evidence.includes(id)) evidence.push(id);
      }
      return { question: String(qa.question), category: qa.category, evidence, badEvidence };
    });
    return { sampleId: sample.sample_id, askedAt: last === null ? null : last + 86_400_000, turns, questions };
  });
}

/** What a turn becomes as a fact: the speaker's name, a colon, the words. */
export const factText = (turn: Turn): string => `${turn.speaker}: ${turn.text}`;
