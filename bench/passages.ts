/**
 * One fact or passages: should a long text (a chat turn of up to 4,000 characters) be ranked as
 * one fact, as today, or as passages (runs of sentences) ranked on their own, a search returning
 * the whole text once, at the rank of its best passage? Measured in process on LongMemEval-S dev,
 * beside a plain BM25 over the same texts in the same run.
 *
 * Method. For each question, its haystack's units (bench/lib/longmemeval-data.ts: a turn as
 * "role: content", a turn over 4,000 characters as consecutive chunks) are indexed in a fresh
 * FactIndex and the question is ranked with `searchIndex` (the ranking behind the search route),
 * RANKING's parameters, limit 20. Capture is not run (no duplicate skipping, no supersession): every
 * unit is a fact, with the subject, subject type, kind and sensitive flag `analyzeFact` gives its
 * whole text, origin `ingested` and its default confidence. Time as bench/retrieval.ts's undated
 * mode: every fact recorded at one instant `now` and every question asked at that same `now`, so
 * neither recency nor a time named in the question tells facts apart.
 * Variants (see VARIANTS):
 * - "one fact": each unit one fact (today);
 * - "passages N": each unit cut into passages of at most N characters at sentence ends (a sentence
 *   longer than N cut at word ends), each passage indexed as a fact of its own (its unit's role
 *   prefix and analysis), ranked to depth PASSAGE_DEPTH; a unit is placed once, at its best
 *   passage, and the first 20 units kept. "+1" overlaps consecutive passages by one sentence;
 * - "max(whole, passages N)": the units and the passages of units longer than one passage in one
 *   index (one fact's whole and its passages compete; a unit is placed at the better of them);
 * - "passage N + s·whole": a unit scores its best passage's score (explain's score) plus s times
 *   its whole text's score in the "one fact" index (0 when not among its first PASSAGE_DEPTH);
 * - "meaning off" (a diagnostic, never picked): "one fact" and "passages 1000" with RANKING's
 *   meaning signal at 0, since a passage short enough gets that signal where its whole turn does not.
 * Measures, per question type and overall: turn recall@5/10 (share of the evidence turns among
 * the first k results) and session recall@5/10, on the tune and check splits (bench/retrieval.ts's
 * hash of the question id). Variants are compared, and one picked, on tune; check confirms.
 * The union corpus: every question's units, distinct by text (a text standing for every turn and
 * session that holds it), in one index (issue 43's corpus, bench/lib/agent-memory-data.ts, but
 * built from the units so the evidence labels carry over); every question asked over it; turn@10
 * and session@5 for BM25, "one fact", the picked variant and the best plain "passages" one, with
 * the size and build time of the indexes each searches (analysis not included).
 * Before the tables: how long the evidence units are beside all units (what passages could change).
 * When written (151 questions, about 7 minutes and 3 for the union): no passage variant beat one
 * fact on tune's turn@10, nor on check's; the best (passage 1000 + 1·whole) ties it on session@5 and
 * costs 2.4 times the postings. The evidence is mostly short user turns (median about 300
 * characters, 4 % over 1,000), so passages cannot sharpen it; they sharpen the long distractors.
 *
 * Usage: bun bench/passages.ts [--questions N] [--union on|off|only] [--pick NAME]
 * `--union only` runs the union alone, BM25 beside "one fact" (today's ranking).
 * `--pick` names the variant the union runs beside "one fact" (default: the best on tune by
 * turn@10 + session@5). LONGMEMEVAL_PATH overrides the data file.
 */
import { join } from "node:path";
import { analyzeFact } from "../src/capture/analyze";
import { DEFAULT_CONFIDENCE } from "../src/capture/pipeline";
import { FactIndex, type IndexedFact } from "../src/memory/index/fact-index";
import { RANKING, type RankingParams } from "../src/memory/index/params";
import { searchIndex } from "../src/memory/search";
import type { Visibility } from "../src/memory/visibility";
import { Bm25 } from "./lib/bm25";
import { type LmeQuestion, loadLongMemEval } from "./lib/longmemeval-data";
import { argValue } from "./support/args";

