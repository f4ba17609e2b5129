/**
 * Possible duplicates and their merge over the admin API, on both databases: near-identical
 * facts of one subject are grouped, a merge keeps one live and makes the others its history (seen
 * by the next search), and a merge across scopes or of a fact that is not live is refused.
 */
import { expect, test } from "bun:test";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("possible duplicates", (get) => {
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  test("grouped by subject, merged into one, and no longer listed", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    const teach = (texts: string[], endUser?: string) =>
      call(app, "POST", "/v1/memory/facts", {
        key: key.secret,
        body: { facts: texts.map((text) => ({ text })), ...(endUser && { end_user: { id: endUser } }) },
      });
    expect(
      (
        await teach([
          "The VPN config lives in the shared drive under IT.",
          "The VPN config lives in the shared drive under IT folder.",
          "The VPN config was rotated in March.",
        ])
      ).json.data.created,
    ).toBe(3);
    // The same words about an end user are another scope: never grouped with the workspace's.
    await teach(["The VPN config lives in the shared drive under IT."], "u-1");

    const found = await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/duplicates`, { headers });
    expect(found.status).toBe(200);
    const groups = found.json.data.groups as { subject: string; similarity: number; facts: { fact_id: string; text: string; end_user: unknown }[] }[];
    expect(groups.map((g) => g.facts.map((f) => f.text).sort())).toEqual([
      ["The VPN config lives in the shared drive under IT folder.", "The VPN config lives in the shared drive under IT."],
    ]);
    expect(groups[0]!.similarity).toBeGreaterThan(0.6);
    const [keep, other] = groups[0]!.facts.sort((a, b) => a.text.length - b.text.length);

    const merged = await call(app, "POST", "/v1/admin/facts/merge", { headers, body: { keep: keep!.fact_id, merge: [other!.fact_id] } });
    expect(merged.status).toBe(200);
    expect(merged.json.data).toEqual({ kept: keep!.fact_id, superseded: [other!.fact_id] });
    const search = await call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "where does the VPN config live" } });
    const texts = (search.json.data.facts as { fact_text: string }[]).map((f) => f.fact_text);
    expect(texts).toContain("The VPN config lives in the shared drive under IT.");
    expect(texts).not.toContain("The VPN config lives in the shared drive under IT folder.");
    expect((await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/duplicates`, { headers })).json.data.groups).toEqual([]);
    // The merged fact is history now: merging it again is refused.
    const again = await call(app, "POST", "/v1/admin/facts/merge", { headers, body: { keep: keep!.fact_id, merge: [other!.fact_id] } });
    expect(again.status).toBe(422);
  });

  test("refused across scopes, for unknown facts, and for a keep that is also merged", async () => {
    const { db } = get();
    const app = testApp(db);
    const key = await makeKey(db);
    await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: [{ text: "The printer on floor 3 jams often." }] } });
    await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: [{ text: "The printer on floor 3 jams often." }], end_user: { id: "u-2" } },
    });
    const all = (await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/facts`, { headers })).json.data.facts as {
      fact_id: string;
      end_user: unknown;
    }[];
    const [mine, theirs] = [all.find((f) => f.end_user === null)!, all.find((f) => f.end_user !== null)!];
    const across = await call(app, "POST", "/v1/admin/facts/merge", { headers, body: { keep: mine.fact_id, merge: [theirs.fact_id] } });
    expect([across.status, across.json.error.details.fields[0].path]).toEqual([422, "merge"]);
    expect((await call(app, "POST", "/v1/admin/facts/merge", { headers, body: { keep: mine.fact_id, merge: ["fact_nope"] } })).status).toBe(404);
    expect((await call(app, "POST", "/v1/admin/facts/merge", { headers, body: { keep: mine.fact_id, merge: [mine.fact_id] } })).status).toBe(422);
    expect((await call(app, "POST", "/v1/admin/facts/merge", { headers, body: { keep: mine.fact_id, merge: [] } })).status).toBe(422);
    expect((await call(app, "GET", `/v1/admin/workspaces/${key.workspace}/duplicates?min_similarity=2`, { headers })).status).toBe(422);
  });
});
