import { Type, type Static } from "@sinclair/typebox";
import { Scope, WorkspaceSlug } from "./auth";
import { AgentSlug, Paging, Text } from "./memory";

/** POST /v1/admin/workspaces */
export const CreateWorkspaceRequest = Type.Object({
  slug: Type.String({ ...WorkspaceSlug, description: "lower-case letters, digits, _ and - (1-63 characters)" }),
  credits: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: "starting credits (0 or more)" }),
});
export type CreateWorkspaceRequest = Static<typeof CreateWorkspaceRequest>;

/** POST /v1/admin/workspaces/:slug/credits */
export const ChangeCreditsRequest = Type.Object({
  mode: Type.Union([Type.Literal("set"), Type.Literal("add")], { description: "set replaces the balance; add adds to it (negative subtracts)" }),
  amount: Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, description: "credits" }),
});
export type ChangeCreditsRequest = Static<typeof ChangeCreditsRequest>;

/** POST /v1/admin/workspaces/:slug/keys: the secret is in the response once, never again. */
export const CreateKeyRequest = Type.Object({
  name: Text({ minLength: 1, maxLength: 200, description: "what the key is for (1-200 characters)" }),
  scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true, description: "one or more of memory.read, memory.write, answers.write" }),
  audience: Type.Union([Type.Literal("internal"), Type.Literal("external")], { default: "internal" }),
  agent: Type.Optional(Type.String({ ...AgentSlug, description: "bind the key to this agent: every call acts as it, and naming another agent is refused" })),
  expires_at: Type.Optional(Type.String({ format: "date-time", description: "ISO 8601 date-time in the future" })),
});
export type CreateKeyRequest = Static<typeof CreateKeyRequest>;

/** POST /v1/admin/workspaces/:slug/team */
export const TeamMemberRequest = Type.Object({
  name: Text({ minLength: 1, maxLength: 200, description: "the person's display name (1-200 characters)" }),
});

export const SlugParams = Type.Object({ slug: WorkspaceSlug });
export const EndUserParams = Type.Object({ slug: WorkspaceSlug, end_user_id: Text({ minLength: 1, maxLength: 200, description: "an end user's id" }) });
/** GET /v1/admin/workspaces/:slug/answers */
export const RecentAnswersQuery = Paging;
export const KeyParams = Type.Object({ key_id: Text({ minLength: 1, maxLength: 200, description: "a key id" }) });
export const AgentParams = Type.Object({
  slug: WorkspaceSlug,
  agent_slug: Type.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$", description: "an agent slug" }),
});
export const TeamParams = Type.Object({ slug: WorkspaceSlug, name: Text({ minLength: 1, maxLength: 200, description: "a team member's name" }) });

/** The settings app's sign-in: the admin credential, exchanged for a session cookie. */
export const SignInRequest = Type.Object({ token: Type.String({ minLength: 1, maxLength: 500, description: "the admin credential" }) });