const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? join(import.meta.dir, "data", "longmemeval", "dev.jsonl.gz");
const SEARCH_LIMIT = 20;
/** Passages ranked per search before they are folded into units: enough for 20 distinct units. */
const PASSAGE_DEPTH = 200;
const MEASURES = ["turn@5", "turn@10", "session@5", "session@10"] as const;
type Measure = (typeof MEASURES)[number];
const VISIBILITY: Visibility = { workspaceId: "passages", audience: "internal", endUserId: null, agent: null, kinds: null };

/** A text indexed as one fact, and the turns and sessions it stands for (several in the union corpus). */
interface Unit {
  key: string;
  text: string;
  turns: string[];
  sessions: string[];
}

interface Question {
  id: string;
  type: string;
  query: string;
  evidenceTurns: string[];
  evidenceSessions: string[];
}

/** How a search orders a corpus's units. */
type Variant =
  | { name: string; kind: "bm25" }
  | { name: string; kind: "whole"; params?: RankingParams }
  | { name: string; kind: "passages"; size: number; overlap: boolean; params?: RankingParams }
  | { name: string; kind: "max"; size: number; overlap: boolean }
  | { name: string; kind: "blend"; size: number; overlap: boolean; share: number };

const passagesVariant = (size: number, overlap: boolean): Variant => ({ name: `passages ${size}${overlap ? " +1" : ""}`, kind: "passages", size, overlap });

const MEANING_OFF: RankingParams = { ...RANKING, meaning: 0 };

const VARIANTS: readonly Variant[] = [
  { name: "BM25", kind: "bm25" },
  { name: "one fact (today)", kind: "whole" },
  ...[300, 600, 1000].flatMap((size) => [passagesVariant(size, false), passagesVariant(size, true)]),
  { name: "max(whole, passages 600)", kind: "max", size: 600, overlap: false },
  { name: "max(whole, passages 1000)", kind: "max", size: 1000, overlap: false },
  { name: "passage 600 + 0.5·whole", kind: "blend", size: 600, overlap: false, share: 0.5 },
  { name: "passage 1000 + 0.5·whole", kind: "blend", size: 1000, overlap: false, share: 0.5 },
  { name: "passage 1000 + 1·whole", kind: "blend", size: 1000, overlap: false, share: 1 },
  // Diagnostic: a passage short enough (MEANING_MAX_TERMS) gets the meaning signal a whole turn does not.
  { name: "one fact, meaning off", kind: "whole", params: MEANING_OFF },
  { name: "passages 1000, meaning off", kind: "passages", size: 1000, overlap: false, params: MEANING_OFF },
];

/** FNV-1a of the question id, as bench/retrieval.ts splits questions. */
function splitOf(id: string): "tune" | "check" {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % 3 === 0 ? "check" : "tune";
}

/**
 * A unit's sentences: cut after . ! or ? before white space, and at line breaks; a list marker
 * left alone ("3.") stays with the sentence after it.
 */
function sentencesOf(body: string): string[] {
  const sentences: string[] = [];
  let marker = "";
  for (const piece of body.split(/(?<=[.!?])\s+|\n+/)) {
    const s = piece.trim();
    if (s === "") continue;
    if (/^(\d+|[a-z]|[ivx]+)[.)]$/i.test(s)) marker = `${marker}${s} `;
    else {
      sentences.push(marker + s);
      marker = "";
    }
  }
  if (marker !== "") sentences.push(marker.trim());
  return sentences;
}

/** A sentence longer than `size` as pieces of at most `size` characters, cut at word ends where there is one. */
function cutLong(sentence: string, size: number): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > size) {
    const space = rest.lastIndexOf(" ", size);
    const at = space > size / 2 ? space : size;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest !== "") pieces.push(rest);
  return pieces;
}

/**
 * A unit's text as passages of at most `size` characters of whole sentences, each with the
 * unit's role prefix ("user: "); with `overlap`, each passage after the first starts with the
 * previous one's last sentence (when that passage held more than one).
 */
