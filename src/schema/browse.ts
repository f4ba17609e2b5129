import { CaptureDecision } from "./capture-model";
import { Type, type Static } from "@sinclair/typebox";
import { AgentSlug, ExportedFact, FactKind, Origin, Paging, Text } from "./memory";

const Flag = Type.Union([Type.Literal("true"), Type.Literal("false")], { description: "true or false" });

/** GET /v1/admin/workspaces/:slug/facts: every filter optional; superseded history only when asked. */
export const AdminFactQuery = Type.Object({
  query: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "words the fact's text contains (case-insensitive)" })),
  subject: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "the fact's subject, exactly" })),
  kind: Type.Optional(FactKind),
  origin: Type.Optional(Origin),
  end_user: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "an end user's id" })),
  sensitive: Type.Optional(Flag),
  pinned: Type.Optional(Flag),
  include_superseded: Type.Optional(Flag),
  agent: Type.Optional(Type.String({ ...AgentSlug, description: "only this agent's own facts" })),
  not_recalled_days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 3650, description: "only facts observed over N days ago that no search or packet returned in the last N days" }),
  ),
  ...Paging.properties,
});
export type AdminFactQuery = Static<typeof AdminFactQuery>;

export const FactPage = Type.Object({ facts: Type.Array(ExportedFact), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export type FactPage = Static<typeof FactPage>;

/**
 * One fact with its supersession chain, what it replaced (newest first) and what replaced it, and
 * its update links: the live facts it updates and those that update it (docs/memory.md).
 */
export const FactHistory = Type.Object({
  fact: ExportedFact,
  replaced: Type.Array(ExportedFact),
  replaced_by: Type.Array(ExportedFact),
  updates: Type.Array(ExportedFact),
  updated_by: Type.Array(ExportedFact),
  model_decisions: Type.Array(CaptureDecision, { description: "the capture model's decisions about this fact, as the newer or the older one, oldest first" }),
});
export type FactHistory = Static<typeof FactHistory>;

export const FactParams = Type.Object({ fact_id: Text({ minLength: 1, maxLength: 200, description: "a fact id" }) });

/** GET /v1/admin/workspaces/:slug/supersessions: most recent first. */
export const SupersessionQuery = Type.Object({ ...Paging.properties });
export type SupersessionQuery = Static<typeof SupersessionQuery>;

/** A supersession: the fact that is no longer live and the fact that replaced it. */
export const Supersession = Type.Object({
  replaced: ExportedFact,
  replaced_by: ExportedFact,
  by_model: Type.Union([CaptureDecision, Type.Null()], {
    description: "the capture model's decision behind it, with its reason; null: the model-free rules (replaced_by.link_reason says which)",
  }),
});
export type Supersession = Static<typeof Supersession>;

export const SupersessionPage = Type.Object({ supersessions: Type.Array(Supersession), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export type SupersessionPage = Static<typeof SupersessionPage>;

/** POST /v1/admin/facts/:fact_id/restore: the replaced fact live again; the fact that replaced it kept live or replaced in turn. */
export const RestoreRequest = Type.Object({
  newer: Type.Union([Type.Literal("keep"), Type.Literal("supersede")], {
    description: "keep: the fact that replaced it stays live too; supersede: it becomes the restored fact's history",
  }),
});
export type RestoreRequest = Static<typeof RestoreRequest>;

export const RestoreResult = Type.Object({
  fact_id: Type.String({ description: "the fact live again" }),
  replaced_by: Type.String({ description: "the fact that had replaced it" }),
  newer: Type.Union([Type.Literal("kept"), Type.Literal("superseded")]),
});
export type RestoreResult = Static<typeof RestoreResult>;

/**
 * Which facts a bulk forget deletes (every one given must hold; at least one is required, so no
 * request forgets a whole workspace by leaving the filter out). History counts: a superseded
 * fact that matches is forgotten too.
 */
export const ForgetFilter = Type.Object(
  {
    subject: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "the fact's subject, exactly" })),
    end_user: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "facts about this end user" })),
    agent: Type.Optional(Type.String({ ...AgentSlug, description: "this agent's own facts" })),
    kind: Type.Optional(FactKind),
    origin: Type.Optional(Origin),
    observed_after: Type.Optional(Type.String({ format: "date-time", description: "observed at or after this instant" })),
    observed_before: Type.Optional(Type.String({ format: "date-time", description: "observed before this instant" })),
    text_contains: Type.Optional(Text({ minLength: 1, maxLength: 200, description: "words the fact's text contains (case-insensitive)" })),
  },
  { minProperties: 1, additionalProperties: false },
);
export type ForgetFilter = Static<typeof ForgetFilter>;

