import type { Fact, FactKind, Origin, SubjectType } from "../../schema/memory";
import { readFactTime } from "../time/query-time";
import type { LineCosts } from "../packet";
import { intentTermsOf } from "../lexicon/intents";
import { categoryTermsOf, MEANING_MAX_TERMS } from "../lexicon/lexicon";
import { termsOf } from "./terms";
import { TextArena } from "./text-arena";

/** A live fact as the index receives it from the database. */
export interface IndexedFact {
  id: string;
  text: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  subjectType: SubjectType;
  endUserId: string | null;
  /** The agent whose own fact it is; null: a workspace fact. */
  agent: string | null;
  confidence: number;
  /** When the fact was observed, epoch milliseconds. */
  recordedAt: number;
  /** When it stops being true, epoch milliseconds; null: never. */
  expiresAt: number | null;
  sensitive: boolean;
  pinned: boolean;
  /** The live facts this one updates (capture/links.ts): a reader puts it above them. */
  updates?: readonly string[];
}

export const KINDS: readonly FactKind[] = ["decision", "preference", "profile_fact", "observation"];
export const ORIGINS: readonly Origin[] = ["user_stated", "ingested", "agent_inferred", "agent_action", "system"];

/** Per-fact flag bits: what visibility and ranking test without touching strings. */
export const LIVE = 1;
export const SENSITIVE = 2;
export const PINNED = 4;
export const TEAM = 8;
export const INFERRED = 16;
/** The fact is phrased as a question: it asks rather than records. */
export const QUESTION = 32;

/** Ordinals are packed with the term frequency (low 8 bits) into one Uint32 per posting. */
export const TF_BITS = 8;
const TF_MAX = (1 << TF_BITS) - 1;
const MAX_ORDINALS = 2 ** (32 - TF_BITS);

/** The facts holding one term: packed (ordinal, tf) in ordinal order, dead ordinals included. */
export interface Postings {
  data: Uint32Array;
  size: number;
  /** Live facts holding the term: the document frequency of BM25's IDF. */
  df: number;
  /**
   * The largest tf and the shortest fact among the postings (dead ones included until
   * compaction): what bounds the term's BM25 weight for MaxScore. A removal leaves them as they
   * are, which keeps them bounds.
   */
  maxTf: number;
  minLength: number;
  /**
   * The postings of the facts short enough to match by meaning (at most MEANING_MAX_TERMS terms),
   * kept once the list holds a longer fact; absent while every fact in it is short. A match by
   * meaning walks only these: in a memory of pasted chat turns most facts are long, and walking
   * their postings for a word that gives them nothing was a third of a search's postings.
   */
  short?: Postings;
}

/** A distinct subject string and its terms, to tell when a query names it. */
export interface Subject {
  name: string;
  terms: string[];
  /** The facts about it, as postings (tf 1): the ranking walks them like a term's when a query names it. */
  facts: Postings;
}

/**
 * The per-fact columns (typed arrays indexed by ordinal) and their element types, in snapshot
 * order: the one list that growing, compacting, restoring and snapshots walk.
 */
export const FACT_COLUMNS = {
  subjectOf: Int32Array,
  endUserOf: Int32Array,
  agentOf: Int32Array,
  kindOf: Uint8Array,
  originOf: Uint8Array,
  flags: Uint8Array,
  confidence: Float32Array,
  recordedAt: Float64Array,
  expiresAt: Float64Array,
  aboutFrom: Float64Array,
  aboutTo: Float64Array,
  lengthOf: Uint16Array,
  lineTokens: Uint16Array,
  textStart: Float64Array,
  textLength: Uint32Array,
} as const;
export type FactColumnName = keyof typeof FACT_COLUMNS;
export type FactColumns = { [K in FactColumnName]: InstanceType<(typeof FACT_COLUMNS)[K]> };
export const FACT_COLUMN_NAMES = Object.keys(FACT_COLUMNS) as FactColumnName[];

/** Sets one column (a generic setter: the name and the column's type stay paired). */
export function setColumn<K extends FactColumnName>(target: FactColumns, name: K, column: FactColumns[K]): void {
  target[name] = column;
}

