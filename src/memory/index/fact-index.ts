import type { FactKind, Origin, SubjectType } from "../../schema/memory";
import { readFactTime } from "../time/query-time";
import { MEANING_MAX_TERMS } from "../lexicon/lexicon";
import { FACT_COLUMN_NAMES, KINDS, ORIGINS, setColumn, FactTable, type FactColumns } from "./fact-table";
import { countAgain, factTerms, newPostings, POSTINGS_OVERHEAD, TF_BITS, TF_MAX, type Postings } from "./postings";
import { TextArena } from "./text-arena";
import { isPlainStatement } from "./statement";
import { type NewerFact, UpdateLinks } from "./update-links";

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
  /** The live facts it updates on weaker evidence: a reader only reorders them. */
  weakUpdates?: readonly string[];
}

/** Per-fact flag bits: what visibility and ranking test without touching strings. */
export const LIVE = 1;
export const SENSITIVE = 2;
export const PINNED = 4;
export const TEAM = 8;
export const INFERRED = 16;
/** The fact is phrased as a question: it asks rather than records. */
export const QUESTION = 32;
/** The fact is a plain statement of how things are (memory/index/statement.ts): ties among them go to the newer. */
export const PLAIN = 64;

/** A posting packs the ordinal beside the term frequency: ordinals must fit the bits left. */
const MAX_ORDINALS = 2 ** (32 - TF_BITS);

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
  /** Update links as [newer id, older id] pairs, flattened; the weak ones apart. */
  links: string[];
  weakLinks: string[];
}

/** Compaction runs when dead ordinals pass this share of all ordinals (and the minimum below). */
const DEAD_SHARE = 0.25;
const DEAD_MIN = 1024;

/**
 * One workspace's live facts, held in memory: per-fact fields in parallel typed arrays indexed by
 * a compact ordinal (`FactTable`, which this extends), and an inverted index from term to
 * postings. Adding a fact appends an ordinal; removing (superseded, deleted, or about to be
 * re-added changed) clears its LIVE bit and takes it out of the document frequencies; dead
 * ordinals are squeezed out by `compact` once they are a quarter of the index. The index is a
 * cache: the database is the source of truth, and `seq` says which of its changes the index reflects.
 */
export class FactIndex extends FactTable {
  /** The workspace change sequence this index reflects. */
  seq = 0;
  /** Ordinals in use (live and dead). */
  count = 0;
  live = 0;
  /** Sum of the term counts of live facts (BM25's average length). */
  totalLength = 0;
  readonly postings = new Map<string, Postings>();
  /** Terms by their first two characters: the lexicon slice prefix and typo expansion search. */
  readonly termsByPrefix = new Map<string, string[]>();
  readonly pinned = new Set<number>();
  /**
   * Ordinals by observation, oldest first (recorded time, then id), dead ones included: what a
   * query without terms lists, newest first, without ranking every fact. Extended while facts
   * arrive in order (the usual case: a fact is observed when taught); another arrival or a
   * compaction drops it, and the next such query sorts again.
   */
  private recency: number[] | null = null;
  /** Which facts update which (capture/links.ts), by id: compaction leaves them be. */
  private readonly links = new UpdateLinks();

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
      (fact.text.trimEnd().endsWith("?") ? QUESTION : 0) |
      (isPlainStatement(fact.text) ? PLAIN : 0);
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
    if (fact.updates !== undefined && fact.updates.length > 0) this.links.link(fact.id, fact.updates);
    if (fact.weakUpdates !== undefined && fact.weakUpdates.length > 0) this.links.link(fact.id, fact.weakUpdates, true);
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
    if (index.ordinalOf.size !== count || parts.links.length % 2 !== 0 || parts.weakLinks.length % 2 !== 0) return null;
    for (let i = 0; i < parts.links.length; i += 2) index.links.link(parts.links[i]!, [parts.links[i + 1]!]);
    for (let i = 0; i < parts.weakLinks.length; i += 2) index.links.link(parts.weakLinks[i]!, [parts.weakLinks[i + 1]!], true);
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
      links: this.links.pairs(false),
      weakLinks: this.links.pairs(true),
    };
  }

  /** The live facts that update the fact with this id (capture/links.ts), in the order they were linked. */
  newerThan(id: string): readonly NewerFact[] {
    return this.links.newerThan(id);
  }

  /** Takes a fact out of search (superseded, deleted, or about to be re-added). */
  remove(id: string): void {
    const ord = this.ordinalOf.get(id);
    if (ord === undefined) return;
    this.links.unlink(id);
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
