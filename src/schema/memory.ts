import { Type, type Static, type StringOptions, type TString } from "@sinclair/typebox";

/**
 * API text: PostgreSQL cannot store NUL characters, so they are refused up front with a clear
 * error instead of failing deep in the database.
 */
export function Text(options: StringOptions & { minLength: number; maxLength: number; description: string }): TString {
  return Type.String({ pattern: "^[^\\u0000]*$", ...options });
}

/** An end user (docs/api.md): naming one makes facts about that person available to the call. */
export const EndUser = Type.Object({
  id: Text({ minLength: 1, maxLength: 200, description: "your own identifier for the person (1-200 characters)" }),
  name: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "display name (1-200 characters)" })),
});
export type EndUser = Static<typeof EndUser>;

/** An agent of the workspace, by its slug: calls naming one act as it (docs/memory.md, Agent scope). */
export const AgentSlug = Type.String({
  pattern: "^[a-z0-9][a-z0-9_-]{0,62}$",
  description: "lower-case letters, digits, _ and - (1-63 characters, starting with a letter or digit)",
});

/** Acting as an agent: its own facts become visible to the call, and only its own. */
const ActingAgent = Type.Optional(
  Type.String({ ...AgentSlug, description: "act as this agent of the workspace: its own facts are visible too (a key bound to an agent acts as it)" }),
);

/** Where a taught fact belongs: to the workspace (every agent sees it) or to the acting agent alone. */
export const FactScope = Type.Union([Type.Literal("workspace"), Type.Literal("agent")], {
  description: "workspace (default): every agent sees the facts; agent: only the acting agent does",
});
export type FactScope = Static<typeof FactScope>;

export const FactKind = Type.Union([Type.Literal("decision"), Type.Literal("preference"), Type.Literal("profile_fact"), Type.Literal("observation")]);
export type FactKind = Static<typeof FactKind>;
/** The kinds an external key may receive over MCP (docs/memory.md, Visibility). */
export const EXTERNAL_MCP_KINDS: readonly FactKind[] = ["profile_fact", "preference", "decision", "observation"];

export const Origin = Type.Union([
  Type.Literal("user_stated"),
  Type.Literal("ingested"),
  Type.Literal("agent_inferred"),
  Type.Literal("agent_action"),
  Type.Literal("system"),
]);
export type Origin = Static<typeof Origin>;

export const SubjectType = Type.Union([Type.Literal("end_user"), Type.Literal("team"), Type.Literal("workspace")]);
export type SubjectType = Static<typeof SubjectType>;

/** An instant in ISO 8601 with a time zone ("2026-06-01T09:00:00Z"). */
const Instant = (description: string) => Type.String({ format: "date-time", description });

/** When a fact was true and until when: on teach, `teach_memory`, import and the admin API. */
const FactTimeFields = {
  observed_at: Type.Optional(Instant("when the fact was observed or became true (ISO 8601; default now; at most 5 minutes ahead of the server's clock)")),
  expires_at: Type.Optional(Instant("when the fact stops being true (ISO 8601, after observed_at); it then leaves search, context and the facts API")),
};

/** `as_of` on reads: memory as it stood at that instant. */
const AsOf = Type.Optional(Instant("read memory as it stood at this instant (ISO 8601): facts observed by then, not superseded or expired by then"));

/** A fact as reads return it (docs/api.md); `expires_at` on facts that expire; `recorded_time` is when it was observed. */
export const Fact = Type.Object({
  fact_id: Type.String(),
  fact_text: Type.String(),
  kind: FactKind,
  origin: Origin,
  subject: Type.String(),
  confidence_level: Type.Number({ minimum: 0, maximum: 1 }),
  recorded_time: Type.String({ format: "date-time" }),
  expires_at: Type.Optional(Type.String({ format: "date-time" })),
});
export type Fact = Static<typeof Fact>;

export const Layer = Type.Union([Type.Literal("pinned_core"), Type.Literal("about_actor"), Type.Literal("retrieved")]);
export type Layer = Static<typeof Layer>;

/** A fact of a context packet, with its layer (docs/memory.md, Context packet). */
export const ContextFact = Type.Composite([Fact, Type.Object({ layer: Layer })]);
export type ContextFact = Static<typeof ContextFact>;