export function passagesOf(text: string, size: number, overlap: boolean): string[] {
  const prefix = /^(\w+): /.exec(text)?.[0] ?? "";
  const room = Math.max(1, size - prefix.length);
  const sentences = sentencesOf(text.slice(prefix.length)).flatMap((s) => cutLong(s, room));
  const passages: string[] = [];
  let current: string[] = [];
  let length = 0;
  for (const sentence of sentences) {
    if (current.length > 0 && length + 1 + sentence.length > room) {
      passages.push(prefix + current.join(" "));
      const carried = overlap && current.length > 1 ? current.at(-1)! : null;
      current = carried === null || carried.length + 1 + sentence.length > room ? [] : [carried];
      length = current.length === 0 ? 0 : carried!.length;
    }
    length += (current.length > 0 ? 1 : 0) + sentence.length;
    current.push(sentence);
  }
  if (current.length > 0) passages.push(prefix + current.join(" "));
  return passages.length > 0 ? passages : [text];
}

/** The fields capture would store for a unit's text, shared by its passages. */
type Analysis = Omit<IndexedFact, "id" | "text">;

function analysisOf(text: string, now: number): Analysis {
  const a = analyzeFact({ text, teamMembers: [] });
  return {
    kind: a.kind,
    origin: "ingested",
    subject: a.subject,
    subjectType: a.subjectType,
    endUserId: null,
    agent: null,
    confidence: DEFAULT_CONFIDENCE.ingested,
    recordedAt: now,
    expiresAt: null,
    sensitive: a.sensitive,
    pinned: false,
  };
}

interface BuiltIndex {
  index: FactIndex;
  /** Fact id → the unit's position in the corpus. */
  unitOf: Map<string, number>;
  ms: number;
}

/** A corpus ready to search: its units, their analyses, and the indexes built so far (by layout). */
class Corpus {
  private readonly built = new Map<string, BuiltIndex>();
  private bm25: Bm25 | null = null;

  constructor(
    readonly units: readonly Unit[],
    private readonly analyses: readonly Analysis[],
    private readonly now: number,
  ) {}

  /** "whole", "p<size>", "p<size>+1" or "max<size>": built once, on first use. */
  indexFor(layout: string): BuiltIndex {
    const cached = this.built.get(layout);
    if (cached !== undefined) return cached;
    const m = /^(p|max)(\d+)(\+1)?$/.exec(layout);
    const started = performance.now();
    const index = new FactIndex();
    const unitOf = new Map<string, number>();
    const add = (id: string, text: string, u: number): void => {
      index.add({ id, text, ...this.analyses[u]! });
      unitOf.set(id, u);
    };
    this.units.forEach((unit, u) => {
      if (m === null || m[1] === "max") add(unit.key, unit.text, u);
      if (m === null) return;
      const passages = passagesOf(unit.text, Number(m[2]), m[3] !== undefined);
      if (m[1] === "max" && passages.length < 2) return;
      passages.forEach((text, k) => {
        add(`${unit.key}#p${k}`, text, u);
      });
    });
    const built = { index, unitOf, ms: performance.now() - started };
    this.built.set(layout, built);
    return built;
  }

  /** The units ranked for `query` by `variant`, best first, at most SEARCH_LIMIT. */
  rank(variant: Variant, query: string): number[] {
    switch (variant.kind) {
      case "bm25":
        this.bm25 ??= new Bm25(this.units.map((u) => u.text));
        return this.bm25.search(query, SEARCH_LIMIT);
      case "whole":
        return this.ranked(this.indexFor("whole"), query, SEARCH_LIMIT, variant.params);
      case "passages":
        return this.ranked(this.indexFor(`p${variant.size}${variant.overlap ? "+1" : ""}`), query, PASSAGE_DEPTH, variant.params);
      case "max":
        return this.ranked(this.indexFor(`max${variant.size}${variant.overlap ? "+1" : ""}`), query, PASSAGE_DEPTH);
      case "blend": {
        const best = this.scored(this.indexFor(`p${variant.size}${variant.overlap ? "+1" : ""}`), query);
        const whole = this.scored(this.indexFor("whole"), query);
        const total = new Map<number, number>();
        for (const [u, s] of best) total.set(u, s + variant.share * (whole.get(u) ?? 0));
        for (const [u, s] of whole) if (!best.has(u)) total.set(u, variant.share * s);
        return [...total]
          .sort((a, b) => b[1] - a[1] || a[0] - b[0])
          .slice(0, SEARCH_LIMIT)
          .map(([u]) => u);
      }
    }
  }