/**
 * What a compacted index is made of; everything else (the id and name maps, the prefix and
 * first-term lookups, the pinned set, the byte counts) is derived from it. What a snapshot stores.
 */
export interface IndexParts extends FactColumns {
  ids: string[];
  /** The texts, UTF-8, in ordinal order (see TextArena). */
  textBytes: Uint8Array;
  subjects: { name: string; facts: Postings }[];
  endUsers: string[];
  agents: string[];
  terms: string[];
  postings: Postings[];
  /** Update links as [newer id, older id] pairs, flattened. */
  links: string[];
}

/**
 * The terms a fact is indexed under: the terms of its subject and text (repeats kept, their count
 * is the term frequency), and, each once, the categories of those words, so a question naming the
 * category ("which sports") finds the fact naming a member ("tennis"), and the attributes its text
 * names, so a question asking for one ("where did I grow up?") finds the fact stating it ("I was
 * raised in York"). A fact longer than MEANING_MAX_TERMS gets neither: it matches nothing by meaning.
 */
export function factTerms(subject: string, text: string): { terms: string[]; meaningTerms: string[] } {
  const terms = termsOf(`${subject} ${text}`);
  if (terms.length > MEANING_MAX_TERMS) return { terms, meaningTerms: [] };
  return { terms, meaningTerms: [...categoryTermsOf(terms), ...intentTermsOf(text)] };
}

/** BM25's IDF of a term held by `df` of `n` live facts (never negative). */
export const idfOf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

const newPostings = (): Postings => ({ data: new Uint32Array(2), size: 0, df: 0, maxTf: 0, minLength: 0xffff });

/** Adds one to the term frequency of the list's last posting (up to TF_MAX). */
function countAgain(p: Postings): void {
  const last = p.data[p.size - 1]!;
  const tf = last & TF_MAX;
  if (tf === TF_MAX) return;
  p.data[p.size - 1] = last + 1;
  p.maxTf = Math.max(p.maxTf, tf + 1);
}

/** Heap bytes of a postings object and its array beyond the array's contents (measured in bench/). */
const POSTINGS_OVERHEAD = 96;

/** Compaction runs when dead ordinals pass this share of all ordinals (and the minimum below). */
const DEAD_SHARE = 0.25;
const DEAD_MIN = 1024;

/**
 * One workspace's live facts, held in memory: per-fact fields in parallel typed arrays indexed by
 * a compact ordinal, and an inverted index from term to postings. Adding a fact appends an
 * ordinal; removing (superseded, deleted, or about to be re-added changed) clears its LIVE bit and
 * takes it out of the document frequencies; dead ordinals are squeezed out by `compact` once they
 * are a quarter of the index. The index is a cache: the database is the source of truth, and
 * `seq` says which of its changes the index reflects.
 */
