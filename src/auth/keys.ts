import { ApiError, notFound } from "../errors";
import { sortableId } from "../ids";
import type { Queryable } from "../db/types";
import type { ApiKeyView, CreateKeyInput } from "../schema/auth";
import { findAgent } from "../agents/store";
import { findWorkspace } from "./workspaces";
import { generateSecret, hashSecret, looksLikeSecret, type Deployment } from "./secrets";

export interface CreatedKey extends ApiKeyView {
  secret: string;
}

interface KeyRow {
  id: string;
  prefix: string;
  name: string;
  scopes: string[];
  audience: string;
  agent_slug: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

function toView(row: KeyRow): ApiKeyView {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    scopes: row.scopes as ApiKeyView["scopes"],
    audience: row.audience as ApiKeyView["audience"],
    agent: row.agent_slug,
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
    created_at: iso(row.created_at) ?? "",
  };
}

/** Creates a key and returns its secret: the only time the secret exists outside the caller. */
export async function createKey(db: Queryable, deployment: Deployment, input: CreateKeyInput): Promise<CreatedKey> {
  const workspace = await findWorkspace(db, input.workspace);
  const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
  if (expiresAt !== null && Number.isNaN(expiresAt.getTime())) {
    throw new ApiError("validation_error", "expires_at is not an ISO 8601 date-time");
  }
  // A key born expired is a mistake in the command line, not a key anyone wants.
  if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
    throw new ApiError("validation_error", `expires_at ${input.expires_at} is in the past: give a future date-time`);
  }
  const agent = input.agent ?? null;
  if (agent !== null && !(await findAgent(db, workspace.id, agent))) {
    throw new ApiError("validation_error", `no agent "${agent}" in workspace "${input.workspace}"`, {
      fields: [{ path: "agent", reason: "no such agent in this workspace" }],
    });
  }
  const { secret, prefix, hash } = generateSecret(deployment);
  const rows = await db.sql<KeyRow>`
    INSERT INTO api_keys (id, workspace_id, name, prefix, secret_hash, scopes, audience, agent_slug, expires_at)
    VALUES (${sortableId("key")}, ${workspace.id}, ${input.name}, ${prefix}, ${hash},
            ${input.scopes}::text[], ${input.audience}, ${agent}, ${expiresAt})
    RETURNING id, prefix, name, scopes, audience, agent_slug, expires_at, revoked_at, last_used_at, created_at`;
  const row = rows[0];
  if (!row) throw new Error("key insert returned no row");
  return { ...toView(row), secret };
}

export async function listKeys(db: Queryable, slug: string): Promise<ApiKeyView[]> {
  const workspace = await findWorkspace(db, slug);
  const rows = await db.sql<KeyRow>`
    SELECT id, prefix, name, scopes, audience, agent_slug, expires_at, revoked_at, last_used_at, created_at
      FROM api_keys WHERE workspace_id = ${workspace.id} ORDER BY id`;
  return rows.map(toView);
}

/**
 * Revokes by id, prefix or the full secret (what an operator holding a leaked key has).
 * Authentication reads the key row on every request, so this is immediate.
 */
export async function revokeKey(db: Queryable, idOrPrefix: string): Promise<ApiKeyView> {
  const hash = looksLikeSecret(idOrPrefix) ? hashSecret(idOrPrefix) : "";
  const rows = await db.sql<KeyRow>`
    UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
     WHERE id = ${idOrPrefix} OR prefix = ${idOrPrefix} OR secret_hash = ${hash}
    RETURNING id, prefix, name, scopes, audience, agent_slug, expires_at, revoked_at, last_used_at, created_at`;
  const row = rows[0];
  // Never echo a secret back, even one that matches nothing.
  if (!row) throw hash === "" ? notFound(`key "${idOrPrefix}"`) : notFound("a key with this secret");
  return toView(row);
}
