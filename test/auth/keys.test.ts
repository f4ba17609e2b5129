import { expect, test } from "bun:test";
import { createKey, listKeys, revokeKey } from "../../src/auth/keys";
import { generateSecret, hashSecret, sameHash } from "../../src/auth/secrets";
import { changeCredits, createWorkspace, findWorkspace } from "../../src/auth/workspaces";
import { ApiError } from "../../src/errors";
import { describeEachDb } from "../helpers/databases";
import { uniqueSlug } from "../helpers/app";

test("secrets carry the deployment label and at least 32 base62 chars", () => {
  const live = generateSecret("live");
  const testKey = generateSecret("test");
  expect(live.secret).toMatch(/^ak_live_[0-9A-Za-z]{32,}$/);
  expect(testKey.secret).toMatch(/^ak_test_[0-9A-Za-z]{32,}$/);
  expect(live.prefix).toBe(live.secret.slice(0, 16));
  expect(live.hash).toBe(hashSecret(live.secret));
  expect(live.hash).toMatch(/^[0-9a-f]{64}$/);
  expect(sameHash(live.hash, hashSecret(live.secret))).toBe(true);
  expect(sameHash(live.hash, testKey.hash)).toBe(false);
  const many = new Set(Array.from({ length: 200 }, () => generateSecret("test").secret));
  expect(many.size).toBe(200);
});

describeEachDb("api keys", (get) => {
  test("create stores only the hash; list never shows secret or hash", async () => {
    const { db } = get();
    const slug = uniqueSlug();
    await createWorkspace(db, slug, 10);
    const key = await createKey(db, "test", {
      workspace: slug,
      name: "reader",
      scopes: ["memory.read"],
      audience: "external",
    });
    expect(key.id).toMatch(/^key_[0-9A-Z]{26}$/);
    const stored = await db.sql<{ secret_hash: string }>`SELECT secret_hash FROM api_keys WHERE id = ${key.id}`;
    expect(stored[0]?.secret_hash).toBe(hashSecret(key.secret));
    const everything = JSON.stringify(await db.sql`SELECT * FROM api_keys WHERE id = ${key.id}`);
    expect(everything).not.toContain(key.secret);
    const listed = await listKeys(db, slug);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: key.id, prefix: key.prefix, scopes: ["memory.read"], audience: "external", revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(key.secret);
    expect(JSON.stringify(listed)).not.toContain(hashSecret(key.secret));
  });

  test("revoke by id or prefix; unknown key is not_found", async () => {
    const { db } = get();
    const slug = uniqueSlug();
    await createWorkspace(db, slug, 0);
    const a = await createKey(db, "test", { workspace: slug, name: "a", scopes: ["memory.write"], audience: "internal" });
    const b = await createKey(db, "test", { workspace: slug, name: "b", scopes: ["memory.write"], audience: "internal" });
    expect((await revokeKey(db, a.id)).revoked_at).not.toBeNull();
    expect((await revokeKey(db, b.prefix)).revoked_at).not.toBeNull();
    await expect(revokeKey(db, "key_nope")).rejects.toMatchObject({ code: "not_found" });
  });

  test("the database refuses empty or unknown scopes", async () => {
    const { db } = get();
    const slug = uniqueSlug();
    await createWorkspace(db, slug, 0);
    const bad = (scopes: string[]) => createKey(db, "test", { workspace: slug, name: "x", scopes: scopes as never, audience: "internal" });
    await expect(bad([])).rejects.toThrow();
    await expect(bad(["memory.admin"])).rejects.toThrow();
  });

  test("credits: set, add, never below zero; unknown workspace not_found", async () => {
    const { db } = get();
    const slug = uniqueSlug();
    await createWorkspace(db, slug, 5);
    expect((await changeCredits(db, slug, "add", 7)).credits).toBe(12);
    expect((await changeCredits(db, slug, "set", 3)).credits).toBe(3);
    await expect(changeCredits(db, slug, "add", -4)).rejects.toBeInstanceOf(ApiError);
    expect((await findWorkspace(db, slug)).credits).toBe(3);
    await expect(changeCredits(db, "no-such-ws", "set", 1)).rejects.toMatchObject({ code: "not_found" });
  });

  test("duplicate workspace slug is refused clearly", async () => {
    const { db } = get();
    const slug = uniqueSlug();
    await createWorkspace(db, slug, 0);
    await expect(createWorkspace(db, slug, 0)).rejects.toThrow(/already exists/);
  });
});