  /** Units in the order their first (best) fact comes, to depth `depth` facts, at most SEARCH_LIMIT. */
  private ranked(built: BuiltIndex, query: string, depth: number, params?: RankingParams): number[] {
    const seen = new Set<number>();
    for (const hit of searchIndex(built.index, VISIBILITY, { query, limit: depth }, params, this.now).facts) {
      seen.add(built.unitOf.get(hit.fact_id)!);
      if (seen.size === SEARCH_LIMIT) break;
    }
    return [...seen];
  }

  /** Each unit's best score among the first PASSAGE_DEPTH facts (explain's score). */
  private scored(built: BuiltIndex, query: string): Map<number, number> {
    const best = new Map<number, number>();
    for (const hit of searchIndex(built.index, VISIBILITY, { query, limit: PASSAGE_DEPTH, explain: true }, undefined, this.now).facts) {
      const u = built.unitOf.get(hit.fact_id)!;
      if (!best.has(u)) best.set(u, hit.explanation?.score ?? 0);
    }
    return best;
  }
}

/** What one question found: the units ranked, best first. */
interface Ranked {
  question: Question;
  units: Unit[];
}

function measure(r: Ranked, name: Measure): number {
  const [kind, k] = name.split("@") as ["turn" | "session", string];
  const top = r.units.slice(0, Number(k));
  const wanted = kind === "turn" ? r.question.evidenceTurns : r.question.evidenceSessions;
  if (wanted.length === 0) return Number.NaN;
  const found = new Set(top.flatMap((u) => (kind === "turn" ? u.turns : u.sessions)));
  return wanted.filter((e) => found.has(e)).length / wanted.length;
}

const mean = (xs: number[]): number => {
  const kept = xs.filter((x) => !Number.isNaN(x));
  return kept.length === 0 ? Number.NaN : (100 * kept.reduce((a, b) => a + b, 0)) / kept.length;
};
const fmt = (x: number): string => (Number.isNaN(x) ? "–" : x.toFixed(1));
const scoreOf = (results: readonly Ranked[], m: Measure): number => mean(results.map((r) => measure(r, m)));
/** What variants are compared (and picked) by: turn@10 + session@5. */
const pickScore = (results: readonly Ranked[]): number => scoreOf(results, "turn@10") + scoreOf(results, "session@5");

function overallTable(rows: readonly { name: string; results: readonly Ranked[] }[]): string {
  const lines = [`| variant | questions | ${MEASURES.join(" | ")} |`, `|---|---:|${MEASURES.map(() => "---:").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.name} | ${row.results.length} | ${MEASURES.map((m) => fmt(scoreOf(row.results, m))).join(" | ")} |`);
  return lines.join("\n");
}

function typeTable(rows: readonly { name: string; results: readonly Ranked[] }[]): string {
  const types = [...new Set(rows.flatMap((row) => row.results.map((r) => r.question.type)))].sort();
  const lines = [`| type | questions | variant | ${MEASURES.join(" | ")} |`, `|---|---:|---|${MEASURES.map(() => "---:").join("|")}|`];
  for (const type of types) {
    for (const row of rows) {
      const results = row.results.filter((r) => r.question.type === type);
      lines.push(`| ${type} | ${results.length} | ${row.name} | ${MEASURES.map((m) => fmt(scoreOf(results, m))).join(" | ")} |`);
    }
  }
  return lines.join("\n");
}

const questionOf = (q: LmeQuestion): Question => ({
  id: q.id,
  type: q.type,
  query: q.question,
  evidenceTurns: q.evidenceTurns,
  evidenceSessions: q.evidenceSessions,
});