export class FactIndex implements FactColumns {
  /** The workspace change sequence this index reflects. */
  seq = 0;
  /** Ordinals in use (live and dead). */
  count = 0;
  live = 0;
  /** Sum of the term counts of live facts (BM25's average length). */
  totalLength = 0;
  ids: string[] = [];
  /** The fact texts; `text(ord)` reads one. */
  private arena = new TextArena();
  subjectOf = new Int32Array(0);
  /** Index into `endUsers`, or -1 for a fact about no end user. */
  endUserOf = new Int32Array(0);
  /** Index into `agents`, or -1 for a workspace fact. */
  agentOf = new Int32Array(0);
  kindOf = new Uint8Array(0);
  originOf = new Uint8Array(0);
  flags = new Uint8Array(0);
  confidence = new Float32Array(0);
  recordedAt = new Float64Array(0);
  /** Epoch milliseconds; Infinity for a fact that never expires. Readers compare it with their clock. */
  expiresAt = new Float64Array(0);
  /**
   * The span [aboutFrom, aboutTo) of the time the fact names, read at its observation ("last
   * month", docs/memory.md, "Time in the question"); both 0 (an empty span) when it names none.
   */
  aboutFrom = new Float64Array(0);
  aboutTo = new Float64Array(0);
  lengthOf = new Uint16Array(0);
  /**
   * Tokens of the fact's context-packet line, 0 until a packet first renders it. A fact's line
   * never changes (a changed fact is re-added), and counting is most of a packet's CPU.
   */
  lineTokens = new Uint16Array(0);
  /** Where the fact's text is in the arena: byte offset and UTF-8 length. */
  textStart = new Float64Array(0);
  textLength = new Uint32Array(0);
  readonly postings = new Map<string, Postings>();
  /** Terms by their first two characters: the lexicon slice prefix and typo expansion search. */
  readonly termsByPrefix = new Map<string, string[]>();
  readonly subjects: Subject[] = [];
  /** Subjects by their first term: which subjects a query might name. */
  readonly subjectsByFirstTerm = new Map<string, number[]>();
  readonly endUsers: string[] = [];
  /** Ordinals of each end user's facts (dead ones included until compaction). */
  readonly endUserFacts: number[][] = [];
  /** The agents whose own facts the index holds (or held: an agent's entry outlives its facts until the index is rebuilt). */
  readonly agents: string[] = [];
  readonly pinned = new Set<number>();
  /**
   * Ordinals by observation, oldest first (recorded time, then id), dead ones included: what a
   * query without terms lists, newest first, without ranking every fact. Extended while facts
   * arrive in order (the usual case: a fact is observed when taught); another arrival or a
   * compaction drops it, and the next such query sorts again.
   */
  private recency: number[] | null = null;
  /** Update links by id (not ordinal, so compaction leaves them be): older -> newer facts, and newer -> older. */
  private readonly newerOf = new Map<string, string[]>();
  private readonly olderOf = new Map<string, readonly string[]>();
  private readonly ordinalOf = new Map<string, number>();
  private readonly subjectIds = new Map<string, number>();
  private readonly endUserIds = new Map<string, number>();
  private readonly agentIds = new Map<string, number>();
  private stringBytes = 0;
  private postingBytes = 0;

  /** Adds a fact, replacing the indexed version of the same id. */
  add(fact: IndexedFact): void {
    this.remove(fact.id);
    if (this.count >= this.flags.length) this.grow(Math.max(64, this.flags.length * 2));
    if (this.count >= MAX_ORDINALS) this.compact();
    const ord = this.count++;
    const { terms, meaningTerms } = factTerms(fact.subject, fact.text);
    this.ids[ord] = fact.id;
    const stored = this.arena.append(fact.text);
    this.textStart[ord] = stored.start;
    this.textLength[ord] = stored.length;
    this.ordinalOf.set(fact.id, ord);
    this.subjectOf[ord] = this.subjectId(fact.subject);
    this.lengthOf[ord] = Math.min(terms.length, 0xffff);
    const endUser = fact.endUserId === null ? -1 : this.endUserId(fact.endUserId);
    this.endUserOf[ord] = endUser;
    if (endUser >= 0) this.endUserFacts[endUser]!.push(ord);
    this.agentOf[ord] = fact.agent === null ? -1 : this.agentId(fact.agent);
    this.kindOf[ord] = Math.max(0, KINDS.indexOf(fact.kind));
    this.originOf[ord] = Math.max(0, ORIGINS.indexOf(fact.origin));
    this.flags[ord] =
      LIVE |
      (fact.sensitive ? SENSITIVE : 0) |
      (fact.pinned ? PINNED : 0) |
      (fact.subjectType === "team" ? TEAM : 0) |
      (fact.origin === "agent_inferred" ? INFERRED : 0) |
      (fact.text.trimEnd().endsWith("?") ? QUESTION : 0);
    if (fact.pinned) this.pinned.add(ord);
    this.confidence[ord] = fact.confidence;
    this.recordedAt[ord] = fact.recordedAt;
    this.expiresAt[ord] = fact.expiresAt ?? Number.POSITIVE_INFINITY;
    const about = readFactTime(fact.text, fact.recordedAt);
    this.aboutFrom[ord] = about?.[0] ?? 0;
    this.aboutTo[ord] = about?.[1] ?? 0;
    this.lineTokens[ord] = 0;
    this.live += 1;
    this.totalLength += this.lengthOf[ord]!;
    this.stringBytes += 2 * fact.id.length;

    // A term said again adds to the posting its first occurrence made: one lookup an occurrence,
    // where counting in a map first took two, and a cold build looks up every word of every fact.
    for (const term of terms) this.occurrence(term, ord, false);
    for (const term of meaningTerms) this.occurrence(term, ord, true);
    if (fact.updates !== undefined && fact.updates.length > 0) this.link(fact.id, fact.updates);
    this.append(this.subjects[this.subjectOf[ord]!]!.facts, ord, 1);
    const recency = this.recency;
    if (recency !== null && (recency.length === 0 || this.observedBefore(recency[recency.length - 1]!, ord))) recency.push(ord);
    else this.recency = null;
  }

