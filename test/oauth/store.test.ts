import { expect, test } from "bun:test";
import { insertClient, insertCode, insertTokenPair, pruneOAuth } from "../../src/oauth/store";
import { makeKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("OAuth store pruning", (get) => {
  test("prune drops dead codes and token pairs and clients never used, and keeps everything still usable", async () => {
    const db = get().db;
    const key = await makeKey(db);
    await insertClient(db, "mcpc_unused_old", "old", ["https://a.example/cb"]);
    await insertClient(db, "mcpc_unused_new", "new", ["https://a.example/cb"]);
    await insertClient(db, "mcpc_used_old", "used", ["https://a.example/cb"]);
    await db.sql`UPDATE oauth_clients SET created_at = now() - interval '8 days' WHERE id IN ('mcpc_unused_old', 'mcpc_used_old')`;
    const grant = {
      clientId: "mcpc_used_old",
      keyId: key.id,
      scopes: ["memory.read" as const],
      audience: "internal" as const,
      resource: "http://x/v1/mcp",
      familyId: "fam_1",
    };
    await insertCode(db, "code-dead", grant, "https://a.example/cb", "c", 60);
    await insertCode(db, "code-live", grant, "https://a.example/cb", "c", 60);
    await db.sql`UPDATE oauth_codes SET expires_at = now() - interval '2 days' WHERE code_hash = 'code-dead'`;
    await insertTokenPair(db, "tok_dead", grant, "a-dead", "r-dead", { accessSeconds: 60, refreshSeconds: 60 });
    await insertTokenPair(db, "tok_live", grant, "a-live", "r-live", { accessSeconds: 60, refreshSeconds: 60 });
    await db.sql`UPDATE oauth_tokens SET refresh_expires_at = now() - interval '2 days' WHERE id = 'tok_dead'`;

    await pruneOAuth(db);
    expect((await db.sql<{ id: string }>`SELECT id FROM oauth_clients ORDER BY id`).map((r) => r.id)).toEqual(["mcpc_unused_new", "mcpc_used_old"]);
    expect((await db.sql<{ code_hash: string }>`SELECT code_hash FROM oauth_codes`).map((r) => r.code_hash)).toEqual(["code-live"]);
    expect((await db.sql<{ id: string }>`SELECT id FROM oauth_tokens`).map((r) => r.id)).toEqual(["tok_live"]);
  });
});
