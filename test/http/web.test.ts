/** The settings app's server side: the page and assets, sign-in, the session cookie and CSRF. */
import { expect, test } from "bun:test";
import { call, TEST_ADMIN_TOKEN, testApp, uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("settings web app", (get) => {
  const signIn = async (app: ReturnType<typeof testApp>) => {
    const res = await call(app, "POST", "/app/session", { body: { token: TEST_ADMIN_TOKEN } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie") ?? "";
    return { cookie: cookie.split(";")[0] ?? "", header: cookie, csrf: res.json.data.csrf_token as string };
  };

  test("the page and its assets come from the binary with a strict CSP; an unknown asset is 404", async () => {
    const app = testApp(get().db);
    const page = await call(app, "GET", "/app");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<script type="module" src="/app/assets/app.js">');
    expect(page.text).not.toMatch(/<script>|style=/);
    expect((await call(app, "GET", "/app/assets/app.js")).headers.get("content-type")).toContain("text/javascript");
    expect((await call(app, "GET", "/app/assets/app.css")).headers.get("content-type")).toContain("text/css");
    expect((await call(app, "GET", "/app/assets/nope.js")).status).toBe(404);
  });

  test("sign-in: a wrong token is 401, the right one sets an HttpOnly SameSite=Strict cookie (Secure only over TLS)", async () => {
    const app = testApp(get().db);
    const wrong = await call(app, "POST", "/app/session", { body: { token: "wrong-token-0123456789" } });
    expect([wrong.status, wrong.json.error.code]).toEqual([401, "admin_token_invalid"]);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const { header } = await signIn(app);
    expect(header).toMatch(/^memoryd_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const tls = await app.handle(
      new Request("https://memory.example.com/app/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: TEST_ADMIN_TOKEN }),
      }),
    );
    expect(tls.headers.get("set-cookie")).toEndWith("; Secure");
  });

  test("a session reads the admin API; changes need its CSRF token; signing out ends it", async () => {
    const app = testApp(get().db);
    const { cookie, csrf } = await signIn(app);
    expect((await call(app, "GET", "/app/session", { headers: { cookie } })).json.data).toEqual({ signed_in: true, csrf_token: csrf });
    expect((await call(app, "GET", "/v1/admin/workspaces", { headers: { cookie } })).status).toBe(200);
    const slug = uniqueSlug("web");
    const forged = await call(app, "POST", "/v1/admin/workspaces", { headers: { cookie }, body: { slug } });
    expect([forged.status, forged.json.error.code]).toEqual([403, "forbidden_origin"]);
    const wrongToken = await call(app, "POST", "/v1/admin/workspaces", { headers: { cookie, "x-csrf-token": "nope" }, body: { slug } });
    expect(wrongToken.status).toBe(403);
    expect((await call(app, "POST", "/v1/admin/workspaces", { headers: { cookie, "x-csrf-token": csrf }, body: { slug } })).status).toBe(201);

    expect((await call(app, "DELETE", "/app/session", { headers: { cookie } })).status).toBe(403);
    const out = await call(app, "DELETE", "/app/session", { headers: { cookie, "x-csrf-token": csrf } });
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await call(app, "GET", "/v1/admin/workspaces", { headers: { cookie } })).status).toBe(401);
    expect((await call(app, "GET", "/app/session", { headers: { cookie } })).json.data).toEqual({ signed_in: false });
    const [stored] = await get().db.sql<{ n: number }>`SELECT count(*)::int AS n FROM admin_sessions WHERE id_hash = ${cookie.split("=")[1] ?? ""}`;
    expect(stored?.n).toBe(0);
  });
});
