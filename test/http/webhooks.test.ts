import { expect, test } from "bun:test";
import { createWorkspace } from "../../src/auth/workspaces";
import { call, TEST_ADMIN_TOKEN, testApp, uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("webhook admin routes", (get) => {
  const admin = (method: string, path: string, body?: unknown, allowPrivate = true) =>
    call(testApp(get().db, { outboundAllowPrivate: allowPrivate }), method, path, { key: TEST_ADMIN_TOKEN, body });

  test("create (secret shown once), list, change, deliveries, delete; validation and 404s", async () => {
    const ws = await createWorkspace(get().db, uniqueSlug("hooks"), 0);
    const base = `/v1/admin/workspaces/${ws.slug}/webhooks`;
    const created = await admin("POST", base, { url: "http://127.0.0.1:9/hook", events: ["fact.created", "answer.failed"] });
    expect(created.status).toBe(201);
    const hook = created.json.data;
    expect(hook).toMatchObject({ url: "http://127.0.0.1:9/hook", events: ["fact.created", "answer.failed"], internal: false, enabled: true, pending: 0 });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.webhook_id).toMatch(/^wh_/);

    const listed = await admin("GET", base);
    expect(listed.json.data.webhooks).toHaveLength(1);
    expect(JSON.stringify(listed.json)).not.toContain(hook.secret);
    expect(JSON.stringify((await admin("GET", `/v1/admin/webhooks/${hook.webhook_id}`)).json)).not.toContain(hook.secret);

    const changed = await admin("PATCH", `/v1/admin/webhooks/${hook.webhook_id}`, { enabled: false, internal: true, events: ["fact.deleted"] });
    expect(changed.status).toBe(200);
    expect(changed.json.data).toMatchObject({ enabled: false, internal: true, events: ["fact.deleted"] });
    expect((await admin("GET", `/v1/admin/webhooks/${hook.webhook_id}/deliveries`)).json.data).toEqual({ deliveries: [] });

    const invalid: [unknown, string][] = [
      [{ url: "http://127.0.0.1:9/hook", events: [] }, "events"],
      [{ url: "http://127.0.0.1:9/hook", events: ["fact.exploded"] }, "events[0]"],
      [{ url: "not a url", events: ["fact.created"] }, "url"],
      [{ url: "ftp://127.0.0.1/hook", events: ["fact.created"] }, "url"],
      [{ url: "https://user:pass@127.0.0.1/hook", events: ["fact.created"] }, "url"],
    ];
    for (const [body, field] of invalid) {
      const res = await admin("POST", base, body);
      expect([res.status, res.json.error.code]).toEqual([422, "validation_error"]);
      expect(res.json.error.details.fields.map((f: { path: string }) => f.path)).toContain(field);
    }
    // Without the operator's permission, loopback is refused with the reason.
    const loopback = await admin("POST", base, { url: "https://127.0.0.1/hook", events: ["fact.created"] }, false);
    expect(loopback.status).toBe(422);
    expect(loopback.json.error.message).toContain("loopback");
    expect(loopback.json.error.message).not.toContain("pass");

    expect((await admin("DELETE", `/v1/admin/webhooks/${hook.webhook_id}`)).json.data).toEqual({ webhook_id: hook.webhook_id, deleted: true });
    for (const [method, path] of [
      ["GET", `/v1/admin/webhooks/${hook.webhook_id}`],
      ["DELETE", `/v1/admin/webhooks/${hook.webhook_id}`],
      ["GET", "/v1/admin/workspaces/nope/webhooks"],
    ] as const) {
      const res = await admin(method, path);
      expect([res.status, res.json.error.code]).toEqual([404, "not_found"]);
    }
    expect((await call(testApp(get().db), "GET", base, {})).status).toBe(401);
  });
});
