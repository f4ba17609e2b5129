import type { Fact, FactKind, Origin } from "../../schema/memory";
import type { LineCosts } from "../packet";
import { newPostings, POSTINGS_OVERHEAD, type Postings } from "./postings";
import { termsOf } from "./terms";
import { TextArena } from "./text-arena";

/** The kinds and origins by the number `kindOf` and `originOf` store (and snapshots keep). */
export const KINDS: readonly FactKind[] = ["decision", "preference", "profile_fact", "observation"];
export const ORIGINS: readonly Origin[] = ["user_stated", "ingested", "agent_inferred", "agent_action", "system"];

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
 * The fact table under a FactIndex: per-fact fields in parallel typed arrays indexed by a compact
 * ordinal, the ids and texts, and the subjects, end users and agents the columns point into.
 * Lookups by ordinal live here; adding, removing, compacting and the inverted index are
 * FactIndex's, which extends this.
 */
export class FactTable implements FactColumns {
  ids: string[] = [];
  /** The fact texts; `text(ord)` reads one. */
  protected arena = new TextArena();
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
  readonly subjects: Subject[] = [];
  /** Subjects by their first term: which subjects a query might name. */
  readonly subjectsByFirstTerm = new Map<string, number[]>();
  readonly endUsers: string[] = [];
  /** Ordinals of each end user's facts (dead ones included until compaction). */
  readonly endUserFacts: number[][] = [];
  /** The agents whose own facts the index holds (or held: an agent's entry outlives its facts until the index is rebuilt). */
  readonly agents: string[] = [];
  // Protected: FactIndex's adding, compaction and restore keep these up to date.
  protected readonly ordinalOf = new Map<string, number>();
  private readonly subjectIds = new Map<string, number>();
  private readonly endUserIds = new Map<string, number>();
  private readonly agentIds = new Map<string, number>();
  protected stringBytes = 0;
  protected postingBytes = 0;

  /** Fact `a` was observed before fact `b`: earlier recorded time, then the smaller id (SQL's order, "C" collation). */
  observedBefore(a: number, b: number): boolean {
    const ra = this.recordedAt[a]!;
    const rb = this.recordedAt[b]!;
    return ra !== rb ? ra < rb : this.ids[a]! < this.ids[b]!;
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

  protected subjectId(name: string): number {
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

  protected agentId(slug: string): number {
    let idx = this.agentIds.get(slug);
    if (idx === undefined) {
      idx = this.agents.length;
      this.agents.push(slug);
      this.agentIds.set(slug, idx);
    }
    return idx;
  }

  protected endUserId(id: string): number {
    let idx = this.endUserIds.get(id);
    if (idx === undefined) {
      idx = this.endUsers.length;
      this.endUsers.push(id);
      this.endUserFacts.push([]);
      this.endUserIds.set(id, idx);
    }
    return idx;
  }

  protected grow(capacity: number): void {
    for (const name of FACT_COLUMN_NAMES) {
      const next = new FACT_COLUMNS[name](capacity);
      next.set(this[name]);
      setColumn(this, name, next);
    }
  }
}
