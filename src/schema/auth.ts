import { Type, type Static } from "@sinclair/typebox";
import { AgentSlug } from "./memory";

export const Scope = Type.Union([Type.Literal("memory.read"), Type.Literal("memory.write"), Type.Literal("answers.write")]);
export type Scope = Static<typeof Scope>;
export const ALL_SCOPES: readonly Scope[] = ["memory.read", "memory.write", "answers.write"];

export const Audience = Type.Union([Type.Literal("internal"), Type.Literal("external")]);
export type Audience = Static<typeof Audience>;

export const WorkspaceSlug = Type.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$" });

/** What `keys create --json` prints and `keys list --json` lists (never the hash). */
export const ApiKeyView = Type.Object({
  id: Type.String(),
  prefix: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Scope),
  audience: Audience,
  agent: Type.Union([Type.String(), Type.Null()], { description: "the agent the key acts as on every call; null: none" }),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
export type ApiKeyView = Static<typeof ApiKeyView>;

/** A key as created: the view plus its secret, which is shown this once. */
export const CreatedKey = Type.Composite([ApiKeyView, Type.Object({ secret: Type.String({ description: "shown once" }) })]);

export const CreateKeyInput = Type.Object({
  workspace: WorkspaceSlug,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true }),
  audience: Audience,
  agent: Type.Optional(AgentSlug),
  expires_at: Type.Optional(Type.String({ format: "date-time" })),
});
export type CreateKeyInput = Static<typeof CreateKeyInput>;

/** What `whoami` returns (docs/api.md, Routes). */
export const WhoamiResult = Type.Object({
  key_name: Type.String(),
  key_prefix: Type.String(),
  scopes: Type.Array(Scope),
  key_audience: Audience,
  rate_limit: Type.Object({ requests_per_window: Type.Integer(), window_seconds: Type.Integer() }),
});
export type WhoamiResult = Static<typeof WhoamiResult>;

/** GET /v1/admin/workspaces/:slug/keys */
export const KeyList = Type.Object({ keys: Type.Array(ApiKeyView) });
export type KeyList = Static<typeof KeyList>;
