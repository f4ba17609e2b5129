import { Type, type Static } from "@sinclair/typebox";

/** 2.2: naming an end user makes facts about that person available to the call. */
export const EndUser = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: "your own identifier for the person" }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "display name" })),
});
export type EndUser = Static<typeof EndUser>;

export const FactKind = Type.Union([
  Type.Literal("decision"),
  Type.Literal("preference"),
  Type.Literal("profile_fact"),
  Type.Literal("observation"),
]);
export type FactKind = Static<typeof FactKind>;
/** The kinds an external key may receive over MCP (section 5, audience rule). */
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

/** 2.3 */
export const Fact = Type.Object({
  fact_id: Type.String(),
  fact_text: Type.String(),
  kind: FactKind,
  origin: Origin,
  subject: Type.String(),
  confidence_level: Type.Number({ minimum: 0, maximum: 1 }),
  recorded_time: Type.String({ format: "date-time" }),
});
export type Fact = Static<typeof Fact>;

export const Layer = Type.Union([Type.Literal("pinned_core"), Type.Literal("about_actor"), Type.Literal("retrieved")]);
export type Layer = Static<typeof Layer>;

/** 2.4 */
export const ContextFact = Type.Composite([Fact, Type.Object({ layer: Layer })]);
export type ContextFact = Static<typeof ContextFact>;

/** 2.5 */
export const ContextPacket = Type.Object({
  packet_version: Type.Literal(1),
  rendered: Type.String(),
  facts: Type.Array(ContextFact),
});
export type ContextPacket = Static<typeof ContextPacket>;

/** 2.6 */
export const TeachResult = Type.Object({
  accepted_fact_count: Type.Integer(),
  created: Type.Integer(),
  superseded: Type.Integer(),
  skipped: Type.Integer(),
});
export type TeachResult = Static<typeof TeachResult>;

const Query = Type.String({ minLength: 1, maxLength: 2000, description: "what to look for, in plain words (1-2000 characters)" });

/** 4.1 */
export const SearchRequest = Type.Object({
  query: Query,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "how many facts to return (1-100, default 20)" }),
  end_user: Type.Optional(EndUser),
});
export type SearchRequest = Static<typeof SearchRequest>;

export const SearchResult = Type.Object({ facts: Type.Array(Fact) });
export type SearchResult = Static<typeof SearchResult>;

/** 4.2 */
export const ContextRequest = Type.Object({
  query: Query,
  token_budget: Type.Integer({
    minimum: 100,
    maximum: 20000,
    default: 1500,
    description: "maximum tokens of the rendered block (100-20000, default 1500)",
  }),
  end_user: Type.Optional(EndUser),
});
export type ContextRequest = Static<typeof ContextRequest>;

/** A fact's text: 1-4000 characters with at least one non-space character. */
export const FactText = Type.String({
  minLength: 1,
  maxLength: 4000,
  pattern: "\\S",
  description: "1-4000 characters, not only whitespace",
});

/** 4.3, plus the `end_user` extension: taught facts are then about that person. */
export const TeachRequest = Type.Object({
  facts: Type.Array(Type.Object({ text: FactText }), {
    minItems: 1,
    maxItems: 20,
    description: "1-20 facts, each a short plain-English statement",
  }),
  end_user: Type.Optional(EndUser),
});
export type TeachRequest = Static<typeof TeachRequest>;
