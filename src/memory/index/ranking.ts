import type { FactKind, ScoreExplanation } from "../../schema/memory";
import { idfOf, KINDS, LIVE, INFERRED, QUESTION, SENSITIVE, TEAM, TF_BITS, type FactIndex, type Postings } from "./fact-index";
import { lexicon, MEANING_MAX_TERMS } from "../lexicon/lexicon";
import { intentsOf } from "../lexicon/intents";
import { intentMatch, type MeaningMatch, meaningMatches } from "./meaning";
import { termsOf, TrigramProbe, trigramsOf, trigramSimilarity } from "./terms";
import { factLift, windowShown } from "../time/fact-lift";
import { type QueryTime, readQueryTime, type TimeWindow, withoutExpressions } from "../time/query-time";

/**
 * The ranking function's parameters as one table, chosen on the development sets by
 * bench/retrieval.ts (LoCoMo's short chat turns and LongMemEval's long sessions, each beside a
 * plain BM25); docs/architecture.md says what each signal is for.
 */
export interface RankingParams {
  /** BM25 term-frequency saturation: how much a word said again adds. */
  k1: number;
  /** BM25 length normalisation: 0 ignores a fact's length, 1 divides by it in full. */
  b: number;
  /**
   * Lengths (in terms) below this count as this: among one-line statements length says little
   * about focus, so normalisation only sets in for longer texts (notes, pasted turns).
   */
  minLength: number;
  /** Added when the query names the fact's subject as a phrase ("what did Priya decide"). */
  subject: number;
  /** Added to facts about the end user named in the call. */
  endUser: number;
  /** Times the fact's confidence (0-1). */
  confidence: number;
  /** Times exp(-age / recencyDays). */
  recency: number;
  recencyDays: number;
  /** Taken from a short fact phrased as a question: it asks rather than records. */
  question: number;
  /** Times the share of the query's trigrams the fact holds, for the best `rerankDepth`. */
  phrasing: number;
  rerankDepth: number;
  /** The share of its score a strong match lends its conversation neighbours (0: none). */
  neighbour: number;
  /** How many of the best facts lend. */
  neighbourSources: number;
  /** How many facts on each side a match lends to; each further one gets `neighbourDecay` times the last's loan. */
  neighbourReach: number;
  neighbourDecay: number;
  /**
   * Facts longer than this (in terms) are not lent to, and a workspace whose facts are this long on
   * average lends nothing: a long turn is ranked on its own many words.
   */
  neighbourMaxLength: number;
  /** The best this many keep their places; loans rank neighbours among the rest. */
  neighbourAfter: number;
  /**
   * Spread over conversations: a fact of another conversation takes a place among the first
   * `spreadDepth` from one of a conversation already holding `spreadPerConversation` of them when
   * it scores at least this times the best left. 0 spreads nothing.
   */
  spread: number;
  spreadDepth: number;
  spreadPerConversation: number;
  /**
   * The meaning signal (docs/memory.md, "Search by meaning"): a query word the fact does not hold
   * scores through its best match by meaning in the fact, at similarity² times this times the
   * word's IDF. 0 turns the signal off (the bench's switch).
   */
  meaning: number;
  /** The least similarity a neighbour needs to count: below it, neighbours are mostly noise. */
  meaningFloor: number;
  /** The similarity a category match counts as ("sports" against a fact naming "tennis"). */
  category: number;
  /**
   * The similarity a match of intents counts as: the query asks for an attribute the fact states
   * ("where did I grow up?" against "I was raised in York"). 0 reads no intents.
   */
  intent: number;
  /** Times a sibling neighbour's weight ("monday"/"tuesday": related, rarely the same thing). */
  sibling: number;
  /** Neighbours (and categories) tried per query word at most, the most similar first. */
  meaningTerms: number;
  /**
   * Words this common (by frequency rank) are general: between two of them ("call"/"follow",
   * "night"/"friday") closeness says nothing, so a neighbour counts only when one side is rarer.
   */
  commonWords: number;
  /** Words this common ("time", "day", "every") stand for nothing in particular: never a neighbour that counts. */
  generalWords: number;
  /**
   * Facts longer than this (in terms) get nothing by meaning: a pasted chat turn or note holds so
   * many words that some neighbour of any query word is in it by chance. The index keeps no
   * categories past MEANING_MAX_TERMS, so a larger value only lets neighbours in.
   */
  meaningMaxLength: number;
  /**
   * Times a fact's lift by the time the query names (docs/memory.md, "Time in the question"):
   * 1 when observed inside the window, fading outside it. 0 reads no time in queries (the
   * bench's switch): the expressions' words are then plain terms again.
   */
  time: number;
}

