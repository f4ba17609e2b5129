/**
 * The settings app in a real browser (Debian's Chromium driven by playwright-core) against the
 * compiled binary: sign in, create a workspace and a key, use the key over REST, revoke it from the
 * app and see the next request refused, create an agent and ask it a question over REST, browse,
 * pin and delete a fact, forget an end user, sign out. Screenshots of each page go to the temp
 * directory printed at the end (MEMORYD_SCREENSHOTS to choose one). Last, MCP authorization as a
 * person meets it: the MCP SDK client's authorization URL opened in the same browser, the consent
 * page allowed, the redirect reaching the application's loopback callback (so the page's CSP lets
 * the form lead there), and the tools listed with what was granted; then the same for a client
 * identified by a Client ID Metadata Document instead of registering.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { createFakeAnthropic } from "../helpers/fake-anthropic";
import { isJudging, oracleResponder, promptOf } from "../helpers/fake-capture-model";
import { documentServer, TEST_CA } from "../helpers/metadata-documents";
import { MemoryOAuthProvider } from "../helpers/oauth";
import { receiver } from "../webhooks/support";
import { cleanup, request, startServer, tempDir, type ServerHandle } from "./binary";

setDefaultTimeout(120_000);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ADMIN = "e2e-admin-token-0123456789";

let server: ServerHandle;
let browser: Browser;
let page: Page;
const shots = process.env.MEMORYD_SCREENSHOTS ?? tempDir("memoryd-screens-");
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  mkdirSync(shots, { recursive: true });
  // The metadata-document client below publishes its document on loopback, over TLS with a test certificate.
  server = await startServer({
    dataDir: join(tempDir(), "data"),
    env: { MEMORYD_ADMIN_TOKEN: ADMIN, MEMORYD_OUTBOUND_ALLOW_PRIVATE: "true", NODE_EXTRA_CA_CERTS: TEST_CA },
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  // A refused sign-in is a 401 the browser logs as a failed resource: expected, not a page error.
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) pageErrors.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await cleanup();
});

/** Waits (up to 10 s) until the locator's text contains `text`. */
async function expectText(locator: Locator, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const seen =
      (await locator
        .first()
        .textContent({ timeout: 1_000 })
        .catch(() => null)) ?? "";
    if (seen.includes(text)) return;
    if (Date.now() > deadline) {
      await shot("failure", locator.page());
      throw new Error(`expected text containing ${JSON.stringify(text)}, saw ${JSON.stringify(seen)} (screenshot failure.png)`);
    }
    await Bun.sleep(100);
  }
}
const visible = (locator: Locator) => locator.first().waitFor({ state: "visible", timeout: 10_000 });

/** The secret a key creation just showed (once). */
async function shownSecret(): Promise<string> {
  const box = page.locator("[data-key-secret]");
  await box.waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
    await shot("failure");
    throw error;
  });
  return (await box.textContent()) ?? "";
}

const shot = (name: string, on: Page = page) => on.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
const rest = (path: string, key: string, body: unknown) =>
  request(server.url, path, { method: "POST", key, body: JSON.stringify(body), headers: { "content-type": "application/json" } });

