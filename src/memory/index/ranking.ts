import type { FactKind } from "../../schema/memory";
import { KINDS, LIVE, INFERRED, QUESTION, SENSITIVE, TEAM, TF_BITS, type FactIndex, type Postings } from "./fact-index";
import { termsOf, trigramsOf, trigramSimilarity, wordsOf } from "./terms";

/**
 * BM25's term-frequency saturation and length normalisation. A fact is one short statement: a word
 * said twice adds little, so frequency saturates almost at once (on LoCoMo, k1 1.2 loses about a
 * point of recall@10 against 0.01; bench/locomo.ts).
 */
const K1 = 0.01;
const B = 0.5;
/**
 * Candidates come from the rarest query words while their document frequencies sum to at most
 * this (the rarest always counts); commoner words only add to the score of those candidates. It
 * bounds the work per query whatever the workspace size, and loses nothing a reader would miss: a
 * fact holding every query word holds the rarest one too. While fewer visible candidates than the
 * ranking keeps have been found, the next word selects too: only visible facts become candidates,
 * so a word that only hidden facts hold (another end user's, sensitive ones for an external key)
 * can neither starve the caller's results nor be detected through them.
 */
const CANDIDATE_BUDGET = 4000;

/** Distinct query terms considered at most (a 2000-character query has hundreds of words). */
const MAX_QUERY_TERMS = 64;
/** A query word the workspace has never seen expands to at most this many known terms. */
const PREFIX_EXPANSIONS = 3;
const FUZZY_EXPANSIONS = 2;
/** Trigram similarity a known term needs to stand in for an unknown query word (a typo). */
const FUZZY_MIN_SIMILARITY = 0.3;
/**
 * A fact holding every word of a query of two or more words outranks one that does not: it is
 * the fact asked about, however common those words are. Larger than any other signal.
 */
const COMPLETE_MATCH_BONUS = 100;
/**
 * Bonus when the query names the fact's subject as a phrase ("what did Priya decide" and a fact
 * about Priya): about one rare matching term, so facts about the person asked about come first
 * among comparable matches without burying a strong match about someone else.
 */
const SUBJECT_WEIGHT = 3.0;
const END_USER_WEIGHT = 0.5;
const CONFIDENCE_WEIGHT = 0.2;
const RECENCY_WEIGHT = 0.2;
const RECENCY_SCALE_MS = 180 * 86_400_000;
/** What a "fact" phrased as a question loses: it asks rather than records. */
const QUESTION_PENALTY = 1.0;
/** How many of the best candidates (at least) are re-scored by phrasing. */
const RERANK_DEPTH = 40;
/** Queries longer than this skip the phrasing re-score: long text carries no phrasing signal. */
const PHRASING_MAX_QUERY = 200;
/** Weight of the share of the query's trigrams the fact holds (0-1). */
const PHRASING_WEIGHT = 2.0;

/** Who may see what: the visibility rules of DESIGN.md, compiled against one index. */
export interface ReadFilter {
  /** Index of the end user named in the call; negative when none is named or the index has none. */
  endUser: number;
  internal: boolean;
  /** Bit i set: kind KINDS[i] may be returned. */
  kindMask: number;
}

export function readFilter(index: FactIndex, v: { endUserId: string | null; audience: "internal" | "external"; kinds: readonly FactKind[] | null }): ReadFilter {
  const kindMask = v.kinds === null ? 0xff : v.kinds.reduce((mask, kind) => mask | (1 << KINDS.indexOf(kind)), 0);
  return { endUser: v.endUserId === null ? -1 : index.endUserIndex(v.endUserId), internal: v.audience === "internal", kindMask };
}

const HIDDEN_FROM_EXTERNAL = SENSITIVE | TEAM | INFERRED;

