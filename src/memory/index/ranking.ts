import type { ScoreExplanation } from "../../schema/memory";
import { CursorHeap, type Cursor, scratchFor, seek } from "./cursors";
import type { FactIndex } from "./fact-index";
import { isVisible, type ReadFilter } from "./filter";
import type { MeaningMatch } from "./meaning";
import { RANKING, type RankingParams } from "./params";
import { phrasingSignal } from "./phrasing";
import type { QueryPlan } from "./plan";
import { TF_BITS, type Postings } from "./postings";
import { questionSignalFor } from "./question";
import { confidenceSignalFor, recencySignalFor } from "./recency";
import { rescore } from "./rescore";
import { timeSignalFor } from "./time-lift";
import { TopK, better } from "./top-k";
import { windowShown } from "../time/fact-lift";

export interface RankOptions {
  limit: number;
  /** Only facts about the named end user (the packet's about_actor layer). */
  onlyEndUser?: boolean;
  /** Ordinals already taken (a packet's earlier layers). */
  exclude?: ReadonlySet<number>;
  now?: number;
  /** The ranking parameters; RANKING unless a bench tries others. */
  params?: RankingParams;
  /** Filled with why each returned fact ranked (REST search's `explain`), by the code that scores it. */
  explain?: Map<number, ScoreExplanation>;
}

/** The strongest term's facts are scored ahead of the walk when it has at most this many. */
const PREFILL_MAX = 4096;
/** Slack for float summation order when a bound is compared with a score. */
const EPSILON = 1e-9;

/**
 * Ranks the visible facts matching a planned query, best first. A fact's score is BM25 over the
 * query words it holds (an expanded word scores its known terms), plus the subject-named,
 * end-user, confidence and recency signals, minus the question penalty; the best `rerankDepth`
 * by that score are re-scored by how much of the query's phrasing (trigrams) they share. Ties:
 * more recent, then larger id. No fact outside `filter` is scored.
 *
 * Exact top-k with MaxScore (Turtle and Flood): the postings are walked a fact at a time in
 * ordinal order; once the kept facts' worst score is above what the lower-bound terms could give
 * together, those terms stop proposing facts and are only looked up for facts the others found.
 * It skips only facts that cannot enter the result, so the result is the one an exhaustive
 * scoring of every visible fact that shares a query term would give.
 */