/** Every question over its own haystack, by every variant. */
function perHaystack(data: readonly LmeQuestion[], now: number): Map<string, Ranked[]> {
  const byVariant = new Map<string, Ranked[]>(VARIANTS.map((v) => [v.name, []]));
  data.forEach((q, n) => {
    const units = q.units.map((u, i): Unit => ({ key: `u${i}`, text: u.text, turns: [u.turnId], sessions: [u.sessionId] }));
    const corpus = new Corpus(
      units,
      units.map((u) => analysisOf(u.text, now)),
      now,
    );
    const question = questionOf(q);
    for (const variant of VARIANTS) {
      byVariant.get(variant.name)!.push({ question, units: corpus.rank(variant, question.query).map((u) => units[u]!) });
    }
    if (process.stderr.isTTY) process.stderr.write(`\rhaystacks: ${n + 1}/${data.length}`);
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  return byVariant;
}

/** Every question's units in one corpus, distinct by text; a text stands for every turn and session holding it. */
function unionUnits(data: readonly LmeQuestion[]): Unit[] {
  const byText = new Map<string, { turns: Set<string>; sessions: Set<string> }>();
  for (const q of data) {
    for (const u of q.units) {
      const entry = byText.get(u.text) ?? { turns: new Set<string>(), sessions: new Set<string>() };
      entry.turns.add(u.turnId);
      entry.sessions.add(u.sessionId);
      byText.set(u.text, entry);
    }
  }
  return [...byText].map(([text, e], i) => ({ key: `u${i}`, text, turns: [...e.turns], sessions: [...e.sessions] }));
}

/** Postings held by an index's term lists (the meaning signal's short-fact copies not counted). */
function postingsCount(index: FactIndex): number {
  let n = 0;
  for (const p of index.postings.values()) n += p.size;
  return n;
}

/** The indexes a variant searches (a blend two); none for BM25, which keeps its own term counts. */
function layoutsOf(variant: Variant): string[] {
  const passages = (v: { size: number; overlap: boolean }): string => `${v.size}${v.overlap ? "+1" : ""}`;
  if (variant.kind === "whole") return ["whole"];
  if (variant.kind === "passages") return [`p${passages(variant)}`];
  if (variant.kind === "max") return [`max${passages(variant)}`];
  if (variant.kind === "blend") return ["whole", `p${passages(variant)}`];
  return [];
}

function union(data: readonly LmeQuestion[], variants: readonly Variant[], now: number): string {
  const t0 = performance.now();
  const units = unionUnits(data);
  const corpus = new Corpus(
    units,
    units.map((u) => analysisOf(u.text, now)),
    now,
  );
  const analysisMs = performance.now() - t0;
  const questions = data.map(questionOf);
  const lines = [
    "| variant | split | questions | turn@10 | session@5 | facts indexed | postings | index MB (bytes()) | build s | search p50 ms |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const variant of variants) {
    const built = layoutsOf(variant).map((layout) => corpus.indexFor(layout));
    const sum = (of: (b: BuiltIndex) => number): number => built.reduce((total, b) => total + of(b), 0);
    const size =
      built.length === 0
        ? "– | – | – | –"
        : `${sum((b) => b.index.live).toLocaleString("en")} | ${sum((b) => postingsCount(b.index)).toLocaleString("en")} | ` +
          `${(sum((b) => b.index.bytes()) / 1e6).toFixed(1)} | ${(sum((b) => b.ms) / 1000).toFixed(1)}`;
    const latencies: number[] = [];
    const results: Ranked[] = questions.map((question) => {
      const started = performance.now();
      const ranked = corpus.rank(variant, question.query);
      latencies.push(performance.now() - started);
      return { question, units: ranked.map((u) => units[u]!) };
    });
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? Number.NaN;
    for (const split of ["tune", "check"] as const) {
      const inSplit = results.filter((r) => splitOf(r.question.id) === split);
      lines.push(
        `| ${variant.name} | ${split} | ${inSplit.length} | ${fmt(scoreOf(inSplit, "turn@10"))} | ${fmt(scoreOf(inSplit, "session@5"))} | ${size} | ${p50.toFixed(1)} |`,
      );
    }
  }
  return `${units.length.toLocaleString("en")} distinct texts, analysed in ${(analysisMs / 1000).toFixed(1)} s (shared by every variant, not in "build s")\n\n${lines.join("\n")}`;
}

/** Length in characters of the evidence units and of all units: median and share over 600 and 1,000. */
function lengthStats(data: readonly LmeQuestion[]): string {
  const describe = (name: string, lengths: number[]): string => {
    lengths.sort((a, b) => a - b);
    const over = (n: number): string => ((100 * lengths.filter((x) => x > n).length) / lengths.length).toFixed(1);
    return `${name}: ${lengths.length.toLocaleString("en")}, median ${lengths[lengths.length >> 1]} characters, ${over(600)} % over 600, ${over(1000)} % over 1,000`;
  };
  const evidence: number[] = [];
  const all: number[] = [];
  let userEvidence = 0;
  for (const q of data) {
    const wanted = new Set(q.evidenceTurns);
    for (const u of q.units) {
      all.push(u.text.length);
      if (!wanted.has(u.turnId)) continue;
      evidence.push(u.text.length);
      if (u.text.startsWith("user: ")) userEvidence += 1;
    }
  }
  return `${describe("Evidence units", evidence)} (${userEvidence} said by the user); ${describe("all units", all)}.`;
}

function main(): void {
  const maxQuestions = Number(argValue("--questions") ?? Number.POSITIVE_INFINITY);
  const unionMode = argValue("--union") ?? "on";
  const data = loadLongMemEval(LONGMEMEVAL_PATH).slice(0, maxQuestions);
  const now = Date.now();
  const started = performance.now();
  const today = VARIANTS.find((v) => v.kind === "whole")!;
  if (unionMode === "only") {
    console.log("## Union corpus: every haystack's distinct texts in one index, every question over it\n");
    console.log(`${union(data, [VARIANTS[0]!, today], now)}\n`);
    return;
  }
  const lengths = lengthStats(data);
  const byVariant = perHaystack(data, now);
  const rowsOf = (split: "tune" | "check", names: readonly string[]): { name: string; results: Ranked[] }[] =>
    names.map((name) => ({ name, results: byVariant.get(name)!.filter((r) => splitOf(r.question.id) === split) }));
  const tuneRows = rowsOf(
    "tune",
    VARIANTS.map((v) => v.name),
  );
  // Candidates: the passage variants (not BM25, today, or the meaning-off diagnostics), best on tune first.
  const isCandidate = (v: Variant): boolean => v.kind === "passages" || v.kind === "max" || v.kind === "blend";
  const onTune = (v: Variant): number => pickScore(tuneRows.find((row) => row.name === v.name)!.results);
  const candidates = VARIANTS.filter((v) => isCandidate(v) && !("params" in v && v.params !== undefined)).sort((a, b) => onTune(b) - onTune(a));
  const pickedName = argValue("--pick") ?? candidates[0]!.name;
  const picked = VARIANTS.find((v) => v.name === pickedName);
  if (picked === undefined) throw new Error(`--pick: no variant named ${pickedName}`);
  const bestOf = (kind: Variant["kind"]): Variant => candidates.find((v) => v.kind === kind)!;
  const shown = [...new Set([VARIANTS[0]!, today, picked, bestOf("passages"), bestOf("max"), bestOf("blend")])].map((v) => v.name);
  console.log(`# One fact or passages: LongMemEval-S dev, in process (${data.length} questions, ${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  for (const split of ["tune", "check"] as const) {
    if (split === "tune") console.log(`${lengths}\n`);
    console.log(`## ${split} split, all question types\n`);
    console.log(
      `${overallTable(
        rowsOf(
          split,
          VARIANTS.map((v) => v.name),
        ),
      )}\n`,
    );
    console.log(`## ${split} split, per question type\n`);
    console.log(`${typeTable(rowsOf(split, shown))}\n`);
  }
  console.log(`Picked on tune (turn@10 + session@5): ${picked.name}${argValue("--pick") === undefined ? "" : " (named by --pick)"}\n`);
  if (unionMode === "off") return;
  console.log("## Union corpus: every haystack's distinct texts in one index, every question over it\n");
  console.log(`${union(data, [...new Set([VARIANTS[0]!, today, picked, bestOf("passages")])], now)}\n`);
}

if (import.meta.main) main();