/** The one visibility test: live, end user only when named, external limits, kinds. */
export function isVisible(index: FactIndex, ord: number, filter: ReadFilter): boolean {
  const flags = index.flags[ord]!;
  if ((flags & LIVE) === 0) return false;
  const endUser = index.endUserOf[ord]!;
  if (endUser >= 0 && endUser !== filter.endUser) return false;
  if (!filter.internal && (flags & HIDDEN_FROM_EXTERNAL) !== 0) return false;
  return ((filter.kindMask >>> index.kindOf[ord]!) & 1) === 1;
}

interface TermGroup {
  /** The query word's own term, or the known terms it expands to. */
  postings: Postings[];
  idf: number[];
  /** Facts holding any of the terms (counted once per term). */
  df: number;
}

/** A query, analysed once against one index and reusable across the packet's layers. */
export interface QueryPlan {
  /** The query had searchable words (not only stop words or punctuation). */
  hasTerms: boolean;
  groups: TermGroup[];
  namedSubjects: Set<number>;
  trigrams: string[] | null;
}

const idfOf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * Splits the query into terms, weighs each by its IDF in this workspace, expands words the
 * workspace has never seen (a typo, a partial word) to known terms that start with them or are
 * spelled closely, and finds the subjects the query names as a phrase.
 */
export function planQuery(index: FactIndex, query: string): QueryPlan {
  const sequence = termsOf(query);
  const distinct = [...new Set(sequence)].slice(0, MAX_QUERY_TERMS);
  const n = Math.max(index.live, 1);
  const groups: TermGroup[] = [];
  for (const term of distinct) {
    const own = index.postings.get(term);
    const known = own && own.df > 0 ? [term] : term.length >= 3 ? expand(index, term) : [];
    if (known.length === 0) continue;
    const postings = known.map((t) => index.postings.get(t)!);
    groups.push({ postings, idf: postings.map((p) => idfOf(n, p.df)), df: postings.reduce((sum, p) => sum + p.df, 0) });
  }
  groups.sort((a, b) => a.df - b.df);
  const namedSubjects = new Set<number>();
  for (let i = 0; i < sequence.length; i++) {
    for (const subject of index.subjectsByFirstTerm.get(sequence[i]!) ?? []) {
      const terms = index.subjects[subject]!.terms;
      if (terms.every((t, j) => sequence[i + j] === t)) namedSubjects.add(subject);
    }
  }
  return { hasTerms: sequence.length > 0, groups, namedSubjects, trigrams: query.length <= PHRASING_MAX_QUERY ? [...trigramsOf(query)] : null };
}

function expand(index: FactIndex, word: string): string[] {
  const bucket = (index.termsByPrefix.get(word.slice(0, 2)) ?? []).filter((t) => index.postings.get(t)!.df > 0);
  const df = (t: string): number => index.postings.get(t)!.df;
  const prefixed = bucket
    .filter((t) => t.startsWith(word))
    .sort((a, b) => df(b) - df(a) || (a < b ? -1 : 1))
    .slice(0, PREFIX_EXPANSIONS);
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
  exclude?: ReadonlySet<string>;
  now?: number;
}

/** Per-index scratch space for scoring, reused by every query (JavaScript runs one at a time). */
interface Scratch {
  score: Float64Array;
  covered: Uint8Array;
  seenIn: Uint32Array;
  groupIn: Uint32Array;
  epoch: number;
}
const scratches = new WeakMap<FactIndex, Scratch>();

function scratchFor(index: FactIndex): Scratch {
  let s = scratches.get(index);
  if (!s || s.score.length < index.count) {
    const size = Math.max(index.flags.length, 64);
    s = { score: new Float64Array(size), covered: new Uint8Array(size), seenIn: new Uint32Array(size), groupIn: new Uint32Array(size), epoch: 0 };
    scratches.set(index, s);
  }
  if (s.epoch > 0xfffff000) {
    s.seenIn.fill(0);
    s.groupIn.fill(0);
    s.epoch = 0;
  }
  return s;
}