export function rankFacts(index: FactIndex, plan: QueryPlan, filter: ReadFilter, options: RankOptions): number[] {
  if (plan.groups.length === 0 || options.limit <= 0) return [];
  const p = options.params ?? RANKING;
  const scratch = scratchFor(index);
  const { score, doneIn } = scratch;
  const epoch = ++scratch.epoch;
  const avgLength = Math.max(index.live > 0 ? index.totalLength / index.live : 1, p.minLength, 1);
  const { lengthOf } = index;
  // weight = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * max(length, minLength) / avgLength)), folded.
  const base = p.k1 * (1 - p.b);
  const perLength = (p.k1 * p.b) / avgLength;
  const weigh = (idfK1: number, tf: number, length: number): number => (idfK1 * tf) / (tf + base + perLength * Math.max(length, p.minLength));
  const cursors: Cursor[] = [];
  plan.groups.forEach((group, g) => {
    const cursorOf = (postings: Postings, idf: number, match: { term: string; meaning: MeaningMatch | null }): void => {
      if (postings.size === 0) return;
      const idfK1 = idf * (p.k1 + 1);
      const m = match.meaning;
      cursors.push({
        data: postings.data,
        size: postings.size,
        group: g,
        meaning: m !== null,
        word: group.word,
        term: match.term,
        via: m?.via ?? null,
        similarity: m?.similarity ?? 1,
        idfK1,
        fixed: 0,
        bound: weigh(idfK1, postings.maxTf, postings.minLength),
      });
    };
    group.postings.forEach((postings, t) => {
      cursorOf(postings, group.idf[t]!, { term: group.terms[t]!, meaning: null });
    });
    for (const m of group.meaning) cursorOf(m.postings, m.idf, { term: m.term, meaning: m });
  });
  // The subject bonus walks like a term, so MaxScore can stop proposing a named subject's facts too.
  for (const subject of plan.namedSubjects) {
    const facts = index.subjects[subject]!.facts;
    if (p.subject > 0 && facts.size > 0) {
      cursors.push({
        data: facts.data,
        size: facts.size,
        group: -1,
        meaning: false,
        word: "",
        term: "",
        via: null,
        similarity: 1,
        idfK1: 0,
        fixed: p.subject,
        bound: p.subject,
      });
    }
  }
  cursors.sort((a, b) => a.bound - b.bound);
  // upTo[i]: the most terms 0..i can give together; upToByWord[i], the most they can give a fact
  // too long to match by meaning (its matches by meaning give it nothing).
  const upTo: number[] = [];
  const upToByWord: number[] = [];
  cursors.reduce((sum, c, i) => (upTo[i] = sum + c.bound), 0);
  cursors.reduce((sum, c, i) => (upToByWord[i] = sum + (c.meaning ? 0 : c.bound)), 0);
  const now = options.now ?? Date.now();
  const timed = plan.time.windows.length > 0;
  const extraBound = (filter.endUser >= 0 ? p.endUser : 0) + p.confidence + p.recency + (timed ? p.time : 0);
  // The per-fact signals, one function each (a module each but the end user's one line, which
  // `extraBound` counts only when the filter names an end user): the score and explain both read them.
  const endUserSignal = (ord: number): number => (index.endUserOf[ord]! >= 0 ? p.endUser : 0);
  const confidenceSignal = confidenceSignalFor(index, p);
  const recencySignal = recencySignalFor(index, p, now);
  const questionSignal = questionSignalFor(index, p);
  const timeSignal = timeSignalFor(index, plan, p);
  const extraOf = (ord: number): number => endUserSignal(ord) + confidenceSignal(ord) + recencySignal(ord) + timeSignal(ord) - questionSignal(ord);
  const onlyEndUser = options.onlyEndUser === true;
  // An empty set is no test at all: most packets have no earlier layer.
  const exclude = options.exclude !== undefined && options.exclude.size > 0 ? options.exclude : undefined;
  const accepts = (ord: number): boolean =>
    isVisible(index, ord, filter) && (!onlyEndUser || index.endUserOf[ord]! >= 0) && (exclude === undefined || !exclude.has(ord));

  const top = new TopK(Math.max(p.rerankDepth, options.limit), (a, b) => better(index, score, a, b));
  // The cursors in parallel arrays, bound order: the loop below runs once per fact proposed.
  const n = cursors.length;
  const data = cursors.map((c) => c.data);
  const size = Int32Array.from(cursors, (c) => c.size);
  const at = new Int32Array(n);
  const idfK1 = Float64Array.from(cursors, (c) => c.idfK1);
  const fixed = Float64Array.from(cursors, (c) => c.fixed);
  /** The ordinal each cursor is on; NONE once it is done. */
  const NONE = 0x7fffffff;
  const current = Int32Array.from(cursors, (c) => (c.size > 0 ? c.data[0]! >>> TF_BITS : NONE));
  const minLength = p.minLength;
  // Cursors below `essential` no longer propose facts; the kept facts' worst score is `threshold`.
  let essential = 0;
  let threshold = Number.NEGATIVE_INFINITY;
  /** BM25's length factor of a fact, folded: k1 * (1 - b + b * max(length, minLength) / avgLength). */
  const normOf = (ord: number): number => {
    const length = lengthOf[ord]!;
    return base + perLength * Math.max(length, minLength);
  };
  // A query word scores its own terms' gains when the fact holds one, else its best match by meaning.
  const meaningGroup = Int32Array.from(cursors, (c) => (c.meaning ? c.group : -1));
  const wordGroup = Int32Array.from(cursors, (c) => (c.meaning ? -1 : c.group));
  // A fact past meaningMaxLength has this norm or more: matches by meaning give it nothing.
  const meaningNormCut = base + perLength * Math.max(p.meaningMaxLength, minLength);
  /** What the posting `packed` of cursor `i` adds to its fact (more than 0, but for a match by meaning in a long fact). */
  const gain = (i: number, packed: number, norm: number): number => {
    if (fixed[i]! > 0) return fixed[i]!;
    if (meaningGroup[i]! >= 0 && norm > meaningNormCut) return 0;
    const tf = packed & 0xff;
    return (idfK1[i]! * tf) / (tf + norm);
  };
  /** What cursor `i` adds to fact `ord` (0 when the fact is not in its list), moving `from[i]` up to it. */
  const lookUp = (i: number, ord: number, norm: number, from: Int32Array): number => {
    const list = data[i]!;
    const j = seek(list, size[i]!, from[i]!, ord);
    from[i] = j;
    return j < size[i]! && list[j]! >>> TF_BITS === ord ? gain(i, list[j]!, norm) : 0;
  };
  /**
   * What each cursor gave the fact being scored. The score adds them in cursor order, whichever
   * path found the fact: float addition is not associative, and a fact scored through another
   * path (the head start, or the walk with fewer essential cursors, as a larger limit gives)
   * must score the same to the last bit, or a tie the tie-breakers should settle goes by rounding.
   */
  const gains = new Float64Array(n);
  const anyMeaning = cursors.some((c) => c.meaning);
  const bestMeaning = new Float64Array(plan.groups.length);
  const bestCursor = new Int32Array(plan.groups.length);
  const wordFound = new Uint8Array(plan.groups.length);
  /**
   * The fact's score from `gains`; `report`, when given, receives each part that counted (explain).
   * -Infinity when nothing matched (a long fact that only a match by meaning proposed).
   */
  const scoreOfGains = (extra: number, report?: (cursor: number, gain: number) => void): number => {
    let total = 0;
    if (!anyMeaning) {
      for (let i = 0; i < n; i++) {
        total += gains[i]!;
        if (report !== undefined && gains[i]! > 0) report(i, gains[i]!);
      }
      return total + extra;
    }
    bestMeaning.fill(0);
    wordFound.fill(0);
    for (let i = 0; i < n; i++) {
      const g = gains[i]!;
      const m = meaningGroup[i]!;
      if (m >= 0) {
        if (g > bestMeaning[m]!) {
          bestMeaning[m] = g;
          bestCursor[m] = i;
        }
        continue;
      }
      total += g;
      if (g > 0) {
        if (wordGroup[i]! >= 0) wordFound[wordGroup[i]!] = 1;
        report?.(i, g);
      }
    }
    for (let m = 0; m < bestMeaning.length; m++) {
      if (wordFound[m] === 1 || bestMeaning[m] === 0) continue;
      total += bestMeaning[m]!;
      report?.(bestCursor[m]!, bestMeaning[m]!);
    }
    return total === 0 ? Number.NEGATIVE_INFINITY : total + extra;
  };
  /** Scores a fact from `sum` (what the cursors from `below` up gave, in `gains`) by looking up the rest; -Infinity when it cannot be kept. */
  const complete = (ord: number, sum: number, below: number, norm: number, from: Int32Array): number => {
    const extra = extraOf(ord);
    const long = norm > meaningNormCut;
    const bounds = long ? upToByWord : upTo;
    for (let i = below - 1; i >= 0; i--) {
      if (sum + bounds[i]! + extra + EPSILON < threshold) return Number.NEGATIVE_INFINITY;
      const g = long && meaningGroup[i]! >= 0 ? 0 : lookUp(i, ord, norm, from);
      gains[i] = g;
      sum += g;
    }
    return scoreOfGains(extra);
  };
  const keepIfBetter = (ord: number, total: number): void => {
    if (top.items.length === top.size && total + EPSILON < threshold) return;
    score[ord] = total;
    top.offer(ord);
    if (top.items.length === top.size) {
      threshold = score[top.items[0]!]!;
      while (essential < n && upTo[essential]! + extraBound + EPSILON < threshold) essential += 1;
    }
  };
  if (onlyEndUser) {
    // Only the named end user's facts may be returned: they are few, so they are scored by
    // looking each up in every list rather than by walking the lists for them.
    const from = new Int32Array(n);
    for (const ord of filter.endUser >= 0 ? (index.endUserFacts[filter.endUser] ?? []) : []) {
      if (!accepts(ord)) continue;
      const norm = normOf(ord);
      let sum = 0;
      for (let i = n - 1; i >= 0; i--) {
        gains[i] = lookUp(i, ord, norm, from);
        sum += gains[i]!;
      }
      // A sum of 0 means the fact holds no query term.
      const total = sum > 0 ? scoreOfGains(extraOf(ord)) : Number.NEGATIVE_INFINITY;
      if (total !== Number.NEGATIVE_INFINITY) keepIfBetter(ord, total);
    }
    return finish(top.sorted());
  }
  // A head start: the facts of the strongest term, scored in full before the walk, usually lift
  // the threshold so high that most weaker terms never propose a fact. The walk skips them.
  const strongest = n - 1;
  if (n > 1 && size[strongest]! <= PREFILL_MAX) {
    const from = new Int32Array(n);
    const list = data[strongest]!;
    for (let j = 0; j < size[strongest]!; j++) {
      const ord = list[j]! >>> TF_BITS;
      doneIn[ord] = epoch;
      if (!accepts(ord)) continue;
      const norm = normOf(ord);
      gains[strongest] = gain(strongest, list[j]!, norm);
      const total = complete(ord, gains[strongest]!, strongest, norm, from);
      if (total !== Number.NEGATIVE_INFINITY) keepIfBetter(ord, total);
    }
  }
  // The walk after the head start: gains were written for every cursor; from here on a cursor at
  // or above `essential` holds a gain only while its fact is being scored.
  gains.fill(0);
  const byOrdinal = new CursorHeap(current);
  for (let i = essential; i < n; i++) if (current[i] !== NONE) byOrdinal.push(i);
  const moved = new Int32Array(n);
  for (;;) {
    // A cursor that stopped proposing facts leaves the heap when it comes to the top.
    while (byOrdinal.size > 0 && byOrdinal.top() < essential) byOrdinal.pop();
    if (byOrdinal.size === 0) break;
    const ord = current[byOrdinal.top()]!;
    const norm = normOf(ord);
    let sum = 0;
    let movedCount = 0;
    // Only the cursors on this fact are touched: the heap hands them over in log time each,
    // where a scan of every essential cursor per fact cost most of a long query's walk.
    while (byOrdinal.size > 0 && current[byOrdinal.top()] === ord) {
      const i = byOrdinal.top();
      if (i < essential) {
        byOrdinal.pop();
        continue;
      }
      const list = data[i]!;
      const j = at[i]!;
      gains[i] = gain(i, list[j]!, norm);
      sum += gains[i]!;
      moved[movedCount++] = i;
      at[i] = j + 1;
      current[i] = j + 1 < size[i]! ? list[j + 1]! >>> TF_BITS : NONE;
      if (current[i] === NONE) byOrdinal.pop();
      else byOrdinal.settleTop();
    }
    // Most facts cannot reach the kept ones even with every other term and signal at its best;
    // the one place a fact becomes a candidate: the caller's visibility and options decide.
    const rest = essential === 0 ? 0 : (norm > meaningNormCut ? upToByWord : upTo)[essential - 1]!;
    if (doneIn[ord] !== epoch && sum + rest + extraBound + EPSILON >= threshold && accepts(ord)) {
      const total = complete(ord, sum, essential, norm, at);
      if (total !== Number.NEGATIVE_INFINITY) keepIfBetter(ord, total);
    }
    for (let k = 0; k < movedCount; k++) gains[moved[k]!] = 0;
  }
  return finish(top.sorted());

  /** A fact's score, every list looked up: -Infinity when it matches no query word, by word or by meaning. */
  function scoreOf(ord: number): number {
    const from = new Int32Array(n);
    const norm = normOf(ord);
    let matched = false;
    for (let i = 0; i < n; i++) {
      gains[i] = lookUp(i, ord, norm, from);
      if (gains[i]! > 0 && fixed[i] === 0) matched = true;
    }
    return matched ? scoreOfGains(extraOf(ord)) : Number.NEGATIVE_INFINITY;
  }

  /** The re-score, then, when asked, why each returned fact ranked: its gains looked up again and reported by scoreOfGains. */
  function finish(ranked: number[]): number[] {
    const { result, loans, lifts } = rescore(index, plan, p, ranked, score, options.limit, accepts, scoreOf);
    const explain = options.explain;
    if (explain === undefined) return result;
    for (const ord of result) {
      const from = new Int32Array(n);
      const norm = normOf(ord);
      for (let i = 0; i < n; i++) gains[i] = lookUp(i, ord, norm, from);
      const parts: ScoreExplanation = {
        score: 0,
        words: [],
        meaning: [],
        subject: 0,
        end_user: endUserSignal(ord),
        confidence: confidenceSignal(ord),
        recency: recencySignal(ord),
        question: -questionSignal(ord),
        phrasing: 0,
        time: timeSignal(ord),
        ...(timed && { time_window: windowShown(index, plan.time.windows, ord) }),
      };
      parts.score = scoreOfGains(extraOf(ord), (i, gain) => {
        const c = cursors[i]!;
        if (c.group < 0) parts.subject += gain;
        else if (c.meaning) parts.meaning.push({ query_term: c.word, fact_term: c.term, via: c.via!, similarity: round(c.similarity), score: round(gain) });
        else parts.words.push({ query_term: c.word, fact_term: c.term, score: round(gain) });
      });
      const at = ranked.indexOf(ord);
      parts.phrasing = at >= 0 && at < p.rerankDepth && plan.trigrams !== null ? phrasingSignal(index, plan.trigrams, p, ord) : 0;
      parts.score += parts.phrasing;
      const loan = loans.get(ord);
      if (loan !== undefined) {
        parts.neighbour = { fact_id: index.ids[loan.source]!, score: round(loan.loan) };
        parts.score += loan.loan;
      }
      const lift = lifts.get(ord);
      if (lift !== undefined) {
        parts.spread = round(lift);
        parts.score += lift;
      }
      explain.set(ord, roundParts(parts));
    }
    return result;
  }
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

function roundParts(parts: ScoreExplanation): ScoreExplanation {
  return {
    ...parts,
    score: round(parts.score),
    subject: round(parts.subject),
    end_user: round(parts.end_user),
    confidence: round(parts.confidence),
    recency: round(parts.recency),
    question: round(parts.question),
    phrasing: round(parts.phrasing),
    time: round(parts.time),
  };
}