/** A context packet (docs/memory.md, Context packet). */
export const ContextPacket = Type.Object({
  packet_version: Type.Literal(1),
  rendered: Type.String(),
  facts: Type.Array(ContextFact),
});
export type ContextPacket = Static<typeof ContextPacket>;

/** What a teach call did (docs/api.md, Teach results). */
export const TeachResult = Type.Object({
  accepted_fact_count: Type.Integer(),
  created: Type.Integer(),
  superseded: Type.Integer(),
  skipped: Type.Integer(),
});
export type TeachResult = Static<typeof TeachResult>;

const Query = Text({ minLength: 1, maxLength: 2000, description: "what to look for, in plain words (1-2000 characters)" });

/** POST /v1/memory/search (docs/api.md, Routes). */
export const SearchRequest = Type.Object({
  query: Query,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "how many facts to return (1-100, default 20)" }),
  end_user: Type.Optional(EndUser),
  agent: ActingAgent,
  as_of: AsOf,
});
export type SearchRequest = Static<typeof SearchRequest>;

/**
 * Hard filters on when a fact was observed (REST search and context, the admin search): only facts
 * observed at or after `observed_after` and before `observed_before`. The MCP tools keep the spec's
 * arguments.
 */
export const ObservedRange = Type.Object({
  observed_after: Type.Optional(Instant("only facts observed at or after this instant (ISO 8601)")),
  observed_before: Type.Optional(Instant("only facts observed before this instant (ISO 8601), later than observed_after")),
});
export type ObservedRange = Static<typeof ObservedRange>;

/** REST search's own extension (docs/api.md, Search explain): the MCP tool keeps the spec's arguments. */
export const RestSearchRequest = Type.Composite([
  SearchRequest,
  ObservedRange,
  Type.Object({
    explain: Type.Optional(Type.Boolean({ description: "return, per fact, why it ranked (matched words, matches by meaning, signals)" })),
  }),
]);
export type RestSearchRequest = Static<typeof RestSearchRequest>;

/** Why a fact ranked: each signal's part of its score (docs/memory.md, Ranking). */
export const ScoreExplanation = Type.Object({
  score: Type.Number({ description: "the fact's score: the sum of the parts below" }),
  words: Type.Array(
    Type.Object({
      query_term: Type.String({ description: "the query word, as an index term (lower-cased, stemmed)" }),
      fact_term: Type.String({ description: "the fact's term it matched: the same, or a prefix or typo expansion" }),
      score: Type.Number(),
    }),
  ),
  meaning: Type.Array(
    Type.Object({
      query_term: Type.String({ description: "the query word as an index term; for an intent, the query's words that asked for the attribute" }),
      fact_term: Type.String({
        description:
          "the fact's term that means the same (neighbour), that the query word is a category of (category), or the attribute the fact states (intent)",
      }),
      via: Type.Union([Type.Literal("neighbour"), Type.Literal("category"), Type.Literal("intent")]),
      similarity: Type.Number({ minimum: 0, maximum: 1 }),
      score: Type.Number(),
    }),
  ),
  subject: Type.Number({ description: "the query names the fact's subject" }),
  end_user: Type.Number({ description: "the fact is about the end user named in the call" }),
  confidence: Type.Number(),
  recency: Type.Number(),
  question: Type.Number({ description: "negative when the fact is itself a short question" }),
  phrasing: Type.Number({ description: "the share of the query's trigrams the fact holds, weighted" }),
  time: Type.Number({ description: 'the lift for being observed within (or near) a time the query names, such as "two months ago"' }),
  time_window: Type.Optional(
    Type.Object(
      {
        expression: Type.String({ description: "the time expression as written in the query" }),
        from: Type.String({ format: "date-time", description: "the window's start: facts observed from here get the full lift" }),
        to: Type.String({ format: "date-time", description: "the window's end (exclusive)" }),
      },
      { description: "when the query names a time: the window that lifts this fact most (the first one when none does)" },
    ),
  ),
  neighbour: Type.Optional(
    Type.Object(
      {
        fact_id: Type.String({ description: "the strong match taught next to this fact in its conversation" }),
        score: Type.Number({ description: "the share of that match's score lent to this fact" }),
      },
      { description: "when a strong match next to this fact in its conversation lent it part of its score (docs/memory.md)" },
    ),
  ),
  spread: Type.Optional(
    Type.Number({
      description:
        "when the best matches crowded into one conversation and this fact, of another, was moved up among the first five: " +
        "what lifted it to the score of the fact it went before (docs/memory.md)",
    }),
  ),
  updates: Type.Optional(
    Type.String({
      description: "when this fact was placed directly above a fact it updates (a newer statement of the same thing; docs/memory.md): that fact's id",
    }),
  ),
  updated_by: Type.Optional(Type.String({ description: "when a newer fact that updates this one was placed directly above it: that fact's id" })),
  vector: Type.Optional(
    Type.Object(
      {
        similarity: Type.Number({ description: "cosine similarity of the fact's vector to the query's" }),
        rank: Type.Integer({ minimum: 1, description: "the fact's rank by vector alone" }),
      },
      { description: "with an embeddings endpoint configured: the fact's place among the nearest vectors, fused with the rank by words" },
    ),
  ),
});
export type ScoreExplanation = Static<typeof ScoreExplanation>;