export const RANKING: Readonly<RankingParams> = {
  k1: 1.6,
  b: 1.0,
  minLength: 25,
  subject: 3.0,
  endUser: 0.5,
  confidence: 0.2,
  recency: 0.2,
  recencyDays: 180,
  question: 1.0,
  phrasing: 2.0,
  rerankDepth: 40,
  neighbour: 0.4,
  neighbourSources: 5,
  neighbourReach: 2,
  neighbourDecay: 0.8,
  neighbourMaxLength: 40,
  neighbourAfter: 5,
  spread: 0.8,
  spreadDepth: 5,
  spreadPerConversation: 2,
  meaning: 1.0,
  meaningFloor: 0.5,
  category: 0.7,
  intent: 0.7,
  sibling: 0.5,
  meaningTerms: 8,
  commonWords: 2000,
  generalWords: 300,
  meaningMaxLength: MEANING_MAX_TERMS,
  time: 3.0,
};

/** Attributes a query asks for, considered at most (the first it names). */
const MAX_QUERY_INTENTS = 4;
/** Distinct query terms considered at most (a 2000-character query has hundreds of words). */
const MAX_QUERY_TERMS = 64;
/** A query word the workspace has never seen expands to at most this many known terms. */
const PREFIX_EXPANSIONS = 3;
const FUZZY_EXPANSIONS = 2;
/** Trigram similarity a known term needs to stand in for an unknown query word (a typo). */
const FUZZY_MIN_SIMILARITY = 0.3;
/** Queries longer than this skip the phrasing re-score: long text carries no phrasing signal. */
const PHRASING_MAX_QUERY = 200;
/** A question this long or shorter is only a question; a longer text asks after saying something. */
const QUESTION_MAX_TERMS = 24;

/** Who may see what: the visibility rules of docs/memory.md, compiled against one index. */
export interface ReadFilter {
  /** Index of the end user named in the call; negative when none is named or the index has none. */
  endUser: number;
  /** Index of the agent the call acts as; negative when it acts as none or the index holds none of its facts. */
  agent: number;
  internal: boolean;
  /** Bit i set: kind KINDS[i] may be returned. */
  kindMask: number;
  /** The read's clock, epoch milliseconds: facts that expired by then are not returned. */
  now: number;
  /** Only facts observed in [observedFrom, observedTo), epoch milliseconds (REST's observed_after / observed_before). */
  observedFrom: number;
  observedTo: number;
}

export function readFilter(
  index: FactIndex,
  v: { endUserId: string | null; agent?: string | null; audience: "internal" | "external"; kinds: readonly FactKind[] | null },
  now: number = Date.now(),
  observed: { from: number; to: number } = { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY },
): ReadFilter {
  const kindMask = v.kinds === null ? 0xff : v.kinds.reduce((mask, kind) => mask | (1 << KINDS.indexOf(kind)), 0);
  return {
    endUser: v.endUserId === null ? -1 : index.endUserIndex(v.endUserId),
    agent: v.agent === undefined || v.agent === null ? -1 : index.agentIndex(v.agent),
    internal: v.audience === "internal",
    kindMask,
    now,
    observedFrom: observed.from,
    observedTo: observed.to,
  };
}

const HIDDEN_FROM_EXTERNAL = SENSITIVE | TEAM | INFERRED;

/**
 * The one visibility test: live and not expired, in the observed range, end user only when named,
 * an agent's own facts only to that agent, external limits, kinds.
 */