  /** Ordinals by observation, oldest first, dead ones included (see `recency`). */
  byRecency(): readonly number[] {
    if (this.recency === null) {
      const order: number[] = [];
      for (let ord = 0; ord < this.count; ord++) if ((this.flags[ord]! & LIVE) !== 0) order.push(ord);
      this.recency = order.sort((a, b) => (this.observedBefore(a, b) ? -1 : 1));
    }
    return this.recency;
  }

  /** Fact `a` was observed before fact `b`: earlier recorded time, then the smaller id (SQL's order, "C" collation). */
  observedBefore(a: number, b: number): boolean {
    const ra = this.recordedAt[a]!;
    const rb = this.recordedAt[b]!;
    return ra !== rb ? ra < rb : this.ids[a]! < this.ids[b]!;
  }

  /**
   * An index made from the parts of a compacted one (`parts`), as it was: the same ordinals, so the
   * same rankings to the last tie. Null when the parts do not hold together (a damaged snapshot).
   */
  static restore(parts: IndexParts): FactIndex | null {
    const index = new FactIndex();
    const count = parts.ids.length;
    if (FACT_COLUMN_NAMES.some((name) => parts[name].length !== count)) return null;
    for (const subject of parts.subjects) index.subjectId(subject.name);
    for (const endUser of parts.endUsers) index.endUserId(endUser);
    for (const agent of parts.agents) index.agentId(agent);
    if (index.subjects.length !== parts.subjects.length || index.endUsers.length !== parts.endUsers.length || index.agents.length !== parts.agents.length) {
      return null;
    }
    index.count = count;
    index.live = count;
    index.ids = parts.ids;
    index.arena = new TextArena(parts.textBytes, parts.textBytes.length);
    for (const name of FACT_COLUMN_NAMES) setColumn(index, name, parts[name]);
    for (let ord = 0; ord < count; ord++) {
      const subject = parts.subjectOf[ord]!;
      const endUser = parts.endUserOf[ord]!;
      const agent = parts.agentOf[ord]!;
      if ((parts.flags[ord]! & LIVE) === 0 || subject < 0 || subject >= parts.subjects.length || endUser < -1 || endUser >= parts.endUsers.length) return null;
      if (agent < -1 || agent >= parts.agents.length) return null;
      if (parts.textStart[ord]! + parts.textLength[ord]! > parts.textBytes.length) return null;
      index.ordinalOf.set(parts.ids[ord]!, ord);
      index.totalLength += parts.lengthOf[ord]!;
      index.stringBytes += 2 * parts.ids[ord]!.length;
      if (endUser >= 0) index.endUserFacts[endUser]!.push(ord);
      if (parts.flags[ord]! & PINNED) index.pinned.add(ord);
    }
    if (index.ordinalOf.size !== count || parts.links.length % 2 !== 0) return null;
    for (let i = 0; i < parts.links.length; i += 2) index.link(parts.links[i]!, [parts.links[i + 1]!]);
    const inRange = (p: Postings): boolean => p.size === 0 || p.data[p.size - 1]! >>> TF_BITS < count;
    parts.subjects.forEach((subject, id) => {
      index.subjects[id]!.facts = subject.facts;
      index.postingBytes += subject.facts.data.byteLength;
    });
    for (let i = 0; i < parts.terms.length; i++) index.adoptPostings(parts.terms[i]!, parts.postings[i]!);
    const shorts = parts.postings.flatMap((p) => (p.short === undefined ? [] : [p.short]));
    for (const short of shorts) index.postingBytes += short.data.byteLength + POSTINGS_OVERHEAD;
    if (index.postings.size !== parts.terms.length || ![...index.postings.values(), ...shorts, ...parts.subjects.map((s) => s.facts)].every(inRange)) {
      return null;
    }
    return index;
  }