test("sign-in refuses a wrong token next to the field, then signs in with the admin credential", async () => {
  await page.goto(`${server.url}/app`);
  await page.getByLabel("Admin token").fill("not-the-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expectText(page.getByRole("alert"), "admin credential is not valid");
  await shot("01-sign-in-error");
  await page.getByLabel("Admin token").fill(ADMIN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Workspaces" }).waitFor();
  const cookie = (await page.context().cookies()).find((c) => c.name === "memoryd_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
  await shot("02-workspaces");
});

test("a workspace and a key: the secret is shown once, works over REST, and revoking it refuses the next request", async () => {
  await page.getByLabel("Slug").fill("acme");
  await page.getByLabel("Credits").fill("500");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await page.getByRole("heading", { name: "acme", level: 1 }).waitFor();
  await shot("03-overview");

  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("heading", { name: "API keys" }).waitFor();
  await visible(page.getByText("No keys yet."));
  await page.getByLabel("Name", { exact: true }).fill("support bot");
  await page.getByLabel("answers.write").check();
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = await shownSecret();
  expect(secret).toMatch(/^ak_test_/);
  await shot("04-key-created");

  const taught = await rest("/v1/memory/facts", secret, {
    facts: [
      { text: "Ana's manager is Bo." },
      { text: "Refunds take five days." },
      { text: "Bo is on leave this week.", expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString() },
    ],
  });
  expect(taught.status).toBe(202);
  await rest("/v1/memory/facts", secret, { facts: [{ text: "Dana prefers tea." }], end_user: { id: "u-9", name: "Dana" } });

  await page.reload();
  await page.getByRole("heading", { name: "API keys" }).waitFor();
  expect(await page.locator("[data-key-secret]").count()).toBe(0);
  page.once("dialog", (dialog) => dialog.accept());
  await page
    .getByRole("row", { name: /support bot/ })
    .getByRole("button", { name: "Revoke" })
    .click();
  await expectText(page.getByRole("row", { name: /support bot/ }), "revoked");
  const refused = await rest("/v1/memory/search", secret, { query: "manager" });
  expect([refused.status, (refused.json as { error: { code: string } }).error.code]).toEqual([401, "api_key_revoked"]);
  await shot("05-key-revoked");
});

test("an agent created in the app answers over REST with agent_slug", async () => {
  await page.getByRole("link", { name: "Agents" }).click();
  await page.getByRole("heading", { name: "Agents" }).waitFor();
  const form = page.getByRole("form", { name: "New agent" });
  await form.getByLabel("Slug").fill("support");
  await form.getByLabel("Display name").fill("Support");
  await form.getByLabel(/Instructions/).fill("Answer in one sentence.");
  await form.getByRole("button", { name: "Create agent" }).click();
  await visible(page.getByRole("row", { name: /Support/ }));
  await shot("06-agents");

  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("heading", { name: "API keys" }).waitFor();
  await page.getByLabel("Name", { exact: true }).fill("asker");
  await page.getByLabel("answers.write").check();
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = await shownSecret();
  const asked = await rest("/v1/answers", secret, { input: "How long do refunds take?", agent_slug: "support" });
  expect(asked.status).toBe(200);
  expect(asked.text).toContain("event: answer.completed");
  expect(asked.text).toContain("Refunds take five days.");

  await page.getByRole("link", { name: "Answers" }).click();
  await expectText(page.getByRole("row", { name: /How long do refunds take/ }), "support");
  await shot("07-answers");
});

test("facts: search, pin, history and delete; a fact that expires says when", async () => {
  await page.getByRole("link", { name: "Facts" }).click();
  await page.getByRole("heading", { name: "Facts" }).waitFor();
  // A question in other words, ranked as an internal key would, and why it ranked.
  const ask = page.getByRole("search", { name: "Ask memory" });
  await ask.getByLabel("Question").fill("how long until I get reimbursed?");
  await ask.getByRole("button", { name: "Ask" }).click();
  const answer = page.getByRole("listitem").filter({ hasText: "Refunds take five days." });
  await expectText(answer, "meaning “reimburs” → “refund” (neighbour");
  await shot("08-ask-memory");
  // A time in the question: the window it names and what it added.
  await ask.getByLabel("Question").fill("how long do refunds take today?");
  await ask.getByRole("button", { name: "Ask" }).click();
  await expectText(page.getByRole("listitem").filter({ hasText: "Refunds take five days." }), "time “today”");
  await page.getByRole("search", { name: "Filter facts" }).getByLabel("Text").fill("leave");
  await page.getByRole("button", { name: "Search" }).click();
  await expectText(page.getByRole("row", { name: /Bo is on leave this week/ }), "expires");
  // The unfiltered list is on the page until the filtered one replaces it (and its form): wait for that before typing again.
  await page.getByRole("row", { name: /Refunds take five days/ }).waitFor({ state: "detached" });
  await page.getByRole("search", { name: "Filter facts" }).getByLabel("Text").fill("manager");
  await page.getByRole("button", { name: "Search" }).click();
  const row = page.getByRole("row", { name: /Ana's manager is Bo/ });
  await visible(row);
  await row.getByRole("button", { name: "Pin" }).click();
  await expectText(page.getByRole("row", { name: /Ana's manager is Bo/ }), "pinned");
  await page
    .getByRole("row", { name: /Ana's manager is Bo/ })
    .getByRole("button", { name: "History" })
    .click();
  await visible(page.getByText("No other version of this claim."));
  await shot("08-facts");
  page.once("dialog", (dialog) => dialog.accept());
  await page
    .getByRole("row", { name: /Ana's manager is Bo/ })
    .getByRole("button", { name: "Delete" })
    .click();
  await visible(page.getByText("No facts match."));
});

test("webhooks: the signing secret is shown once, and the delivery log shows the receiver's answer", async () => {
  const hook = receiver(() => 204);
  try {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await visible(page.getByText("No webhooks yet."));
    await page.getByLabel("URL").fill(hook.url);
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = (await page.locator("[data-webhook-secret]").textContent({ timeout: 10_000 })) ?? "";
    expect(secret).toMatch(/^whsec_/);
    await shot("09a-webhooks");
    const taught = await request(server.url, "/v1/admin/workspaces/acme/facts", {
      method: "POST",
      key: ADMIN,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ facts: [{ text: "Webhooks reach the receiver." }] }),
    });
    expect(taught.status).toBe(202);
    for (const deadline = Date.now() + 15_000; hook.received.length === 0 && Date.now() < deadline; ) await Bun.sleep(50);
    expect(hook.verify(secret, hook.received[0]!)).toMatchObject({ type: "fact.created", data: { fact_text: "Webhooks reach the receiver." } });
    // The receiver answers before the server records the attempt: the log is read once it is there.
    const { json: listed } = await request(server.url, "/v1/admin/workspaces/acme/webhooks", { key: ADMIN });
    const deliveries = `/v1/admin/webhooks/${listed.data.webhooks[0].webhook_id}/deliveries`;
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await Bun.sleep(50)) {
      if ((await request(server.url, deliveries, { key: ADMIN })).json.data.deliveries.length > 0) break;
    }
    await page.getByRole("button", { name: "Deliveries" }).click();
    await expectText(page.locator("main"), "204");
    await page.reload();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    expect(await page.locator("[data-webhook-secret]").count()).toBe(0);
    // An action that fails says so: the endpoint is deleted behind the page's back, then disabled in it.
    const { json } = await request(server.url, "/v1/admin/workspaces/acme/webhooks", { key: ADMIN });
    expect((await request(server.url, `/v1/admin/webhooks/${json.data.webhooks[0].webhook_id}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    await page.getByRole("button", { name: "Disable" }).click();
    await expectText(page.locator("#toast"), "Failed: webhook");
  } finally {
    hook.stop();
  }
});

test("review: an agent's own facts say whose they are; facts nothing recalled in 30 days are listed apart", async () => {
  const admin = (path: string, body: unknown) =>
    request(server.url, path, { method: "POST", key: ADMIN, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
  const taught = await admin("/v1/admin/workspaces/acme/facts", {
    facts: [
      { text: "The invoice archive lives on the NAS.", observed_at: old },
      { text: "The fire drill is every March.", observed_at: old },
    ],
  });
  expect(taught.status).toBe(202);
  expect(
    (
      await admin("/v1/admin/workspaces/acme/facts", {
        facts: [{ text: "Escalations go to the duty phone.", observed_at: old }],
        agent: "main",
        scope: "agent",
      })
    ).status,
  ).toBe(202);
  // A key's search recalls the archive fact; the counts reach the database within seconds.
  const key = await admin("/v1/admin/workspaces/acme/keys", { name: "reader", scopes: ["memory.read"] });
  const secret = (key.json as { data: { secret: string } }).data.secret;
  expect((await rest("/v1/memory/search", secret, { query: "where does the invoice archive live" })).status).toBe(200);

  await page.getByRole("link", { name: "Facts" }).click();
  await page.getByRole("heading", { name: "Facts" }).waitFor();
  const filters = page.getByRole("search", { name: "Filter facts" });
  await filters.getByLabel("Text").fill("");
  await filters.getByLabel("Not recalled in (days)").fill("30");
  await filters.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(/not_recalled_days=30/);
  // The page as the filter leaves it, loaded again until the recall has been written.
  for (const deadline = Date.now() + 30_000; ; ) {
    await visible(page.getByRole("row", { name: /fire drill/ }));
    if ((await page.getByRole("row", { name: /invoice archive/ }).count()) === 0) break;
    if (Date.now() > deadline) throw new Error("the recalled fact is still listed as not recalled");
    await Bun.sleep(500);
    await page.reload();
  }
  await expectText(page.getByRole("row", { name: /fire drill/ }), "never recalled");
  await expectText(page.getByRole("row", { name: /duty phone/ }), "agent main's own");
  await shot("10-not-recalled");
  await filters.getByLabel("Not recalled in (days)").fill("");
  await filters.getByLabel("Text").fill("invoice");
  await filters.getByRole("button", { name: "Search" }).click();
  await expectText(page.getByRole("row", { name: /invoice archive/ }), "recalled 1×");
});

test("review: a supersession undone from the app brings the older fact back, and search serves it", async () => {
  const admin = (path: string, body: unknown) =>
    request(server.url, path, { method: "POST", key: ADMIN, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect((await admin("/v1/admin/workspaces/acme/facts", { facts: [{ text: "Omar's manager is Lena." }] })).status).toBe(202);
  expect((await admin("/v1/admin/workspaces/acme/facts", { facts: [{ text: "Omar's manager is Jonas." }] })).status).toBe(202);
  const managers = async (): Promise<string[]> => {
    const found = await admin("/v1/admin/workspaces/acme/search", { query: "who is Omar's manager", limit: 5 });
    return (found.json as { data: { facts: { fact_text: string }[] } }).data.facts.map((f) => f.fact_text).filter((t) => t.startsWith("Omar"));
  };
  expect(await managers()).toEqual(["Omar's manager is Jonas."]);

  await page.getByRole("link", { name: "Review" }).click();
  await page.getByRole("heading", { name: "Review" }).waitFor();
  const row = page.getByRole("row", { name: /Omar's manager is Lena\..*Omar's manager is Jonas\./ });
  await visible(row);
  await shot("11-review");
  await row.getByRole("button", { name: "Undo" }).click();
  await visible(page.getByText("Restored: the newer fact is its history now."));
  // Now Jonas is the replaced one, by Lena: the page lists that supersession instead.
  await visible(page.getByRole("row", { name: /Omar's manager is Jonas\..*Omar's manager is Lena\./ }));
  expect(await managers()).toEqual(["Omar's manager is Lena."]);
});

test("possible duplicates: keeping one merges the others into it", async () => {
  const teach = await request(server.url, "/v1/admin/workspaces/acme/facts", {
    method: "POST",
    key: ADMIN,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      facts: [{ text: "The VPN config lives in the shared drive under IT." }, { text: "The VPN config lives in the shared drive under IT folder." }],
    }),
  });
  expect(teach.status).toBe(202);
  await page.getByRole("link", { name: "Facts" }).click();
  await page.getByRole("link", { name: "Review" }).click();
  await page.getByRole("heading", { name: "Possible duplicates" }).waitFor();
  const item = page.getByRole("listitem").filter({ hasText: "The VPN config lives in the shared drive under IT." }).filter({ hasNotText: "folder" });
  await visible(item);
  await shot("11b-duplicates");
  await item.getByRole("button", { name: "Keep this" }).click();
  await visible(page.getByText("Kept one fact; 1 merged into it."));
  await visible(page.getByText("No possible duplicates."));
});

test("forget in bulk: a preview count, the run confirmed with it, the log, and memory without those facts", async () => {
  const form = page.getByRole("form", { name: "Forget in bulk" });
  await form.getByLabel("Text contains").fill("Omar's manager");
  await form.getByRole("button", { name: "Preview" }).click();
  await visible(page.getByText("2 facts match, their history included."));
  page.once("dialog", (dialog) => dialog.accept());
  await form.getByRole("button", { name: "Forget 2 facts" }).click();
  await visible(page.getByText("Forgot 2 facts."));
  await expectText(page.getByRole("row", { name: /text_contains: Omar's manager/ }), "2 of 2");
  await expectText(page.getByRole("row", { name: /text_contains: Omar's manager/ }), "completed");
  await shot("12-forget");
  const found = await request(server.url, "/v1/admin/workspaces/acme/search", {
    method: "POST",
    key: ADMIN,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "who is Omar's manager", limit: 5 }),
  });
  expect((found.json as { data: { facts: { fact_text: string }[] } }).data.facts.filter((f) => f.fact_text.startsWith("Omar"))).toEqual([]);
});

test("end users: forgetting needs the typed id, then the person is gone", async () => {
  await page.getByRole("link", { name: "End users" }).click();
  await visible(page.getByRole("row", { name: /Dana/ }));
  await shot("09-end-users");
  page.once("dialog", (dialog) => dialog.accept("u-9"));
  await page.getByRole("row", { name: /Dana/ }).getByRole("button", { name: "Forget" }).click();
  await visible(page.getByText("No end users yet"));
});

test("capture model: turned on and off from the overview with its status; its decisions and who decided each supersession in Review", async () => {
  // Its own server: with an Anthropic key configured, the agents on auto above would call it too. The model is a fake that
  // reads memoryd's prompt: it relabels two known pairs, and fails every call that shows the garage closed for repairs.
  const pairs: Record<string, string> = {
    "The weekly sync is on Thursdays now.": "The weekly sync happens on Mondays.",
    "Is the weekly review on Fridays?": "The weekly review is on Wednesdays.",
  };
  const oracle = oracleResponder((newer, older) => (pairs[newer] === older ? "replaces" : undefined));
  const fake = createFakeAnthropic({
    responder: (body) =>
      isJudging(body) && promptOf(body).includes("closed for repairs") ? { error: { status: 400, message: "fake: bad request" } } : oracle(body),
  });
  const own = await startServer({
    dataDir: join(tempDir(), "capture"),
    env: { MEMORYD_ADMIN_TOKEN: ADMIN, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: fake.url },
  });
  const tab = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  tab.on("pageerror", (error) => pageErrors.push(String(error)));
  const admin = (method: string, path: string, body?: unknown) =>
    request(own.url, path, {
      method,
      key: ADMIN,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const teach = async (text: string) => expect((await admin("POST", "/v1/admin/workspaces/crm/facts", { facts: [{ text }] })).status).toBe(202);
  const status = async () => (await admin("GET", "/v1/admin/workspaces/crm/capture-model")).json.data;
  const until = async (what: string, ready: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 20_000; !(await ready()); await Bun.sleep(100)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    }
  };
  const idle = () => until("the queue is empty", async () => ((s) => s.jobs.queued + s.jobs.running === 0)(await status()));
  try {
    expect((await admin("POST", "/v1/admin/workspaces", { slug: "crm" })).status).toBe(201);
    await tab.goto(`${own.url}/app`);
    await tab.getByLabel("Admin token").fill(ADMIN);
    await tab.getByRole("button", { name: "Sign in" }).click();
    await tab.getByRole("heading", { name: "Workspaces" }).waitFor();
    await tab.getByRole("link", { name: "crm" }).click();
    await tab.getByRole("heading", { name: "Capture model" }).waitFor();
    const section = tab.locator("[data-capture-status]");
    await expectText(section, "Capture is model-free only");
    await expectText(section, "0 of 200,000 tokens today");

    // A provider this server lacks is refused next to its field, the way the app shows every refusal.
    const form = tab.getByRole("form", { name: "Capture model settings" });
    await form.getByLabel("Provider").selectOption("openai");
    await form.getByRole("button", { name: "Turn on" }).click();
    await expectText(form.getByRole("alert"), "openai provider is not configured");
    expect(await form.getByLabel("Provider").getAttribute("aria-invalid")).toBe("true");
    await shot("13-capture-model-refused", tab);

    await form.getByLabel("Provider").selectOption("anthropic");
    await form.getByLabel(/Model/).fill("claude-capture");
    await form.getByLabel("Daily token budget").fill("50000");
    await form.getByRole("button", { name: "Turn on" }).click();
    await visible(tab.getByText("Capture model on."));
    await expectText(tab.locator("[data-capture-status=on]"), "anthropic/claude-capture");
    await expectText(tab.locator("[data-capture-status=on]"), "0 of 50,000 tokens today");
    expect(await status()).toMatchObject({ enabled: true, provider: "anthropic", model: "claude-capture", daily_token_budget: 50_000 });

    // The model replaces one fact and is vetoed on the other (a question never replaces); the rules replace a manager.
    await teach("The weekly sync happens on Mondays.");
    await teach("The weekly review is on Wednesdays.");
    await teach("Omar's manager is Lena.");
    await idle();
    await teach("The weekly sync is on Thursdays now.");
    await teach("Is the weekly review on Fridays?");
    await teach("Omar's manager is Jonas.");
    await until("the model decided twice", async () => (await admin("GET", "/v1/admin/workspaces/crm/capture-decisions")).json.data.decisions.length >= 2);
    await idle();

    await tab.getByRole("link", { name: "Review" }).click();
    await tab.getByRole("heading", { name: "Capture model decisions" }).waitFor();
    const byModel = tab.getByRole("row", { name: /weekly sync happens on Mondays\..*weekly sync is on Thursdays now\./ });
    await expectText(byModel, "by model anthropic/claude-capture: oracle: replaces");
    await expectText(tab.getByRole("row", { name: /Omar's manager is Lena\..*Omar's manager is Jonas\./ }), "by the rules: ");
    const vetoed = tab.getByRole("row", { name: /vetoed by not_a_plain_statement/ });
    await expectText(vetoed, "oracle: replaces");
    const applied = tab.getByRole("row").filter({ has: tab.locator(".pill.ok", { hasText: "applied" }) });
    await expectText(applied, "replaces");
    // A fact id opens the fact: its text, its other versions and the model's decision about it.
    await applied.getByRole("button").last().click();
    await expectText(applied, "The weekly sync happens on Mondays.");
    await expectText(applied, "Replaced by: The weekly sync is on Thursdays now.");
    await expectText(applied, "Decided by the capture model:");
    await shot("14-capture-decisions", tab);

    // Undo works on the model's supersession as on the rules': the decision says it was undone.
    await byModel.getByRole("button", { name: "Undo" }).click();
    await visible(tab.getByText("Restored: the newer fact is its history now."));
    const undone = tab.getByRole("row").filter({ has: tab.locator(".pill", { hasText: "undone" }) });
    await visible(undone);
    // Only the vetoed ones: the undone decision leaves the list.
    await tab.getByRole("combobox", { name: /^Show/ }).selectOption("true");
    await undone.first().waitFor({ state: "detached" });
    await expectText(tab.locator("main table").nth(1), "vetoed by not_a_plain_statement");
    expect(await tab.locator("main table").nth(1).locator("tbody tr").count()).toBe(1);

    // The facts page's history lists the model's decisions too.
    await tab.getByRole("link", { name: "Facts" }).click();
    await tab.getByRole("search", { name: "Filter facts" }).getByLabel("Text").fill("Thursdays");
    await tab.getByRole("checkbox", { name: "Include history" }).check();
    await tab.getByRole("button", { name: "Search" }).click();
    const thursdays = tab.getByRole("row", { name: /weekly sync is on Thursdays now/ });
    await thursdays.getByRole("button", { name: "History" }).click();
    await expectText(thursdays, "Decided by the capture model:");
    await expectText(thursdays, "undone");

    // A failing call: the status shows tokens used, the jobs and the last error.
    await teach("The parking garage opens at 7am.");
    await idle();
    await teach("The parking garage is closed for repairs on Friday.");
    await until("the call failed", async () => (await status()).last_error !== null);
    await tab.getByRole("link", { name: "Overview" }).click();
    const on = tab.locator("[data-capture-status=on]");
    await expectText(on, "Last error:");
    await expectText(on, "done");
    expect((await status()).tokens_today).toBeGreaterThan(0);
    expect((await on.textContent()) ?? "").toMatch(/[1-9][\d,]* of 50,000 tokens today/);

    // A budget smaller than what today used: spent.
    await form.getByLabel("Daily token budget").fill("1");
    await form.getByRole("button", { name: "Save" }).click();
    await visible(tab.getByText("Capture model saved."));
    await expectText(tab.locator("[data-capture-status=on]"), "Budget spent");
    await shot("15-capture-model-on", tab);

    tab.once("dialog", (dialog) => dialog.accept());
    await form.getByRole("button", { name: "Turn off" }).click();
    await visible(tab.getByText("Capture model off."));
    await expectText(tab.locator("[data-capture-status=off]"), "Capture is model-free only");
    await visible(form.getByRole("button", { name: "Turn on" }));
    expect(await status()).toMatchObject({ enabled: false, provider: null });
  } finally {
    await tab.close();
    await own.stop();
    await fake.stop();
  }
});

test("on a phone-sized screen the app still lays out, and signing out ends the session", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("link", { name: "Overview" }).click();
  await page.getByRole("heading", { name: "acme", level: 1 }).waitFor();
  await shot("10-phone");
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  const denied = await request(server.url, "/v1/admin/workspaces");
  expect(denied.status).toBe(401);
  expect(pageErrors).toEqual([]);
  console.log(`screenshots: ${shots}`);
});

/** The application's redirect target on loopback: it records what the browser brings back. */
function redirectTarget(): { callback: ReturnType<typeof Bun.serve>; received: URL[] } {
  const received: URL[] = [];
  const callback = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      received.push(new URL(req.url));
      return new Response("<p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
  return { callback, received };
}

test("a person allows an MCP client on the consent page and the client calls tools with what was granted", async () => {
  const { callback, received } = redirectTarget();
  try {
    expect(server.secret).toMatch(/^ak_test_/);
    const provider = new MemoryOAuthProvider(`http://127.0.0.1:${callback.port}/callback`);
    const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider });
    await expect(new Client({ name: "browser-flow", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    const consent = await browser.newPage();
    await consent.goto(provider.authorizationUrl!.href);
    await consent.getByRole("heading", { name: /Allow Test Connector/ }).waitFor();
    await consent.getByLabel(/answers\.write/).uncheck();
    await consent.getByLabel("API key of the workspace").fill(server.secret!);
    await consent.getByRole("button", { name: "Allow" }).click();
    await consent.waitForURL((url) => url.port === String(callback.port));
    await consent.close();
    const back = received.find((url) => url.pathname === "/callback")!;
    expect(back.searchParams.get("state")).toBe("state-123");
    expect(back.searchParams.get("iss")).toBe(server.url);

    await transport.finishAuth(back.searchParams.get("code")!);
    const client = new Client({ name: "browser-flow", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider }));
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(["get_memory_context", "search_memory", "teach_memory", "whoami"]);
    expect(provider.saved?.scope).toBe("memory.read memory.write");
    await client.close();
  } finally {
    callback.stop(true);
  }
});

test("a client identified by its metadata document completes authorization in the browser", async () => {
  const { callback, received } = redirectTarget();
  const redirect = `http://127.0.0.1:${callback.port}/callback`;
  const docs = documentServer((origin) => ({
    "/connector.json": [200, JSON.stringify({ client_id: `${origin}/connector.json`, client_name: "Document Connector", redirect_uris: [redirect] })],
  }));
  try {
    const metadataUrl = `https://localhost:${docs.port}/connector.json`;
    const provider = new MemoryOAuthProvider(redirect, metadataUrl);
    const transport = new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider });
    await expect(new Client({ name: "browser-cimd", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBe(metadataUrl);

    const consent = await browser.newPage();
    await consent.goto(provider.authorizationUrl!.href);
    await consent.getByRole("heading", { name: /Allow Document Connector/ }).waitFor();
    await consent.getByText(`published at localhost:${docs.port}`).waitFor();
    await consent.getByLabel("API key of the workspace").fill(server.secret!);
    await consent.getByRole("button", { name: "Allow" }).click();
    await consent.waitForURL((url) => url.port === String(callback.port));
    await consent.close();
    const back = received.find((url) => url.pathname === "/callback")!;
    expect(back.searchParams.get("iss")).toBe(server.url);

    await transport.finishAuth(back.searchParams.get("code")!);
    const client = new Client({ name: "browser-cimd", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/v1/mcp", server.url), { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("search_memory");
    await client.close();
  } finally {
    docs.stop(true);
    callback.stop(true);
  }
});