export function isVisible(index: FactIndex, ord: number, filter: ReadFilter): boolean {
  const flags = index.flags[ord]!;
  if ((flags & LIVE) === 0 || index.expiresAt[ord]! <= filter.now) return false;
  const observed = index.recordedAt[ord]!;
  if (observed < filter.observedFrom || observed >= filter.observedTo) return false;
  const endUser = index.endUserOf[ord]!;
  if (endUser >= 0 && endUser !== filter.endUser) return false;
  const agent = index.agentOf[ord]!;
  if (agent >= 0 && agent !== filter.agent) return false;
  if (!filter.internal && (flags & HIDDEN_FROM_EXTERNAL) !== 0) return false;
  return ((filter.kindMask >>> index.kindOf[ord]!) & 1) === 1;
}

interface TermGroup {
  /** The query word's term. */
  word: string;
  /** The query word's own term, or the known terms it expands to (empty when only meaning matches). */
  terms: string[];
  postings: Postings[];
  idf: number[];
  /** Fact terms that match the word by meaning; a fact scores the best one only when it lacks the word. */
  meaning: MeaningMatch[];
  /** Facts holding any of the terms (counted once per term). */
  df: number;
}

/** A query, analysed once against one index and reusable across the packet's layers. */
export interface QueryPlan {
  /** The query has searchable words (not only stop words or punctuation). */
  hasTerms: boolean;
  /**
   * It names a time and none of its words is known here ("what happened last week?"): the time
   * is what it asks for, so the facts nearest it are the answer rather than none.
   */
  onlyTime: boolean;
  groups: TermGroup[];
  namedSubjects: Set<number>;
  /** The query's trigrams for the phrasing re-score; null when the query is too long to have phrasing. */
  trigrams: TrigramProbe | null;
  /** The times the query names, read at the read's instant. */
  time: QueryTime;
}

/**
 * Reads the times the query names at the read's instant `now`, splits the rest into terms, weighs
 * each by its IDF in this workspace, expands words the workspace has never seen (a typo, a partial
 * word) to known terms that start with them or are spelled closely, and finds the subjects the
 * query names as a phrase.
 */
export function planQuery(index: FactIndex, query: string, params: RankingParams = RANKING, now: number = Date.now()): QueryPlan {
  const time: QueryTime = params.time > 0 ? readQueryTime(query, now) : { windows: [], spans: [], order: false };
  const words = time.spans.length > 0 ? withoutExpressions(query, time) : query;
  const sequence = termsOf(words);
  const distinct = [...new Set(sequence)].slice(0, MAX_QUERY_TERMS);
  const n = Math.max(index.live, 1);
  const groups: TermGroup[] = [];
  for (const term of distinct) {
    const own = index.postings.get(term);
    // A word the workspace lacks is read as a partial word, and as a typo only when it is no known
    // English word: "pet" is not a misspelt "per", it asks for a match by meaning.
    const known = own && own.df > 0 ? [term] : term.length >= 3 ? expand(index, term, !(params.meaning > 0 && lexicon().has(term))) : [];
    const meaning = params.meaning > 0 ? meaningMatches(index, term, idfOf(n, own?.df ?? 0), known, params) : [];
    if (known.length === 0 && meaning.length === 0) continue;
    const postings = known.map((t) => index.postings.get(t)!);
    groups.push({ word: term, terms: known, postings, idf: postings.map((p) => idfOf(n, p.df)), meaning, df: postings.reduce((sum, p) => sum + p.df, 0) });
  }
  // The attributes the query asks for are matches by meaning of the words that asked (the last
  // of them the workspace knows: "family doctor" -> "doctor"), so a fact holding those words
  // scores them once, as words; the words known nowhere get a group of their own.
  if (params.meaning > 0 && params.intent > 0) {
    for (const intent of intentsOf(words).slice(0, MAX_QUERY_INTENTS)) {
      const match = intentMatch(index, intent.attribute, params);
      if (match === null) continue;
      const asked = termsOf(intent.words);
      const group = groups.findLast((g) => asked.includes(g.word));
      if (group !== undefined) group.meaning.push(match);
      else groups.push({ word: asked.at(-1) ?? intent.phrase, terms: [], postings: [], idf: [], meaning: [match], df: match.postings.df });
    }
  }
  groups.sort((a, b) => a.df - b.df);
  // A named subject's terms must be planned terms too: its facts hold them, so the bonus only
  // ever lifts a fact that matches the query (past MAX_QUERY_TERMS it would not).
  const planned = new Set(distinct);
  const namedSubjects = new Set<number>();
  for (let i = 0; i < sequence.length; i++) {
    for (const subject of index.subjectsByFirstTerm.get(sequence[i]!) ?? []) {
      const terms = index.subjects[subject]!.terms;
      if (terms.every((t, j) => sequence[i + j] === t && planned.has(t))) namedSubjects.add(subject);
    }
  }
  const trigrams = query.length <= PHRASING_MAX_QUERY ? new TrigramProbe(trigramsOf(words)) : null;
  return { hasTerms: sequence.length > 0, onlyTime: time.windows.length > 0 && groups.length === 0, groups, namedSubjects, trigrams, time };
}