  /** Compacts the index and returns what it is made of (shared, not copied: read it before the next change). */
  parts(): IndexParts {
    if (this.live !== this.count) this.compact();
    const n = this.count;
    const terms = [...this.postings.keys()];
    const columns = {} as FactColumns;
    for (const name of FACT_COLUMN_NAMES) setColumn(columns, name, this[name].subarray(0, n));
    return {
      ...columns,
      ids: this.ids.slice(0, n),
      textBytes: this.arena.bytes.subarray(0, this.arena.used),
      subjects: this.subjects.map((s) => ({ name: s.name, facts: s.facts })),
      endUsers: [...this.endUsers],
      agents: [...this.agents],
      terms,
      postings: terms.map((term) => this.postings.get(term)!),
      links: [...this.olderOf].flatMap(([newer, olders]) => olders.flatMap((older) => [newer, older])),
    };
  }

  /** The live facts that update the fact with this id (capture/links.ts), in the order they were linked. */
  newerThan(id: string): readonly string[] {
    return this.newerOf.get(id) ?? [];
  }

  /** Records that `newer` updates each of `olders`. */
  private link(newer: string, olders: readonly string[]): void {
    this.olderOf.set(newer, [...(this.olderOf.get(newer) ?? []), ...olders]);
    for (const older of olders) {
      const list = this.newerOf.get(older);
      if (list === undefined) this.newerOf.set(older, [newer]);
      else if (!list.includes(newer)) list.push(newer);
    }
  }

  /** Forgets the links a fact made (it left the index, or is about to be re-added). */
  private unlink(newer: string): void {
    const olders = this.olderOf.get(newer);
    if (olders === undefined) return;
    this.olderOf.delete(newer);
    for (const older of olders) {
      const list = this.newerOf.get(older)?.filter((id) => id !== newer) ?? [];
      if (list.length === 0) this.newerOf.delete(older);
      else this.newerOf.set(older, list);
    }
  }

  /** Takes a fact out of search (superseded, deleted, or about to be re-added). */
  remove(id: string): void {
    const ord = this.ordinalOf.get(id);
    if (ord === undefined) return;
    this.unlink(id);
    this.ordinalOf.delete(id);
    this.flags[ord] = 0;
    this.pinned.delete(ord);
    this.live -= 1;
    this.totalLength -= this.lengthOf[ord]!;
    this.subjects[this.subjectOf[ord]!]!.facts.df -= 1;
    const { terms, meaningTerms } = factTerms(this.subjects[this.subjectOf[ord]!]!.name, this.text(ord));
    const short = this.lengthOf[ord]! <= MEANING_MAX_TERMS;
    for (const term of new Set([...terms, ...meaningTerms])) {
      const p = this.postings.get(term);
      if (p === undefined) continue;
      p.df -= 1;
      if (short && p.short !== undefined) p.short.df -= 1;
    }
    if (this.count - this.live > Math.max(DEAD_MIN, this.count * DEAD_SHARE)) this.compact();
  }

  /** The ordinal of an indexed (live) fact. */
  ordinal(id: string): number | undefined {
    return this.ordinalOf.get(id);
  }

  /** The packet-line token counts of indexed facts, remembered across requests (see `lineTokens`). */
  readonly lineCosts: LineCosts = {
    get: (id) => {
      const ord = this.ordinalOf.get(id);
      const tokens = ord === undefined ? 0 : this.lineTokens[ord]!;
      return tokens === 0 ? undefined : tokens;
    },
    set: (id, tokens) => {
      const ord = this.ordinalOf.get(id);
      if (ord !== undefined && tokens > 0 && tokens <= 0xffff) this.lineTokens[ord] = tokens;
    },
  };

  /** The text of the fact at an ordinal. */
  text(ord: number): string {
    return this.arena.text(this.textStart[ord]!, this.textLength[ord]!);
  }

  /** The agent's index, or -2 when the index holds no fact of that agent's own. */
  agentIndex(slug: string): number {
    return this.agentIds.get(slug) ?? -2;
  }