/** A search result: a fact, with its explanation when `explain` was asked. */
export const SearchHit = Type.Composite([Fact, Type.Object({ explanation: Type.Optional(ScoreExplanation) })]);
export type SearchHit = Static<typeof SearchHit>;

export const SearchResult = Type.Object({ facts: Type.Array(SearchHit) });
export type SearchResult = Static<typeof SearchResult>;

/** POST /v1/memory/context (docs/api.md, Routes). */
export const ContextRequest = Type.Object({
  query: Query,
  token_budget: Type.Integer({
    minimum: 100,
    maximum: 20000,
    default: 1500,
    description: "maximum tokens of the rendered block (100-20000, default 1500)",
  }),
  end_user: Type.Optional(EndUser),
  agent: ActingAgent,
  as_of: AsOf,
});
export type ContextRequest = Static<typeof ContextRequest>;

/** REST context's own extension: the observed-time filters. */
export const RestContextRequest = Type.Composite([ContextRequest, ObservedRange]);
export type RestContextRequest = Static<typeof RestContextRequest>;

/** A fact's text: 1-4000 characters with at least one non-space character. */
export const FactText = Text({
  minLength: 1,
  maxLength: 4000,
  // at least one visible character, and no NUL anywhere; linear: one anchored lookahead
  pattern: "^(?=[\\s\\S]*\\S)[^\\u0000]*$",
  description: "1-4000 characters, not only whitespace, no NUL characters",
});

/** POST /v1/memory/facts (docs/api.md, Routes): facts, their times, and the end user they are about. */
export const TeachRequest = Type.Object({
  facts: Type.Array(Type.Object({ text: FactText, ...FactTimeFields }), {
    minItems: 1,
    maxItems: 20,
    description: "1-20 facts, each a short plain-English statement",
  }),
  end_user: Type.Optional(EndUser),
  agent: ActingAgent,
  scope: Type.Optional(FactScope),
});
export type TeachRequest = Static<typeof TeachRequest>;

/** Who said a message of a conversation. */
export const MessageRole = Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system"), Type.Literal("tool")]);
export type MessageRole = Static<typeof MessageRole>;

/** POST /v1/memory/messages (docs/api.md, Routes): a conversation, whose user messages' statements are taught. */
export const TeachMessagesRequest = Type.Object({
  messages: Type.Array(
    Type.Object({
      role: MessageRole,
      content: Text({ minLength: 1, maxLength: 8000, description: "the message's text (1-8000 characters)" }),
    }),
    { minItems: 1, maxItems: 50, description: "1-50 messages of a conversation, in order; only the user's statements are taught" },
  ),
  end_user: Type.Optional(EndUser),
  agent: ActingAgent,
  scope: Type.Optional(FactScope),
  observed_at: FactTimeFields.observed_at,
});
export type TeachMessagesRequest = Static<typeof TeachMessagesRequest>;

/** What teaching a conversation did: the statements taught and what capture made of them. */
export const TeachMessagesResult = Type.Object({
  accepted_message_count: Type.Integer(),
  statements: Type.Array(Type.String(), { description: "the statements of the user's messages that were taught, in order" }),
  created: Type.Integer(),
  superseded: Type.Integer(),
  skipped: Type.Integer(),
});
export type TeachMessagesResult = Static<typeof TeachMessagesResult>;

/** How often searches and context packets returned a fact, counted in batches (docs/memory.md, Recall). */
export const RecallFields = Type.Object({
  recall_count: Type.Integer({ minimum: 0, description: "how many searches and context packets returned the fact" }),
  last_recalled_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "when one last did; null: never" }),
});
export type RecallFields = Static<typeof RecallFields>;