function expand(index: FactIndex, word: string, typos: boolean): string[] {
  const bucket = (index.termsByPrefix.get(word.slice(0, 2)) ?? []).filter((t) => index.postings.get(t)!.df > 0);
  const df = (t: string): number => index.postings.get(t)!.df;
  const prefixed = bucket
    .filter((t) => t.startsWith(word))
    .sort((a, b) => df(b) - df(a) || (a < b ? -1 : 1))
    .slice(0, PREFIX_EXPANSIONS);
  if (!typos) return prefixed;
  const wordTrigrams = trigramsOf(word);
  const close = bucket
    .map((t) => ({ t, sim: trigramSimilarity(wordTrigrams, trigramsOf(t)) }))
    .filter((c) => c.sim >= FUZZY_MIN_SIMILARITY)
    .sort((a, b) => b.sim - a.sim || df(b.t) - df(a.t) || (a.t < b.t ? -1 : 1))
    .slice(0, FUZZY_EXPANSIONS)
    .map((c) => c.t);
  return [...new Set([...prefixed, ...close])];
}

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

/** Per-index scratch space for scoring, reused by every query (JavaScript runs one at a time). */
interface Scratch {
  score: Float64Array;
  /** The query a fact was scored in ahead of the walk (see PREFILL_MAX). */
  doneIn: Uint32Array;
  epoch: number;
}
const scratches = new WeakMap<FactIndex, Scratch>();

function scratchFor(index: FactIndex): Scratch {
  let s = scratches.get(index);
  if (!s || s.score.length < index.count) {
    const size = Math.max(index.flags.length, 64);
    s = { score: new Float64Array(size), doneIn: new Uint32Array(size), epoch: 0 };
    scratches.set(index, s);
  }
  if (s.epoch >= 0xfffffff0) {
    s.doneIn.fill(0);
    s.epoch = 0;
  }
  return s;
}

/**
 * The first posting at or after `from` whose ordinal is at least `ord` (postings are in ordinal
 * order): galloping, then binary search, so skipping far ahead costs a logarithm, not a scan.
 */
function seek(data: Uint32Array, size: number, from: number, ord: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < size && data[hi]! >>> TF_BITS < ord) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, size);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (data[mid]! >>> TF_BITS < ord) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Higher score first, then the more recent fact, then the larger id: a total, stable order. */
function better(index: FactIndex, scores: Float64Array | Map<number, number>, a: number, b: number): boolean {
  const sa = scores instanceof Map ? scores.get(a)! : scores[a]!;
  const sb = scores instanceof Map ? scores.get(b)! : scores[b]!;
  if (sa !== sb) return sa > sb;
  const ra = index.recordedAt[a]!;
  const rb = index.recordedAt[b]!;
  if (ra !== rb) return ra > rb;
  return index.ids[a]! > index.ids[b]!;
}

/** Keeps the best `size` ordinals seen: a binary min-heap whose root is the worst kept. */
class TopK {
  readonly items: number[] = [];
  constructor(
    readonly size: number,
    private readonly isBetter: (a: number, b: number) => boolean,
  ) {}

  offer(ord: number): void {
    const items = this.items;
    if (items.length < this.size) {
      items.push(ord);
      let i = items.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.isBetter(items[parent]!, items[i]!)) break;
        [items[parent], items[i]] = [items[i]!, items[parent]!];
        i = parent;
      }
      return;
    }
    if (this.size === 0 || !this.isBetter(ord, items[0]!)) return;
    items[0] = ord;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < items.length && this.isBetter(items[worst]!, items[l]!)) worst = l;
      if (r < items.length && this.isBetter(items[worst]!, items[r]!)) worst = r;
      if (worst === i) return;
      [items[worst], items[i]] = [items[i]!, items[worst]!];
      i = worst;
    }
  }

  sorted(): number[] {
    return [...this.items].sort((a, b) => (this.isBetter(a, b) ? -1 : 1));
  }
}