  /** The end user's index, or -2 when no fact of this workspace is about them. */
  endUserIndex(id: string): number {
    return this.endUserIds.get(id) ?? -2;
  }

  /** The API shape of the fact at an ordinal. */
  factAt(ord: number): Fact {
    return {
      fact_id: this.ids[ord]!,
      fact_text: this.text(ord),
      kind: KINDS[this.kindOf[ord]!]!,
      origin: ORIGINS[this.originOf[ord]!]!,
      subject: this.subjects[this.subjectOf[ord]!]!.name,
      confidence_level: Math.round(this.confidence[ord]! * 1000) / 1000,
      recorded_time: new Date(this.recordedAt[ord]!).toISOString(),
      ...(this.expiresAt[ord] === Number.POSITIVE_INFINITY ? {} : { expires_at: new Date(this.expiresAt[ord]!).toISOString() }),
    };
  }

  /**
   * Approximate heap bytes held: typed arrays, postings, strings and map entries. Used for the
   * memory budget; bench/ measures the real figure.
   */
  bytes(): number {
    const perOrdinal = 4 + 4 + 1 + 1 + 1 + 4 + 8 + 8 + 8 + 8 + 2 + 2 + 8 + 4 + 8 /* ids slot */ + 64; /* ordinal map entry */
    return this.flags.length * perOrdinal + this.postingBytes + this.stringBytes + this.arena.bytes.length + this.subjects.length * 128;
  }

  /**
   * One occurrence of `term` in the fact being added (`ord`, the last ordinal): a posting the first
   * time, one more to its term frequency after (a category counts once, `once`).
   */
  private occurrence(term: string, ord: number, once: boolean): void {
    const p = this.postings.get(term) ?? this.adoptPostings(term, newPostings());
    if (p.size === 0 || p.data[p.size - 1]! >>> TF_BITS !== ord) {
      this.post(p, ord);
      return;
    }
    if (once) return;
    countAgain(p);
    // The short facts' list holds the same last posting when the fact is short.
    if (p.short !== undefined && this.lengthOf[ord]! <= MEANING_MAX_TERMS) countAgain(p.short);
  }

  private post(p: Postings, ord: number): void {
    if (this.lengthOf[ord]! > MEANING_MAX_TERMS) {
      if (p.short === undefined) p.short = this.copyPostings(p);
    } else if (p.short !== undefined) this.append(p.short, ord, 1);
    this.append(p, ord, 1);
  }

  private copyPostings(p: Postings): Postings {
    this.postingBytes += p.data.byteLength + POSTINGS_OVERHEAD;
    return { data: p.data.slice(), size: p.size, df: p.df, maxTf: p.maxTf, minLength: p.minLength };
  }

  /** Enters a new term into the lexicon with its postings. */
  private adoptPostings(term: string, p: Postings): Postings {
    this.postings.set(term, p);
    const prefix = term.slice(0, 2);
    const bucket = this.termsByPrefix.get(prefix);
    if (bucket) bucket.push(term);
    else this.termsByPrefix.set(prefix, [term]);
    this.stringBytes += 2 * term.length + 64;
    this.postingBytes += p.data.byteLength + POSTINGS_OVERHEAD;
    return p;
  }

  private append(p: Postings, ord: number, tf: number): void {
    if (p.size === p.data.length) {
      const next = new Uint32Array(Math.max(2, p.data.length * 2));
      this.postingBytes += p.data.byteLength;
      next.set(p.data);
      p.data = next;
    }
    p.data[p.size++] = ((ord << TF_BITS) | Math.min(tf, TF_MAX)) >>> 0;
    p.df += 1;
    p.maxTf = Math.max(p.maxTf, Math.min(tf, TF_MAX));
    p.minLength = Math.min(p.minLength, this.lengthOf[ord]!);
  }

