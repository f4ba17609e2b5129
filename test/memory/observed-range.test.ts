/**
 * `observed_after` / `observed_before` on REST search and context and the admin search: hard
 * filters on when a fact was observed, on both databases; a bad value or an empty range is a 422
 * naming the field; the MCP tools keep the spec's arguments.
 */
import { expect, test } from "bun:test";
import { call, makeKey, TEST_ADMIN_TOKEN, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

const FACTS = [
  { text: "Ana flew to Lisbon for the offsite.", observed_at: "2026-02-14T10:00:00Z" },
  { text: "Ana flew to Oslo for a customer visit.", observed_at: "2026-05-02T09:00:00Z" },
  { text: "Ana flew to Lima for the conference.", observed_at: "2026-09-20T08:00:00Z" },
];

describeEachDb("observed-time filters", (get) => {
  const setup = async () => {
    const app = testApp(get().db);
    const key = await makeKey(get().db);
    const taught = await call(app, "POST", "/v1/memory/facts", { key: key.secret, body: { facts: FACTS } });
    expect(taught.status).toBe(202);
    return { app, key };
  };
  const texts = (res: { json: any }): string[] => res.json.data.facts.map((f: { fact_text: string }) => f.fact_text);

  test("search returns only facts observed in [observed_after, observed_before)", async () => {
    const { app, key } = await setup();
    const search = (range: Record<string, string>) =>
      call(app, "POST", "/v1/memory/search", { key: key.secret, body: { query: "where did Ana fly", limit: 10, ...range } });
    expect(texts(await search({}))).toHaveLength(3);
    expect(texts(await search({ observed_after: "2026-04-01T00:00:00Z" })).sort()).toEqual([FACTS[1]!.text, FACTS[2]!.text].sort());
    expect(texts(await search({ observed_before: "2026-04-01T00:00:00Z" }))).toEqual([FACTS[0]!.text]);
    expect(texts(await search({ observed_after: "2026-05-01T00:00:00Z", observed_before: "2026-06-01T00:00:00Z" }))).toEqual([FACTS[1]!.text]);
    // The lower bound is inclusive, the upper exclusive.
    expect(texts(await search({ observed_after: FACTS[1]!.observed_at, observed_before: FACTS[2]!.observed_at }))).toEqual([FACTS[1]!.text]);
  });

  test("context and the admin search apply the same filters", async () => {
    const { app, key } = await setup();
    const packet = await call(app, "POST", "/v1/memory/context", {
      key: key.secret,
      body: { query: "where did Ana fly", observed_after: "2026-09-01T00:00:00Z" },
    });
    expect(packet.status).toBe(200);
    expect(packet.json.data.rendered).toContain("Lima");
    expect(packet.json.data.rendered).not.toContain("Lisbon");
    expect(packet.json.data.rendered).not.toContain("Oslo");
    const admin = await call(app, "POST", `/v1/admin/workspaces/${key.workspace}/search`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: { query: "where did Ana fly", observed_before: "2026-03-01T00:00:00Z" },
    });
    expect(admin.status).toBe(200);
    expect(texts(admin)).toEqual([FACTS[0]!.text]);
  });

  test.each([
    ["/v1/memory/search", { query: "Ana", observed_after: "last week" }, "observed_after"],
    ["/v1/memory/search", { query: "Ana", observed_before: "2026-13-01" }, "observed_before"],
    ["/v1/memory/search", { query: "Ana", observed_after: "2026-06-01T00:00:00Z", observed_before: "2026-06-01T00:00:00Z" }, "observed_before"],
    ["/v1/memory/context", { query: "Ana", observed_after: "2026-07-01T00:00:00Z", observed_before: "2026-06-01T00:00:00Z" }, "observed_before"],
  ] as const)("%s %j: 422 naming %s", async (path, body, field) => {
    const { app, key } = await setup();
    const res = await call(app, "POST", path, { key: key.secret, body });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe("validation_error");
    expect(JSON.stringify(res.json.error.details.fields)).toContain(field);
  });
});