/**
 * Cursor indices ordered by the ordinal each is on (`current`), the smallest on top: which
 * cursors hold the next fact, without looking at every cursor for every fact.
 */
class CursorHeap {
  private readonly items: Int32Array;
  size = 0;

  constructor(private readonly current: Int32Array) {
    this.items = new Int32Array(current.length);
  }

  top(): number {
    return this.items[0]!;
  }

  push(cursor: number): void {
    const { items, current } = this;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (current[items[parent]!]! <= current[cursor]!) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = cursor;
  }

  pop(): void {
    this.size -= 1;
    if (this.size > 0) {
      this.items[0] = this.items[this.size]!;
      this.settleTop();
    }
  }

  /** Restores the order after the top cursor moved on to a later ordinal. */
  settleTop(): void {
    const { items, current, size } = this;
    const cursor = items[0]!;
    const key = current[cursor]!;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && current[items[right]!]! < current[items[left]!]! ? right : left;
      if (current[items[child]!]! >= key) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = cursor;
  }
}

/** One query term's postings as the ranking walks them. */
interface Cursor {
  data: Uint32Array;
  size: number;
  /** The query word's group, and whether the cursor is a match by meaning (the group's best one counts) or by word (all count). */
  group: number;
  meaning: boolean;
  /** What explain names: the query word and the fact term; "" for a named subject. */
  word: string;
  term: string;
  via: MeaningMatch["via"] | null;
  similarity: number;
  idfK1: number;
  /** The weight of every posting when it does not depend on tf (a named subject's facts), else 0. */
  fixed: number;
  /** No fact can get more than this from the term (BM25 at the list's largest tf and shortest fact). */
  bound: number;
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
  const { flags, lengthOf } = index;
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
  const recencyMs = p.recencyDays * 86_400_000;
  const timed = plan.time.windows.length > 0;
  const extraBound = (filter.endUser >= 0 ? p.endUser : 0) + p.confidence + p.recency + (timed ? p.time : 0);
  // The per-fact signals, one function each: the score and explain both read them.
  const endUserSignal = (ord: number): number => (index.endUserOf[ord]! >= 0 ? p.endUser : 0);
  const confidenceSignal = (ord: number): number => p.confidence * index.confidence[ord]!;
  const recencySignal = (ord: number): number => p.recency * Math.exp(-(now - index.recordedAt[ord]!) / recencyMs);
  const questionSignal = (ord: number): number => ((flags[ord]! & QUESTION) !== 0 && lengthOf[ord]! <= QUESTION_MAX_TERMS ? p.question : 0);
  const timeSignal = (ord: number): number => (timed ? p.time * factLift(index, plan.time.windows, ord) : 0);
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
      parts.phrasing = at >= 0 && at < p.rerankDepth && plan.trigrams !== null ? p.phrasing * plan.trigrams.shareIn(index.text(ord)) : 0;
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

/** What a strong match lent a conversation neighbour: the lender, and the score added. */
interface Loan {
  source: number;
  loan: number;
}

/**
 * The re-score of the best `rerankDepth`: phrasing, then what the strongest matches lend their
 * conversation neighbours. A fixed depth, so a smaller limit returns a prefix of a larger one.
 */
function rescore(
  index: FactIndex,
  plan: QueryPlan,
  p: RankingParams,
  ranked: number[],
  score: Float64Array,
  limit: number,
  accepts: (ord: number) => boolean,
  scoreOf: (ord: number) => number,
): { result: number[]; loans: Map<number, Loan>; lifts: Map<number, number> } {
  const phrased = plan.trigrams !== null && p.phrasing > 0;
  const loans = new Map<number, Loan>();
  const lifts = new Map<number, number>();
  const final = new Map<number, number>();
  const finish = (ordered: number[]): { result: number[]; loans: Map<number, Loan>; lifts: Map<number, number> } => ({
    result: spreadOverConversations(index, p, ordered, (ord) => final.get(ord) ?? score[ord]!, lifts).slice(0, limit),
    loans,
    lifts,
  });
  if (!phrased && p.neighbour === 0) return finish(ranked.slice(0, Math.max(limit, p.rerankDepth)));
  const head = ranked.slice(0, p.rerankDepth);
  for (const ord of head) final.set(ord, score[ord]! + (phrased ? p.phrasing * plan.trigrams!.shareIn(index.text(ord)) : 0));
  head.sort((a, b) => (better(index, final, a, b) ? -1 : 1));
  lendToNeighbours(index, p, head, final, accepts, loans);
  if (loans.size === 0) return finish([...head, ...ranked.slice(p.rerankDepth)]);
  // The first `neighbourAfter` keep their places, so a loan takes no fact past the last of them:
  // an explanation's score stays the order's.
  const kept = head.slice(0, p.neighbourAfter);
  const cap = kept.length > 0 ? final.get(kept.at(-1)!)! : Number.POSITIVE_INFINITY;
  for (const [ord, entry] of loans) {
    if (kept.includes(ord)) {
      loans.delete(ord);
      continue;
    }
    // A neighbour from past the head ranks by its own score (no phrasing: that is the head's). One
    // that matches the query neither by word nor by meaning is not lent to: a search never
    // returns a fact unrelated to it.
    const own = final.get(ord) ?? scoreOf(ord);
    entry.loan = Math.min(entry.loan, cap - own);
    if (own === Number.NEGATIVE_INFINITY || !(entry.loan > 0)) loans.delete(ord);
    else final.set(ord, own + entry.loan);
  }
  if (loans.size === 0) return finish([...head, ...ranked.slice(p.rerankDepth)]);
  const rest = [...new Set([...head.slice(p.neighbourAfter), ...loans.keys()])].filter((ord) => !kept.includes(ord));
  const rescored = [...kept, ...rest.sort((a, b) => (better(index, final, a, b) ? -1 : 1))];
  const taken = new Set(rescored);
  return finish([...rescored, ...ranked.slice(p.rerankDepth).filter((ord) => !taken.has(ord))]);
}

/**
 * Spread over conversations (docs/memory.md): when the best matches crowd into one conversation,
 * the first `spreadDepth` places take at most `spreadPerConversation` facts of one while a fact of
 * another scores at least `spread` times the best left; the crowded ones follow, in order. An
 * answer told across several sessions then has each of them among the first few. A fact moved up
 * is lifted (`lifts`) to the score of the one it went before, so the scores stay the order's. Facts of
 * one conversation: the same end user (or none), observed within NEIGHBOUR_WINDOW_MS of each other.
 */
function spreadOverConversations(
  index: FactIndex,
  p: RankingParams,
  ordered: readonly number[],
  scoreOf: (ord: number) => number,
  lifts: Map<number, number>,
): number[] {
  if (p.spread === 0 || ordered.length <= 1) return [...ordered];
  const head = ordered.slice(0, p.rerankDepth);
  const picked: number[] = [];
  while (picked.length < p.spreadDepth && head.length > 0) {
    const best = scoreOf(head[0]!);
    const crowded = (ord: number): boolean => picked.filter((q) => sameConversation(index, q, ord)).length >= p.spreadPerConversation;
    const at = head.findIndex((ord) => !crowded(ord) && scoreOf(ord) >= p.spread * best);
    const [ord] = head.splice(Math.max(at, 0), 1);
    if (at > 0) lifts.set(ord!, best - scoreOf(ord!));
    picked.push(ord!);
  }
  return [...picked, ...head, ...ordered.slice(p.rerankDepth)];
}

/**
 * Conversation neighbours (docs/memory.md): the answer is often the turn next to the best match
 * ("what did the doctor say?" matches the user's turn; the reply holds the answer). Each of the
 * `neighbourSources` best facts lends `neighbour` times its score to the nearest fact on either
 * side that the caller may see, when the two were taught one after the other, about the same end
 * user (or none), observed within `NEIGHBOUR_WINDOW_MS`. A fact keeps its largest loan only.
 */
function lendToNeighbours(
  index: FactIndex,
  p: RankingParams,
  head: readonly number[],
  final: ReadonlyMap<number, number>,
  accepts: (ord: number) => boolean,
  loans: Map<number, Loan>,
): void {
  // In a workspace of long texts (pasted notes, an assistant's long replies) each fact stands on its
  // own many words, and loans there cost more than they find (bench/RESULTS.md, issue 45).
  if (p.neighbour === 0 || index.totalLength > p.neighbourMaxLength * index.live) return;
  for (const source of head.slice(0, p.neighbourSources)) {
    const loan = p.neighbour * final.get(source)!;
    if (!(loan > 0)) continue;
    for (const step of [-1, 1]) {
      let reached = 0;
      let share = loan;
      for (let ord = source + step, hops = 0; ord >= 0 && ord < index.count && hops < NEIGHBOUR_HOPS + p.neighbourReach; ord += step, hops++) {
        if (!sameConversation(index, ord - step, ord)) break;
        if (!accepts(ord)) continue;
        // A long turn takes its place in the conversation, but no loan.
        if (index.lengthOf[ord]! <= p.neighbourMaxLength && share > (loans.get(ord)?.loan ?? 0)) loans.set(ord, { source, loan: share });
        if (++reached >= p.neighbourReach) break;
        share *= p.neighbourDecay;
      }
    }
  }
}

/** Facts further apart than this in observed time are not one conversation's turns. */
const NEIGHBOUR_WINDOW_MS = 10 * 60_000;
/** Facts stepped over (superseded, or not the caller's to see) looking for a neighbour, at most. */
const NEIGHBOUR_HOPS = 3;

function sameConversation(index: FactIndex, a: number, b: number): boolean {
  return index.endUserOf[a] === index.endUserOf[b] && Math.abs(index.recordedAt[a]! - index.recordedAt[b]!) <= NEIGHBOUR_WINDOW_MS;
}

/**
 * The latest visible facts (recorded time, then id): for queries without terms and the about_actor
 * fill. When the query names a time (`windows`: "what happened last week?"), the facts observed
 * nearest it come first.
 */
export function recentFacts(index: FactIndex, filter: ReadFilter, options: RankOptions, windows: readonly TimeWindow[] = []): number[] {
  // Each considered fact's lift, by ordinal (only allocated when the query names a time).
  const lift = windows.length === 0 ? null : new Float64Array(index.count);
  const liftOf = (ord: number): number => (lift === null ? 0 : lift[ord]!);
  const top = new TopK(
    options.limit,
    (a, b) =>
      liftOf(a) > liftOf(b) ||
      (liftOf(a) === liftOf(b) &&
        (index.recordedAt[a]! > index.recordedAt[b]! || (index.recordedAt[a] === index.recordedAt[b] && index.ids[a]! > index.ids[b]!))),
  );
  const consider = (ord: number): void => {
    if (!isVisible(index, ord, filter)) return;
    if (options.onlyEndUser === true && index.endUserOf[ord]! < 0) return;
    if (options.exclude?.has(ord)) return;
    if (lift !== null) lift[ord] = factLift(index, windows, ord);
    top.offer(ord);
  };
  if (options.onlyEndUser === true) {
    for (const ord of filter.endUser >= 0 ? (index.endUserFacts[filter.endUser] ?? []) : []) consider(ord);
  } else if (lift === null) {
    // Newest first until the limit is reached: the cost follows the limit, not the workspace.
    const order = index.byRecency();
    for (let i = order.length - 1; i >= 0 && top.items.length < options.limit; i--) consider(order[i]!);
  } else {
    for (let ord = 0; ord < index.count; ord++) consider(ord);
  }
  return top.sorted();
}

/** Pinned visible facts, latest first: the packet's always-present core. */
export function pinnedFacts(index: FactIndex, filter: ReadFilter, limit: number): number[] {
  const top = new TopK(
    limit,
    (a, b) => index.recordedAt[a]! > index.recordedAt[b]! || (index.recordedAt[a] === index.recordedAt[b] && index.ids[a]! > index.ids[b]!),
  );
  for (const ord of index.pinned) if (isVisible(index, ord, filter)) top.offer(ord);
  return top.sorted();
}