/** Adds one posting's BM25 weight to its fact, and counts the query word as covered once. */
function credit(
  s: Scratch,
  ord: number,
  packed: number,
  idfK1: number,
  lengthScale: number,
  length: number,
  queryEpoch: number,
  groupEpoch: number,
  touched: number[],
): void {
  const tf = packed & 0xff;
  const w = (idfK1 * tf) / (tf + K1 * (1 - B + lengthScale * length));
  if (s.seenIn[ord] !== queryEpoch) {
    s.seenIn[ord] = queryEpoch;
    s.score[ord] = w;
    s.covered[ord] = 0;
    touched.push(ord);
  } else {
    s.score[ord] = s.score[ord]! + w;
  }
  if (s.groupIn[ord] !== groupEpoch) {
    s.groupIn[ord] = groupEpoch;
    s.covered[ord] = s.covered[ord]! + 1;
  }
}

/** Index of the posting of `ord` in ordinal-sorted packed postings, or -1. */
function findPosting(data: Uint32Array, size: number, ord: number): number {
  let lo = 0;
  let hi = size - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = data[mid]! >>> TF_BITS;
    if (at === ord) return mid;
    if (at < ord) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
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
 * Ranks the visible facts matching a planned query, best first. Term at a time over the postings,
 * candidates from the rarest words (CANDIDATE_BUDGET): BM25 per query word (an expanded word scores its known terms), then per matched fact the
 * complete-match, subject-named, end-user, confidence and recency signals minus the question
 * penalty; the best `max(40, limit)` are re-scored by how much of the query's phrasing (trigrams)
 * they share. Ties: more recent, then larger id. No fact outside `filter` is ever scored.
 */
export function rankFacts(index: FactIndex, plan: QueryPlan, filter: ReadFilter, options: RankOptions): number[] {
  if (plan.groups.length === 0 || options.limit <= 0) return [];
  const s = scratchFor(index);
  const queryEpoch = ++s.epoch;
  const avgLength = index.live > 0 ? index.totalLength / index.live : 1;
  const touched: number[] = [];
  const { seenIn, score } = s;
  const { flags, lengthOf } = index;
  // BM25's length factor per fact, folded: weight = idf * tf * (k1 + 1) / (tf + k1 * norm).
  const lengthScale = B / avgLength;
  const keep = Math.max(RERANK_DEPTH, options.limit);
  const onlyEndUser = options.onlyEndUser === true;
  const exclude = options.exclude;
  let budget = CANDIDATE_BUDGET;
  for (let g = 0; g < plan.groups.length; g++) {
    const group = plan.groups[g]!;
    // Groups are rarest first: once one does not fit the budget (and enough candidates were
    // found), the rest only score.
    const selects = g === 0 || touched.length < keep || group.df <= budget;
    budget = selects ? budget - group.df : -1;
    const groupEpoch = ++s.epoch;
    for (let t = 0; t < group.postings.length; t++) {
      const p = group.postings[t]!;
      const idf = group.idf[t]!;
      const data = p.data;
      const size = p.size;
      if (!selects && touched.length * Math.log2(size + 1) < size) {
        // Few candidates against long postings: look each candidate up (postings are in
        // ordinal order) instead of scanning the whole list.
        for (let c = 0, n = touched.length; c < n; c++) {
          const ord = touched[c]!;
          const at = findPosting(data, size, ord);
          if (at >= 0) credit(s, ord, data[at]!, idf * (K1 + 1), lengthScale, lengthOf[ord]!, queryEpoch, groupEpoch, touched);
        }
        continue;
      }
      for (let i = 0; i < size; i++) {
        const packed = data[i]!;
        const ord = packed >>> TF_BITS;
        if (seenIn[ord] !== queryEpoch) {
          if (!selects || (flags[ord]! & LIVE) === 0) continue;
          // The one place a fact becomes a candidate: the caller's visibility and options decide.
          if (!isVisible(index, ord, filter)) continue;
          if (onlyEndUser && index.endUserOf[ord]! < 0) continue;
          if (exclude !== undefined && exclude.has(index.ids[ord]!)) continue;
        }
        credit(s, ord, packed, idf * (K1 + 1), lengthScale, lengthOf[ord]!, queryEpoch, groupEpoch, touched);
      }
    }
  }

  const now = options.now ?? Date.now();
  const complete = plan.groups.length;
  const top = new TopK(keep, (a, b) => better(index, score, a, b));
  for (const ord of touched) {
    score[ord] =
      score[ord]! +
      (complete > 1 && s.covered[ord] === complete ? COMPLETE_MATCH_BONUS : 0) +
      (plan.namedSubjects.has(index.subjectOf[ord]!) ? SUBJECT_WEIGHT : 0) +
      (index.endUserOf[ord]! >= 0 ? END_USER_WEIGHT : 0) +
      CONFIDENCE_WEIGHT * index.confidence[ord]! +
      RECENCY_WEIGHT * Math.exp(-(now - index.recordedAt[ord]!) / RECENCY_SCALE_MS) -
      ((flags[ord]! & QUESTION) !== 0 ? QUESTION_PENALTY : 0);
    // Most candidates lose to the worst kept one on score alone: skip the heap for them.
    if (top.items.length === top.size && score[ord]! < score[top.items[0]!]!) continue;
    top.offer(ord);
  }

  const best = top.items;
  if (plan.trigrams === null) return top.sorted().slice(0, options.limit);
  const final = new Map<number, number>();
  for (const ord of best) {
    final.set(ord, score[ord]! + PHRASING_WEIGHT * phrasingShare(plan.trigrams, index.texts[ord]!));
  }
  return best.sort((a, b) => (better(index, final, a, b) ? -1 : 1)).slice(0, options.limit);
}

/**
 * The share of the query's trigrams that the text holds (pg_trgm word similarity, simplified).
 * The text's words are laid out padded as trigramsOf pads them ("  cat   dog "), so a trigram of
 * the text is a substring of that line; the substrings that straddle two words ("t  ", "   ") have
 * shapes no padded trigram has. Searching that line costs far less than building the text's set.
 */
export function phrasingShare(query: readonly string[], text: string): number {
  if (query.length === 0) return 0;
  const padded = wordsOf(text).map((word) => `  ${word} `).join("");
  let shared = 0;
  for (const t of query) if (padded.includes(t)) shared += 1;
  return shared / query.length;
}

/** The latest visible facts (recorded time, then id): for queries without terms and the about_actor fill. */
export function recentFacts(index: FactIndex, filter: ReadFilter, options: RankOptions): number[] {
  const top = new TopK(options.limit, (a, b) => index.recordedAt[a]! > index.recordedAt[b]! || (index.recordedAt[a] === index.recordedAt[b] && index.ids[a]! > index.ids[b]!));
  const consider = (ord: number): void => {
    if (!isVisible(index, ord, filter)) return;
    if (options.onlyEndUser === true && index.endUserOf[ord]! < 0) return;
    if (options.exclude?.has(index.ids[ord]!)) return;
    top.offer(ord);
  };
  if (options.onlyEndUser === true) {
    for (const ord of filter.endUser >= 0 ? (index.endUserFacts[filter.endUser] ?? []) : []) consider(ord);
  } else {
    for (let ord = 0; ord < index.count; ord++) consider(ord);
  }
  return top.sorted();
}

/** Pinned visible facts, latest first: the packet's always-present core. */
export function pinnedFacts(index: FactIndex, filter: ReadFilter, limit: number): number[] {
  const top = new TopK(limit, (a, b) => index.recordedAt[a]! > index.recordedAt[b]! || (index.recordedAt[a] === index.recordedAt[b] && index.ids[a]! > index.ids[b]!));
  for (const ord of index.pinned) if (isVisible(index, ord, filter)) top.offer(ord);
  return top.sorted();
}