/** POST /v1/admin/workspaces/:slug/forget/preview */
export const ForgetPreview = Type.Object({ count: Type.Integer({ description: "facts the filter matches now, history included" }) });
export type ForgetPreview = Static<typeof ForgetPreview>;

/** POST /v1/admin/workspaces/:slug/forget: the filter, and the count its preview showed. */
export const ForgetRequest = Type.Object({
  filter: ForgetFilter,
  expected_count: Type.Integer({ minimum: 0, description: "the preview's count: a different count now refuses the run (409 forget_count_changed)" }),
});
export type ForgetRequest = Static<typeof ForgetRequest>;

/** One bulk forget as the audit log keeps it. */
export const ForgetRun = Type.Object({
  run_id: Type.String(),
  filter: ForgetFilter,
  previewed: Type.Integer(),
  deleted: Type.Integer(),
  restored: Type.Integer({ description: "facts the deleted ones had replaced, live again" }),
  status: Type.Union([Type.Literal("running"), Type.Literal("completed"), Type.Literal("failed")]),
  started_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
});
export type ForgetRun = Static<typeof ForgetRun>;

export const ForgetRunList = Type.Object({ runs: Type.Array(ForgetRun) });
export type ForgetRunList = Static<typeof ForgetRunList>;

/** GET /v1/admin/workspaces/:slug/duplicates */
export const DuplicateQuery = Type.Object({
  min_similarity: Type.Number({
    minimum: 0.3,
    maximum: 1,
    default: 0.6,
    description: "how alike two texts must be, as the share of their trigrams they have in common (0.3-1, default 0.6)",
  }),
  min_vector_similarity: Type.Number({
    minimum: 0.5,
    maximum: 1,
    default: 0.9,
    description: "with an embeddings endpoint: how close two facts' vectors must be (cosine, 0.5-1, default 0.9)",
  }),
});
export type DuplicateQuery = Static<typeof DuplicateQuery>;

/** Live facts of one subject and scope that say nearly the same thing, most alike first. */
export const DuplicateGroup = Type.Object({
  subject: Type.String(),
  similarity: Type.Number({ description: "the closest pair's similarity (by words or by vectors)" }),
  by: Type.Array(Type.Union([Type.Literal("words"), Type.Literal("vectors")]), { description: "what found the group's pairs" }),
  facts: Type.Array(ExportedFact),
});
export const DuplicateList = Type.Object({ groups: Type.Array(DuplicateGroup) });
export type DuplicateList = Static<typeof DuplicateList>;

/** POST /v1/admin/facts/merge: one fact kept, the others replaced by it. */
export const MergeRequest = Type.Object({
  keep: Text({ minLength: 1, maxLength: 200, description: "the fact that stays live" }),
  merge: Type.Array(Text({ minLength: 1, maxLength: 200, description: "a fact id" }), {
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
    description: "the facts it replaces",
  }),
});
export type MergeRequest = Static<typeof MergeRequest>;
export const MergeResult = Type.Object({ kept: Type.String(), superseded: Type.Array(Type.String()) });
export type MergeResult = Static<typeof MergeResult>;
