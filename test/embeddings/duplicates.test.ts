/**
 * Possible duplicates by vectors, on both databases: with an embeddings endpoint (the fake one on
 * loopback), two facts of one subject saying the same thing in other words are grouped once they
 * have vectors, though their words are not alike; without vectors they are not.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { call, makeKey, TEST_ADMIN_TOKEN } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { type FakeEmbeddings, startFakeEmbeddings } from "../helpers/fake-embeddings";
import { embedAll, semanticApp } from "../helpers/semantic-app";

describeEachDb("possible duplicates by vectors", (get) => {
  let fake: FakeEmbeddings;
  beforeAll(() => {
    fake = startFakeEmbeddings();
  });
  afterAll(async () => {
    await fake.stop();
  });

  test("the same thing in other words is grouped once the facts have vectors", async () => {
    const h = semanticApp(get().db, fake);
    const key = await makeKey(get().db);
    const [first, second, other] = [
      "The VPN config is on the shared drive.",
      "The VPN config is kept in the team folder.",
      "The VPN config was rotated in March.",
    ];
    // The first two mean the same to the model; the third points elsewhere.
    const direction = Array.from({ length: fake.dimensions }, (_, i) => (i % 3 === 0 ? 1 : 0.1));
    fake.vectors.set(first, direction);
    fake.vectors.set(
      second,
      direction.map((v, i) => (i === 1 ? v + 0.05 : v)),
    );
    expect(
      (await call(h.app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [first, second, other].map((text) => ({ text })) } })).json.data.created,
    ).toBe(3);
    const duplicates = async () =>
      (await call(h.app, "GET", `/v1/admin/workspaces/${key.workspace}/duplicates`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json.data
        .groups as { by: string[]; similarity: number; facts: { text: string }[] }[];
    // By words alone they are not alike enough.
    expect(await duplicates()).toEqual([]);
    expect(await embedAll(h, key.workspace, get().db)).toBe(3);
    const groups = await duplicates();
    expect(groups.map((g) => [g.by, g.facts.map((f) => f.text).sort()])).toEqual([[["vectors"], [second, first].sort()]]);
    expect(groups[0]!.similarity).toBeGreaterThan(0.9);
  });
});