/** Where a fact came from (null: stored before it was recorded, or not known). */
export const ProvenanceFields = Type.Object({
  taught_by_key: Type.Union([Type.String(), Type.Null()], { description: "the id of the key that taught it; null for the operator and the CLI" }),
  taught_by_agent: Type.Union([Type.String(), Type.Null()], { description: "the agent the teaching call acted as" }),
  taught_via: Type.Union([Type.String(), Type.Null()], { description: "the route or tool it came through" }),
});

/** One line of `facts export` (every field, superseded facts included). */
export const ExportedFact = Type.Object({
  fact_id: Type.String(),
  text: Type.String(),
  kind: FactKind,
  origin: Origin,
  subject: Type.String(),
  subject_type: SubjectType,
  end_user: Type.Union([EndUser, Type.Null()]),
  agent: Type.Union([Type.String(), Type.Null()], { description: "the agent whose own fact it is; null: the workspace's" }),
  confidence: Type.Number(),
  recorded_time: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  sensitive: Type.Boolean(),
  pinned: Type.Boolean(),
  superseded_by: Type.Union([Type.String(), Type.Null()]),
  claim_subject: Type.Union([Type.String(), Type.Null()], {
    description: "who or what the fact's claim is about, as the attribute lexicon read it (lower case); null: no claim read",
  }),
  updates: Type.Array(Type.String(), { description: "the facts this one updates: readers put it above them, nothing is hidden (docs/memory.md)" }),
  link_reason: Type.Union([Type.String(), Type.Null()], {
    description: "which lexicon record or which words made this fact replace or update others; null: it does neither",
  }),
  ...RecallFields.properties,
  ...ProvenanceFields.properties,
});
export type ExportedFact = Static<typeof ExportedFact>;

/** One line of `facts import`: only `text` is required; an export line is accepted as is. */
export const ImportLine = Type.Object({
  text: FactText,
  origin: Type.Optional(Origin),
  end_user: Type.Optional(Type.Union([EndUser, Type.Null()])),
  /** The agent whose own fact it is (one of the workspace's agents); absent or null: the workspace's. */
  agent: Type.Optional(Type.Union([AgentSlug, Type.Null()])),
  /** What `facts export` writes; `observed_at` is the same time under its teach name (it wins). */
  recorded_time: Type.Optional(Type.String({ format: "date-time" })),
  ...FactTimeFields,
  expires_at: Type.Optional(Type.Union([Instant("when the fact stops being true"), Type.Null()])),
  pinned: Type.Optional(Type.Boolean()),
});
export type ImportLine = Static<typeof ImportLine>;

/** Keyset paging shared by every list: a page size and the previous page's next_cursor. */
export const Paging = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: "items per page (1-200, default 50)" }),
  cursor: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "next_cursor of the previous page" })),
});

/** GET /v1/memory/facts: the visible facts, newest first. */
export const FactListQuery = Type.Composite([
  Paging,
  Type.Object({
    subject: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "only facts about this subject (exact)" })),
    kind: Type.Optional(FactKind),
    end_user: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "name this end user: their facts become visible, and only theirs are listed" })),
    agent: ActingAgent,
    as_of: AsOf,
  }),
]);
export type FactListQuery = Static<typeof FactListQuery>;

/** A fact as the facts API shows it: with its recall statistics. */
export const ListedFact = Type.Composite([Fact, RecallFields]);
export type ListedFact = Static<typeof ListedFact>;

export const FactList = Type.Object({ facts: Type.Array(ListedFact), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export type FactList = Static<typeof FactList>;

/** GET and DELETE /v1/memory/facts/:fact_id: a fact about an end user is visible only when the call names them. */
export const FactQuery = Type.Object({
  end_user: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "the end user the fact is about, if any" })),
  agent: ActingAgent,
});
export type FactQuery = Static<typeof FactQuery>;
export const FactIdParams = Type.Object({ fact_id: Text({ minLength: 1, maxLength: 200, description: "a fact id" }) });

/** One fact with the versions of its claim the key may see: what it replaced, newest first. */
export const FactWithHistory = Type.Object({ fact: ListedFact, replaced: Type.Array(Fact) });
export type FactWithHistory = Static<typeof FactWithHistory>;