  /** Drops dead ordinals from postings and renumbers the rest (compaction), bounds recomputed. */
  private renumber(p: Postings, remap: Int32Array): void {
    let size = 0;
    p.maxTf = 0;
    p.minLength = 0xffff;
    for (let i = 0; i < p.size; i++) {
      const packed = p.data[i]!;
      const moved = remap[packed >>> TF_BITS]!;
      if (moved < 0) continue;
      p.data[size++] = ((moved << TF_BITS) | (packed & TF_MAX)) >>> 0;
      p.maxTf = Math.max(p.maxTf, packed & TF_MAX);
      p.minLength = Math.min(p.minLength, this.lengthOf[moved]!);
    }
    p.size = size;
    this.postingBytes += p.data.byteLength + POSTINGS_OVERHEAD;
  }

  private subjectId(name: string): number {
    let id = this.subjectIds.get(name);
    if (id === undefined) {
      id = this.subjects.length;
      const terms = termsOf(name);
      this.subjects.push({ name, terms, facts: newPostings() });
      this.postingBytes += 8 + POSTINGS_OVERHEAD;
      this.subjectIds.set(name, id);
      const first = terms[0];
      if (first !== undefined) {
        const list = this.subjectsByFirstTerm.get(first);
        if (list) list.push(id);
        else this.subjectsByFirstTerm.set(first, [id]);
      }
    }
    return id;
  }

  private agentId(slug: string): number {
    let idx = this.agentIds.get(slug);
    if (idx === undefined) {
      idx = this.agents.length;
      this.agents.push(slug);
      this.agentIds.set(slug, idx);
    }
    return idx;
  }

  private endUserId(id: string): number {
    let idx = this.endUserIds.get(id);
    if (idx === undefined) {
      idx = this.endUsers.length;
      this.endUsers.push(id);
      this.endUserFacts.push([]);
      this.endUserIds.set(id, idx);
    }
    return idx;
  }

  private grow(capacity: number): void {
    for (const name of FACT_COLUMN_NAMES) {
      const next = new FACT_COLUMNS[name](capacity);
      next.set(this[name]);
      setColumn(this, name, next);
    }
  }

  /**
   * Squeezes dead ordinals out: live facts move down in order, postings are filtered and renumbered
   * in place, terms no live fact holds leave the lexicon. Costs one pass over the postings.
   */
  compact(): void {
    this.recency = null;
    const remap = new Int32Array(this.count).fill(-1);
    let next = 0;
    for (let ord = 0; ord < this.count; ord++) {
      if ((this.flags[ord]! & LIVE) === 0) continue;
      remap[ord] = next;
      if (next !== ord) this.ids[next] = this.ids[ord]!;
      next += 1;
    }
    // Column by column, one tight loop each; a fact only moves down, so one ascending pass is safe.
    for (const name of FACT_COLUMN_NAMES) {
      const column = this[name];
      for (let ord = 0; ord < this.count; ord++) if (remap[ord]! >= 0) column[remap[ord]!] = column[ord]!;
    }
    this.flags.fill(0, next, this.count);
    this.ids.length = next;
    this.count = next;
    this.arena = this.arena.compacted(this.textStart, this.textLength, next, (ord, start) => {
      this.textStart[ord] = start;
    });
    this.stringBytes = 0;
    for (let ord = 0; ord < next; ord++) {
      this.ordinalOf.set(this.ids[ord]!, ord);
      this.stringBytes += 2 * this.ids[ord]!.length;
    }
    this.postingBytes = 0;
    for (const [term, p] of this.postings) {
      if (p.df <= 0) {
        this.postings.delete(term);
        continue;
      }
      this.renumber(p, remap);
      if (p.short !== undefined) this.renumber(p.short, remap);
      this.stringBytes += 2 * term.length + 64;
    }
    for (const subject of this.subjects) this.renumber(subject.facts, remap);
    for (const [prefix, terms] of this.termsByPrefix) {
      const kept = terms.filter((t) => this.postings.has(t));
      if (kept.length === 0) this.termsByPrefix.delete(prefix);
      else this.termsByPrefix.set(prefix, kept);
    }
    for (const list of this.endUserFacts) {
      let size = 0;
      for (const ord of list) {
        const moved = remap[ord]!;
        if (moved >= 0) list[size++] = moved;
      }
      list.length = size;
    }
    const pinned = [...this.pinned].map((ord) => remap[ord]!).filter((ord) => ord >= 0);
    this.pinned.clear();
    for (const ord of pinned) this.pinned.add(ord);
  }
}
