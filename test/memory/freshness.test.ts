/**
 * The current answer first, through search and the context packet on both databases: a fact's
 * newest update goes directly above it (brought in when it did not match), never across end
 * users, not for a question about the past; ties among short statements go to the newer one; a
 * smaller limit returns the head of a larger one.
 */
import { expect, test } from "bun:test";
import { call, makeKey, testApp, type TestKey } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("the current answer first", (db) => {
  const teach = async (key: TestKey, facts: { text: string; at: string }[], endUser?: { id: string; name?: string }): Promise<void> => {
    const app = testApp(db().db);
    const taught = await call(app, "POST", "/v1/memory/facts", {
      key: key.secret,
      body: { facts: facts.map((f) => ({ text: f.text, observed_at: f.at })), ...(endUser && { end_user: endUser }) },
    });
    expect(taught.status).toBe(202);
  };
  const search = async (
    key: TestKey,
    query: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ fact_text: string; explanation?: Record<string, unknown> }[]> => {
    const found = await call(testApp(db().db), "POST", "/v1/memory/search", { key: key.secret, body: { query, limit: 5, ...extra } });
    expect(found.status).toBe(200);
    return found.json.data.facts;
  };

  test("an update that shares no word with the question follows the fact it updates in, first; a question about the past keeps the order", async () => {
    const key = await makeKey(db().db);
    const sam = { id: "sam", name: "Sam" };
    await teach(key, [{ text: "I ride a Vespa to work.", at: "2026-03-01T08:00:00Z" }], sam);
    await teach(key, [{ text: "Traded the Vespa for an e-bike last week.", at: "2026-06-01T08:00:00Z" }], sam);
    const now = await search(key, "how do I get to work?", { end_user: sam, explain: true });
    expect(now.map((f) => f.fact_text)).toEqual(["Traded the Vespa for an e-bike last week.", "I ride a Vespa to work."]);
    expect(now[0]!.explanation?.updates).toBeString();
    expect(now[1]!.explanation?.updated_by).toBeString();
    const before = await search(key, "how did I get to work before?", { end_user: sam });
    expect(before.map((f) => f.fact_text)).toEqual(["I ride a Vespa to work."]);
    // Another end user's facts never follow in.
    const other = await search(key, "how do I get to work?", { end_user: { id: "kim" } });
    expect(other.map((f) => f.fact_text)).toEqual([]);
    const packet = await call(testApp(db().db), "POST", "/v1/memory/context", { key: key.secret, body: { query: "how do I get to work?", end_user: sam } });
    expect(packet.status).toBe(200);
    const rendered: string = packet.json.data.rendered;
    expect(rendered.indexOf("e-bike")).toBeGreaterThan(-1);
    expect(rendered.indexOf("e-bike")).toBeLessThan(rendered.indexOf("ride a Vespa"));
  });

  test("a weak update (one common word shared) reorders what the question found, and brings nothing in", async () => {
    const key = await makeKey(db().db);
    const sam = { id: "sam", name: "Sam" };
    await teach(key, [{ text: "The team lunch is at the Italian place.", at: "2026-03-01T08:00:00Z" }], sam);
    await teach(key, [{ text: "Switched the lunch to Fridays at noon.", at: "2026-06-01T08:00:00Z" }], sam);
    const rows = await db().db.sql<{ text: string; updates: string[] | null; weak_updates: string[] | null; link_reason: string | null }>`
      SELECT f.text, f.updates, f.weak_updates, f.link_reason FROM facts f JOIN workspaces w ON w.id = f.workspace_id WHERE w.slug = ${key.workspace}`;
    const newer = rows.find((r) => r.text.startsWith("Switched"))!;
    expect([newer.updates, newer.weak_updates?.length, newer.link_reason]).toEqual([null, 1, 'updates (weakly): change word "switch", both about "lunch"']);
    const lunch = await search(key, "when is the team lunch?", { end_user: sam });
    expect(lunch.map((f) => f.fact_text)).toEqual(["Switched the lunch to Fridays at noon.", "The team lunch is at the Italian place."]);
    const place = await search(key, "which Italian place?", { end_user: sam });
    expect(place.map((f) => f.fact_text)).toEqual(["The team lunch is at the Italian place."]);
  });

  test("ties among short statements go to the newer; a fact that answers with more of the question keeps its place", async () => {
    const key = await makeKey(db().db);
    await teach(key, [
      { text: "The Puffin service is hosted on Heroku.", at: "2026-01-01T08:00:00Z" },
      { text: "Puffin's owner is Mei.", at: "2026-01-02T08:00:00Z" },
    ]);
    await teach(key, [{ text: "Puffin is on Fly.io.", at: "2026-05-01T08:00:00Z" }]);
    const hosting = await search(key, "where do we deploy Puffin?");
    expect(hosting.map((f) => f.fact_text).indexOf("Puffin is on Fly.io.")).toBeLessThan(
      hosting.map((f) => f.fact_text).indexOf("The Puffin service is hosted on Heroku."),
    );
    const owner = await search(key, "who owns Puffin?");
    expect(owner[0]!.fact_text).toBe("Puffin's owner is Mei.");
    // A smaller limit is the head of a larger one.
    const one = await call(testApp(db().db), "POST", "/v1/memory/search", { key: key.secret, body: { query: "where do we deploy Puffin?", limit: 1 } });
    expect(one.json.data.facts.map((f: { fact_text: string }) => f.fact_text)).toEqual(hosting.slice(0, 1).map((f) => f.fact_text));
  });

  test("an update is linked at teach time with its reason, and two crates or two companies of one first word are never linked", async () => {
    const key = await makeKey(db().db);
    await teach(key, [
      { text: "On-call for payments this week is Alicia.", at: "2026-01-01T08:00:00Z" },
      { text: "Crate batch1 waits at the north depot.", at: "2026-01-01T08:00:00Z" },
      { text: "Cobalt Freight is on the Pro tier.", at: "2026-01-01T08:00:00Z" },
    ]);
    await teach(key, [
      { text: "Swapped on-call: Devon is covering payments now.", at: "2026-02-01T08:00:00Z" },
      { text: "Crate batch3 moved to the north depot.", at: "2026-02-01T08:00:00Z" },
      { text: "Cobalt Textiles moved to the Enterprise tier.", at: "2026-02-01T08:00:00Z" },
    ]);
    const rows = await db().db.sql<{ text: string; updates: string[] | null; link_reason: string | null; id: string }>`
      SELECT f.id, f.text, f.updates, f.link_reason FROM facts f JOIN workspaces w ON w.id = f.workspace_id WHERE w.slug = ${key.workspace}`;
    const byText = new Map(rows.map((r) => [r.text, r]));
    const swapped = byText.get("Swapped on-call: Devon is covering payments now.")!;
    expect(swapped.updates).toEqual([byText.get("On-call for payments this week is Alicia.")!.id]);
    expect(swapped.link_reason).toContain('change word "switch"');
    expect(byText.get("Crate batch3 moved to the north depot.")!.updates ?? []).toEqual([]);
    expect(byText.get("Cobalt Textiles moved to the Enterprise tier.")!.updates ?? []).toEqual([]);
  });
});
