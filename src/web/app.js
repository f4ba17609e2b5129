// @ts-check
// The settings app: a small page over the admin API (/v1/admin). No framework and no innerHTML:
// every value from the server becomes text through h(), so stored facts cannot inject markup.
// Type-checked by tsconfig.web.json (strict, DOM types).

/**
 * An element the page (src/web/page.ts) always has.
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el;
}

const main = byId("main");
const nav = byId("nav");
const signOut = byId("sign-out");
/** @type {string | null} */
let csrfToken = null;

/** Builds an element: h("button", { class: "danger", onclick }, "Delete"). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function toast(message) {
  const note = h("p", {}, message);
  byId("toast").append(note);
  setTimeout(() => note.remove(), 4000);
}

/**
 * A button's action: its failure is shown (a toast with the server's message) instead of lost in
 * an unhandled promise. A 401 has already sent the person back to sign in.
 */
function action(run) {
  return async (event) => {
    try {
      await run(event);
    } catch (error) {
      const failure = failureOf(error);
      if (failure.status !== 401) toast(`Failed: ${failure.message}`);
    }
  };
}

/**
 * What a caught error says: the server's failure as it came, anything else as a failure with no status.
 * @param {unknown} error
 * @returns {ApiFailure}
 */
function failureOf(error) {
  if (error instanceof ApiFailure) return error;
  return new ApiFailure(0, { error: { message: error instanceof Error ? error.message : String(error) } });
}

/** The page's slot for a secret shown once (keys, webhooks). */
function secretSlot() {
  const slot = main.querySelector("[data-secret]");
  if (slot === null) throw new Error("the page has no secret slot");
  return slot;
}

class ApiFailure extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `request failed (${status})`);
    this.status = status;
    this.fields = body?.error?.details?.fields ?? [];
  }
}

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  const res = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401) {
    csrfToken = null;
    renderSignIn();
    throw new ApiFailure(401, await res.json().catch(() => null));
  }
  const type = res.headers.get("content-type") ?? "";
  const payload = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) throw new ApiFailure(res.status, payload);
  return type.includes("json") ? payload.data : payload;
}

/** Runs a form's action; errors appear next to the form (and the field the server named). */
function formAction(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    for (const e of form.querySelectorAll(".error")) e.remove();
    for (const e of form.querySelectorAll("[aria-invalid]")) e.removeAttribute("aria-invalid");
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      await action(new FormData(form));
    } catch (caught) {
      const error = failureOf(caught);
      for (const field of error.fields) {
        const input = form.querySelector(`[name="${CSS.escape(field.path.split(/[.[]/)[0])}"]`);
        if (input) input.setAttribute("aria-invalid", "true");
      }
      form.append(h("p", { class: "error", role: "alert" }, error.message));
    } finally {
      if (button) button.disabled = false;
    }
  });
  return form;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
const path = (slug) => `/v1/admin/workspaces/${encodeURIComponent(slug)}`;
const table = (headers, rows, empty) =>
  rows.length === 0
    ? h("div", { class: "panel empty" }, empty)
    : h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              headers.map((t) => h("th", { scope: "col" }, t)),
            ),
          ),
          h("tbody", {}, rows),
        ),
      );

function show(title, ...content) {
  main.replaceChildren(h("h1", {}, title), ...content.filter((part) => part !== null && part !== undefined));
  main.focus();
}

function renderSignIn(message) {
  nav.hidden = true;
  signOut.hidden = true;
  const form = h(
    "form",
    { class: "panel signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Sign in"),
    h("p", { class: "muted" }, "Use the admin token memoryd printed on its first start, or MEMORYD_ADMIN_TOKEN."),
    h("label", {}, "Admin token", h("input", { name: "token", type: "password", autocomplete: "current-password", required: true })),
    h("p", {}, h("button", { type: "submit" }, "Sign in")),
    message ? h("p", { class: "error", role: "alert" }, message) : null,
  );
  formAction(form, async (data) => {
    const res = await fetch("/app/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ token: data.get("token") }),
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) throw new ApiFailure(res.status, body);
    csrfToken = body.data.csrf_token;
    location.hash = "#/";
    route();
  });
  main.replaceChildren(form);
  form.querySelector("input").focus();
}

function renderNav(slug, current) {
  nav.hidden = false;
  signOut.hidden = false;
  const link = (href, text, key) => h("a", { href, "aria-current": key === current ? "page" : null }, text);
  nav.replaceChildren(
    h("h2", {}, "memoryd"),
    link("#/", "Workspaces", "workspaces"),
    ...(slug
      ? [
          h("h2", {}, slug),
          link(`#/w/${slug}`, "Overview", "overview"),
          link(`#/w/${slug}/keys`, "API keys", "keys"),
          link(`#/w/${slug}/agents`, "Agents", "agents"),
          link(`#/w/${slug}/team`, "Team", "team"),
          link(`#/w/${slug}/facts`, "Facts", "facts"),
          link(`#/w/${slug}/review`, "Review", "review"),
          link(`#/w/${slug}/end-users`, "End users", "end-users"),
          link(`#/w/${slug}/answers`, "Answers", "answers"),
          link(`#/w/${slug}/webhooks`, "Webhooks", "webhooks"),
        ]
      : []),
  );
}

async function workspacesPage() {
  renderNav(null, "workspaces");
  const { workspaces } = await api("GET", "/v1/admin/workspaces");
  const create = formAction(
    h(
      "form",
      { class: "panel inline", "aria-label": "New workspace" },
      h("label", {}, "Slug", h("input", { name: "slug", required: true, pattern: "[a-z0-9][a-z0-9_\\-]{0,62}", placeholder: "acme" })),
      h("label", {}, "Credits", h("input", { name: "credits", type: "number", min: 0, value: 0 })),
      h("button", { type: "submit" }, "Create workspace"),
    ),
    async (data) => {
      const ws = await api("POST", "/v1/admin/workspaces", { slug: data.get("slug"), credits: Number(data.get("credits") || 0) });
      location.hash = `#/w/${ws.slug}`;
    },
  );
  show(
    "Workspaces",
    create,
    table(
      ["Workspace", "Credits", "Live facts"],
      workspaces.map((w) => h("tr", {}, h("td", {}, h("a", { href: `#/w/${w.slug}` }, w.slug)), h("td", {}, w.credits), h("td", {}, w.live_facts))),
      "No workspaces yet: create the first one above.",
    ),
  );
}

async function overviewPage(slug) {
  const ws = await api("GET", path(slug));
  const card = (value, label) => h("div", { class: "card" }, h("b", {}, value), h("span", {}, label));
  const credits = formAction(
    h(
      "form",
      { class: "panel inline", "aria-label": "Change credits" },
      h("label", {}, "Credits", h("input", { name: "amount", type: "number", required: true })),
      h("label", {}, "Change", h("select", { name: "mode" }, h("option", { value: "add" }, "Add"), h("option", { value: "set" }, "Set to"))),
      h("button", { type: "submit" }, "Apply"),
    ),
    async (data) => {
      await api("POST", `${path(slug)}/credits`, { mode: data.get("mode"), amount: Number(data.get("amount")) });
      toast("Credits updated.");
      route();
    },
  );
  show(
    slug,
    h(
      "div",
      { class: "cards" },
      card(ws.credits, "credits"),
      card(ws.live_facts, "live facts"),
      card(ws.active_keys, "active keys"),
      card(ws.end_users, "end users"),
      card(ws.answers, "answers"),
    ),
    credits,
    ...(await captureModelSection(slug)),
  );
}

/**
 * The workspace's capture model (opt-in): its status (model, today's tokens of the budget, the
 * queue, the last failure), the form that turns it on or changes it, and the button that turns it off.
 */
async function captureModelSection(slug) {
  const status = await api("GET", `${path(slug)}/capture-model`);
  const count = (n) => Number(n).toLocaleString();
  const jobs = ["queued", "running", "done", "failed", "refused"].map((state) =>
    h("span", { class: `pill${state === "failed" && status.jobs[state] > 0 ? " bad" : ""}` }, `${count(status.jobs[state])} ${state}`),
  );
  const summary = h(
    "div",
    { class: "panel", "data-capture-status": status.enabled ? "on" : "off" },
    status.enabled
      ? h("p", {}, h("span", { class: "pill ok" }, "on"), " ", h("strong", {}, `${status.provider}/${status.model}`))
      : h("p", {}, h("span", { class: "pill" }, "off"), " Capture is model-free only: the rules alone decide."),
    h(
      "p",
      {},
      `${count(status.tokens_today)} of ${count(status.daily_token_budget)} tokens today`,
      h("span", { class: "muted" }, ` (${count(status.calls_today)} calls since 00:00 UTC)`),
    ),
    status.budget_spent ? h("p", { class: "notice" }, "Budget spent: new work is refused until 00:00 UTC.") : null,
    h("p", {}, h("span", { class: "muted" }, "Jobs: "), jobs),
    status.last_error ? h("p", { class: "error" }, `Last error: ${status.last_error}`) : null,
  );
  const model = h("input", { name: "model", maxlength: 200, value: status.enabled ? (status.model ?? "") : "", placeholder: "server default" });
  const form = formAction(
    h(
      "form",
      { class: "panel inline", "aria-label": "Capture model settings" },
      h(
        "label",
        {},
        "Provider",
        h(
          "select",
          {
            name: "provider",
            onchange: () => {
              model.value = "";
            },
          },
          ["anthropic", "openai"].map((p) => h("option", { value: p, selected: p === status.provider }, p)),
        ),
      ),
      h("label", {}, "Model (empty: server default)", model),
      h(
        "label",
        {},
        "Daily token budget",
        h("input", { name: "daily_token_budget", type: "number", min: 0, max: 1_000_000_000, step: 1, value: status.daily_token_budget }),
      ),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit" }, status.enabled ? "Save" : "Turn on"),
        status.enabled
          ? h(
              "button",
              {
                class: "danger",
                type: "button",
                onclick: action(async () => {
                  if (!confirm("Turn the capture model off? Jobs still waiting end as failed; facts stay as the rules left them.")) return;
                  await api("DELETE", `${path(slug)}/capture-model`);
                  toast("Capture model off.");
                  await overviewPage(slug);
                }),
              },
              "Turn off",
            )
          : null,
      ),
    ),
    async (data) => {
      const name = String(data.get("model") ?? "").trim();
      const budget = String(data.get("daily_token_budget") ?? "");
      await api("PUT", `${path(slug)}/capture-model`, {
        provider: data.get("provider"),
        ...(name ? { model: name } : {}),
        ...(budget ? { daily_token_budget: Number(budget) } : {}),
      });
      toast(status.enabled ? "Capture model saved." : "Capture model on.");
      await overviewPage(slug);
    },
  );
  return [
    h("h2", {}, "Capture model"),
    h(
      "p",
      { class: "muted" },
      "An LLM that judges whether a newly taught fact replaces, updates or duplicates older ones, and extracts facts from conversations. ",
      "Review lists ",
      h("a", { href: `#/w/${slug}/review` }, "its decisions"),
      ".",
    ),
    summary,
    form,
  ];
}

function keyState(k) {
  if (k.revoked_at) return h("span", { class: "pill bad" }, "revoked");
  if (k.expires_at && new Date(k.expires_at) <= new Date()) return h("span", { class: "pill bad" }, "expired");
  return h("span", { class: "pill ok" }, "active");
}

async function keysPage(slug) {
  const { keys } = await api("GET", `${path(slug)}/keys`);
  const secretBox = h("div", { "aria-live": "polite" });
  const scopes = ["memory.read", "memory.write", "answers.write"];
  const create = formAction(
    h(
      "form",
      { class: "panel inline", "aria-label": "New API key" },
      h("label", {}, "Name", h("input", { name: "name", required: true, placeholder: "support bot" })),
      h(
        "fieldset",
        { class: "actions" },
        h("legend", { class: "muted" }, "Scopes"),
        scopes.map((s) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "scopes", value: s, checked: s !== "answers.write" }), s)),
      ),
      h(
        "label",
        {},
        "Audience",
        h("select", { name: "audience" }, h("option", { value: "internal" }, "internal"), h("option", { value: "external" }, "external")),
      ),
      h("label", {}, "Expires (optional)", h("input", { name: "expires_at", type: "datetime-local" })),
      h("button", { type: "submit" }, "Create key"),
    ),
    async (data) => {
      const expires = data.get("expires_at");
      const key = await api("POST", `${path(slug)}/keys`, {
        name: data.get("name"),
        scopes: data.getAll("scopes"),
        audience: data.get("audience"),
        ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
      });
      await keysPage(slug);
      const copy = h("button", { type: "button", class: "secondary" }, "Copy");
      copy.addEventListener("click", async () => {
        await navigator.clipboard.writeText(key.secret).then(
          () => toast("Copied."),
          () => toast("Copy failed: select the key and copy it."),
        );
      });
      secretSlot().replaceChildren(
        h(
          "div",
          { class: "secret", role: "alert" },
          h("strong", {}, `Secret of "${key.name}": shown once, store it now.`),
          h("code", { "data-key-secret": true }, key.secret),
          copy,
        ),
      );
    },
  );
  secretBox.setAttribute("data-secret", "");
  const rows = keys.map((k) =>
    h(
      "tr",
      {},
      h("td", {}, k.name),
      h("td", {}, h("code", {}, k.prefix)),
      h("td", {}, keyState(k)),
      h(
        "td",
        {},
        k.scopes.map((s) => h("span", { class: "pill" }, s)),
      ),
      h("td", {}, k.audience),
      h("td", {}, when(k.last_used_at)),
      h(
        "td",
        {},
        k.revoked_at
          ? null
          : h(
              "button",
              {
                class: "danger",
                type: "button",
                onclick: action(async () => {
                  if (!confirm(`Revoke "${k.name}"? Requests with it fail at once.`)) return;
                  await api("POST", `/v1/admin/keys/${encodeURIComponent(k.id)}/revoke`);
                  toast(`Revoked ${k.name}.`);
                  keysPage(slug);
                }),
              },
              "Revoke",
            ),
      ),
    ),
  );
  show("API keys", secretBox, create, table(["Name", "Prefix", "State", "Scopes", "Audience", "Last used", ""], rows, "No keys yet."));
}

function agentForm(slug, agent) {
  const creating = agent === undefined;
  const a = agent ?? { slug: "", display_name: "", instructions: "", provider: "auto", model: null, can_write_memory: true, max_output_tokens: 1024 };
  return formAction(
    h(
      "form",
      { class: "panel", "aria-label": creating ? "New agent" : `Edit ${a.slug}` },
      creating
        ? h("label", {}, "Slug", h("input", { name: "slug", required: true, pattern: "[a-z0-9][a-z0-9_\\-]{0,62}", placeholder: "support" }))
        : h("h2", {}, a.slug),
      h("label", {}, "Display name", h("input", { name: "display_name", required: true, value: a.display_name })),
      h("label", {}, "Instructions (placed after memory in the system prompt)", h("textarea", { name: "instructions" }, a.instructions)),
      h(
        "div",
        { class: "actions" },
        h(
          "label",
          {},
          "Provider",
          h(
            "select",
            { name: "provider" },
            ["auto", "anthropic", "openai", "local"].map((p) => h("option", { value: p, selected: p === a.provider }, p)),
          ),
        ),
        h("label", {}, "Model (empty: server default)", h("input", { name: "model", value: a.model ?? "" })),
        h("label", {}, "Max output tokens", h("input", { name: "max_output_tokens", type: "number", min: 1, max: 64000, value: a.max_output_tokens })),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "can_write_memory", checked: a.can_write_memory }), "May write memory"),
      ),
      h("p", { class: "actions" }, h("button", { type: "submit" }, creating ? "Create agent" : "Save")),
    ),
    async (data) => {
      const settings = {
        display_name: data.get("display_name"),
        instructions: data.get("instructions"),
        provider: data.get("provider"),
        model: data.get("model") ? data.get("model") : null,
        max_output_tokens: Number(data.get("max_output_tokens")),
        can_write_memory: data.get("can_write_memory") === "on",
      };
      if (creating) await api("POST", `${path(slug)}/agents`, { slug: data.get("slug"), ...settings });
      else await api("PATCH", `${path(slug)}/agents/${encodeURIComponent(a.slug)}`, settings);
      toast(creating ? "Agent created." : "Agent saved.");
      agentsPage(slug);
    },
  );
}

async function agentsPage(slug) {
  const { agents } = await api("GET", `${path(slug)}/agents`);
  const rows = agents.map((a) =>
    h(
      "tr",
      {},
      h("td", {}, h("strong", {}, a.display_name), h("div", { class: "muted" }, a.slug)),
      h("td", {}, `${a.provider} · ${a.model ?? "default model"}`),
      h("td", {}, a.can_write_memory ? "read and write" : "read only"),
      h(
        "td",
        {},
        h(
          "div",
          { class: "actions" },
          h("button", { class: "secondary", type: "button", onclick: () => main.append(agentForm(slug, a)) }, "Edit"),
          a.slug === "main"
            ? null
            : h(
                "button",
                {
                  class: "danger",
                  type: "button",
                  onclick: action(async () => {
                    if (!confirm(`Delete agent "${a.slug}"? Its answers are kept.`)) return;
                    await api("DELETE", `${path(slug)}/agents/${encodeURIComponent(a.slug)}`);
                    agentsPage(slug);
                  }),
                },
                "Delete",
              ),
        ),
      ),
    ),
  );
  show("Agents", table(["Agent", "Model", "Memory", ""], rows, "No agents."), h("h2", {}, "New agent"), agentForm(slug));
}

async function teamPage(slug) {
  const { members } = await api("GET", `${path(slug)}/team`);
  const add = formAction(
    h(
      "form",
      { class: "panel inline", "aria-label": "Add team member" },
      h("label", {}, "Name", h("input", { name: "name", required: true, placeholder: "Priya Shah" })),
      h("button", { type: "submit" }, "Add"),
    ),
    async (data) => {
      await api("POST", `${path(slug)}/team`, { name: data.get("name") });
      teamPage(slug);
    },
  );
  const rows = members.map((name) =>
    h(
      "tr",
      {},
      h("td", {}, name),
      h(
        "td",
        {},
        h(
          "button",
          {
            class: "danger",
            type: "button",
            onclick: action(async () => {
              await api("DELETE", `${path(slug)}/team/${encodeURIComponent(name)}`);
              teamPage(slug);
            }),
          },
          "Remove",
        ),
      ),
    ),
  );
  show(
    "Team",
    h("p", { class: "muted" }, "Facts about team members are team facts: external keys never see them."),
    add,
    table(["Name", ""], rows, "No team members yet."),
  );
}

/** A fact's expiry: when it stops (or stopped) being served. */
function expiry(at) {
  const past = Date.parse(at) <= Date.now();
  return h("div", {}, h("span", { class: past ? "pill bad" : "pill" }, `${past ? "expired" : "expires"} ${when(at)}`));
}

/** A fact's other versions, and what the capture model decided about it (GET /v1/admin/facts/:fact_id). */
function historyView(history) {
  const line = (x, label) => h("li", {}, `${label}: ${x.text} (${when(x.recorded_time)})`);
  return h(
    "div",
    {},
    history.replaced.length + history.replaced_by.length === 0
      ? h("p", { class: "muted" }, "No other version of this claim.")
      : h(
          "ul",
          {},
          history.replaced_by.map((x) => line(x, "Replaced by")),
          history.replaced.map((x) => line(x, "Replaced")),
        ),
    history.model_decisions.length === 0
      ? null
      : h(
          "div",
          {},
          h("p", { class: "muted" }, "Decided by the capture model:"),
          h(
            "ul",
            {},
            history.model_decisions.map((d) => {
              const opened = h("div");
              return h(
                "li",
                {},
                decisionWhat(d, opened),
                " ",
                decisionState(d),
                h("div", { class: "muted" }, `${d.reason} (by model ${d.model}, ${d.prompt}, ${when(d.created_at)})`),
                opened,
              );
            }),
          ),
        ),
  );
}

/**
 * A fact named by its id, as the app opens facts: like the Facts page's History, a click shows the
 * fact (its text) and its history in `into`.
 */
function factLink(factId, into) {
  return h(
    "button",
    {
      class: "link",
      type: "button",
      title: "Show this fact and its history",
      onclick: action(async () => {
        const history = await api("GET", `/v1/admin/facts/${encodeURIComponent(factId)}`);
        into.replaceChildren(
          h(
            "div",
            { class: "opened" },
            h(
              "p",
              {},
              h("code", {}, factId),
              ": ",
              history.fact.text,
              history.fact.superseded_by ? [" ", h("span", { class: "pill bad" }, "superseded")] : null,
            ),
            historyView(history),
          ),
        );
      }),
    },
    h("code", {}, factId),
  );
}

const DECISION_VERBS = { replaces: "replaces", updates: "updates", duplicate: "duplicates" };

/** What a decision of the capture model says, its facts as links that open in `into`. */
function decisionWhat(d, into) {
  const fact = (id) => (id === null ? "—" : factLink(id, into));
  if (d.label === "extracted") {
    return h(
      "span",
      {},
      d.fact_id === null ? `“${d.proposed_text ?? ""}” (not stored)` : fact(d.fact_id),
      " extracted from a conversation",
      d.target_id === null ? null : [", in place of the statement ", fact(d.target_id)],
    );
  }
  return h("span", {}, fact(d.fact_id), ` ${DECISION_VERBS[d.label] ?? d.label} `, fact(d.target_id));
}

/** What became of a decision: vetoed by a gate, applied, or applied and undone in Review. */
function decisionState(d) {
  if (d.vetoed_by !== null) return h("span", { class: "pill bad" }, `vetoed by ${d.vetoed_by}`);
  return d.undone ? h("span", { class: "pill" }, "undone") : h("span", { class: "pill ok" }, "applied");
}

async function factsPage(slug, params) {
  const query = new URLSearchParams(params);
  const page = await api("GET", `${path(slug)}/facts?${query}`);
  const filters = h(
    "form",
    { class: "panel inline", role: "search", "aria-label": "Filter facts" },
    h("label", {}, "Text", h("input", { name: "query", value: query.get("query") ?? "", placeholder: "manager" })),
    h(
      "label",
      {},
      "Kind",
      h(
        "select",
        { name: "kind" },
        ["", "decision", "preference", "profile_fact", "observation"].map((k) =>
          h("option", { value: k, selected: k === (query.get("kind") ?? "") }, k || "any"),
        ),
      ),
    ),
    h("label", {}, "End user", h("input", { name: "end_user", value: query.get("end_user") ?? "" })),
    h("label", {}, "Agent", h("input", { name: "agent", value: query.get("agent") ?? "", placeholder: "its own facts" })),
    h(
      "label",
      {},
      "Not recalled in (days)",
      h("input", { name: "not_recalled_days", type: "number", min: "1", max: "3650", value: query.get("not_recalled_days") ?? "" }),
    ),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "pinned", value: "true", checked: query.get("pinned") === "true" }), "Pinned"),
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", name: "include_superseded", value: "true", checked: query.get("include_superseded") === "true" }),
      "Include history",
    ),
    h("button", { type: "submit" }, "Search"),
  );
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(filters)) if (v) next.set(k, String(v));
    location.hash = `#/w/${slug}/facts?${next}`;
  });
  const rows = page.facts.map((f) => {
    const detail = h("div");
    return h(
      "tr",
      {},
      h("td", {}, f.text, f.superseded_by ? h("div", {}, h("span", { class: "pill bad" }, "superseded")) : null, detail),
      h(
        "td",
        {},
        h("span", { class: "pill" }, f.kind),
        f.pinned ? h("span", { class: "pill ok" }, "pinned") : null,
        f.sensitive ? h("span", { class: "pill bad" }, "sensitive") : null,
      ),
      h(
        "td",
        {},
        f.subject,
        f.end_user ? h("div", { class: "muted" }, `end user ${f.end_user.id}`) : null,
        f.agent ? h("div", { class: "muted" }, `agent ${f.agent}'s own`) : null,
      ),
      h(
        "td",
        {},
        when(f.recorded_time),
        f.expires_at ? expiry(f.expires_at) : null,
        h("div", { class: "muted recall" }, f.recall_count === 0 ? "never recalled" : `recalled ${f.recall_count}×, last ${when(f.last_recalled_at)}`),
        f.taught_via
          ? h(
              "div",
              { class: "muted" },
              `via ${f.taught_via}${f.taught_by_key ? `, key ${f.taught_by_key}` : ""}${f.taught_by_agent ? `, as agent ${f.taught_by_agent}` : ""}`,
            )
          : null,
      ),
      h(
        "td",
        {},
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            {
              class: "secondary",
              type: "button",
              onclick: action(async () => {
                await api("POST", `/v1/admin/facts/${encodeURIComponent(f.fact_id)}/${f.pinned ? "unpin" : "pin"}`);
                route();
              }),
            },
            f.pinned ? "Unpin" : "Pin",
          ),
          h(
            "button",
            {
              class: "link",
              type: "button",
              onclick: action(async () => {
                detail.replaceChildren(historyView(await api("GET", `/v1/admin/facts/${encodeURIComponent(f.fact_id)}`)));
              }),
            },
            "History",
          ),
          h(
            "button",
            {
              class: "danger",
              type: "button",
              onclick: action(async () => {
                if (!confirm("Delete this fact everywhere?")) return;
                await api("DELETE", `/v1/admin/facts/${encodeURIComponent(f.fact_id)}`);
                toast("Fact deleted.");
                route();
              }),
            },
            "Delete",
          ),
        ),
      ),
    );
  });
  const more = page.next_cursor
    ? h("p", {}, h("a", { href: `#/w/${slug}/facts?${new URLSearchParams({ ...Object.fromEntries(query), cursor: page.next_cursor })}` }, "Older facts →"))
    : null;
  show("Facts", askMemory(slug), filters, table(["Fact", "Kind", "Subject", "Recorded", ""], rows, "No facts match."), more);
}

/** One signal of a ranked fact's explanation, as "name value" (only the ones that counted). */
function explanationLines(e) {
  const number = (x) => x.toFixed(2);
  const lines = [
    ...e.words.map((w) => `word “${w.query_term}” → “${w.fact_term}” ${number(w.score)}`),
    ...e.meaning.map((m) => `meaning “${m.query_term}” → “${m.fact_term}” (${m.via}, similarity ${number(m.similarity)}) ${number(m.score)}`),
  ];
  for (const name of ["subject", "end_user", "confidence", "recency", "question", "phrasing"]) {
    if (e[name] !== 0) lines.push(`${name.replace("_", " ")} ${number(e[name])}`);
  }
  const w = e.time_window;
  if (w) lines.push(`time “${w.expression}” (${w.from.slice(0, 10)} – ${w.to.slice(0, 10)}) ${number(e.time)}`);
  return lines;
}

/** The ranked search of an internal key, with explain: what a question finds and why. */
function askMemory(slug) {
  const results = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "panel inline", role: "search", "aria-label": "Ask memory" },
    h("label", {}, "Question", h("input", { name: "question", required: true, maxlength: 2000, placeholder: "which sports do I play?" })),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "explain", value: "true", checked: true }), "Explain"),
    h("button", { type: "submit" }, "Ask"),
  );
  formAction(form, async (data) => {
    const found = await api("POST", `${path(slug)}/search`, { query: data.get("question"), limit: 10, explain: data.get("explain") === "true" });
    results.replaceChildren(
      found.facts.length === 0
        ? h("p", { class: "muted" }, "Nothing in memory answers that.")
        : h(
            "ol",
            { class: "ranked" },
            found.facts.map((f) =>
              h(
                "li",
                {},
                f.fact_text,
                f.explanation ? h("div", { class: "muted" }, `score ${f.explanation.score.toFixed(2)}: ${explanationLines(f.explanation).join(" · ")}`) : null,
              ),
            ),
          ),
    );
  });
  return h("div", {}, form, results);
}

async function endUsersPage(slug) {
  const { end_users: users } = await api("GET", `${path(slug)}/end-users`);
  const rows = users.map((u) =>
    h(
      "tr",
      {},
      h("td", {}, u.name ?? u.id, h("div", { class: "muted" }, u.id)),
      h("td", {}, u.live_facts),
      h("td", {}, u.answers),
      h(
        "td",
        {},
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            {
              class: "secondary",
              type: "button",
              onclick: action(async () => {
                const text = await api("GET", `${path(slug)}/end-users/${encodeURIComponent(u.id)}/export`);
                const link = h("a", { href: URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" })), download: `${slug}-${u.id}.jsonl` });
                link.click();
              }),
            },
            "Export",
          ),
          h(
            "button",
            {
              class: "danger",
              type: "button",
              onclick: action(async () => {
                const typed = prompt(`Forget everything about "${u.id}"? This deletes their facts, answers and conversations. Type the id to confirm.`);
                if (typed !== u.id) return toast("Not forgotten: the id did not match.");
                const receipt = await api("POST", `${path(slug)}/end-users/${encodeURIComponent(u.id)}/forget`);
                toast(`Forgot ${u.id}: ${receipt.facts_deleted} facts, ${receipt.answers_deleted} answers.`);
                endUsersPage(slug);
              }),
            },
            "Forget",
          ),
        ),
      ),
    ),
  );
  show("End users", table(["End user", "Live facts", "Answers", ""], rows, "No end users yet: they appear when facts or answers name one."));
}

/** Who decided a supersession: the capture model (with its reason), else the rules' reason if they gave one. */
function decidedBy(s) {
  if (s.by_model) return h("div", { class: "muted", "data-decided": "model" }, `by model ${s.by_model.model}: ${s.by_model.reason}`);
  return s.replaced_by.link_reason ? h("div", { class: "muted", "data-decided": "rules" }, `by the rules: ${s.replaced_by.link_reason}`) : null;
}

/** Recent supersessions, each with undo: the replaced fact live again, the newer one kept or replaced as the operator chooses. */
async function reviewPage(slug) {
  const { supersessions } = await api("GET", `${path(slug)}/supersessions?limit=100`);
  const undo = (s, newer, label) =>
    h(
      "button",
      {
        class: newer === "supersede" ? "secondary" : "link",
        type: "button",
        onclick: action(async () => {
          await api("POST", `/v1/admin/facts/${encodeURIComponent(s.replaced.fact_id)}/restore`, { newer });
          toast(newer === "supersede" ? "Restored: the newer fact is its history now." : "Restored: both facts are live.");
          reviewPage(slug);
        }),
      },
      label,
    );
  const rows = supersessions.map((s) =>
    h(
      "tr",
      {},
      h("td", {}, s.replaced.text, h("div", { class: "muted" }, when(s.replaced.recorded_time))),
      h("td", {}, s.replaced_by.text, h("div", { class: "muted" }, when(s.replaced_by.recorded_time)), decidedBy(s)),
      // The claim's subject ("harbor foods" in "Lena Park took over as account owner for Harbor Foods"), not whom the sentence opens with.
      h(
        "td",
        {},
        s.replaced_by.claim_subject ?? s.replaced.claim_subject ?? s.replaced.subject,
        s.replaced.agent ? h("div", { class: "muted" }, `agent ${s.replaced.agent}'s own`) : null,
      ),
      h(
        "td",
        {},
        s.replaced.superseded_by === s.replaced_by.fact_id ? h("div", { class: "actions" }, undo(s, "supersede", "Undo"), undo(s, "keep", "Keep both")) : null,
      ),
    ),
  );
  show(
    "Review",
    h("h2", {}, "Recent supersessions"),
    h("p", { class: "muted" }, "A newer fact replaced each older one. Undo brings the older fact back; Keep both leaves the newer one live too."),
    table(["Replaced", "By", "Subject", ""], rows, "No fact has been replaced yet."),
    ...(await decisionsSection(slug)),
    ...(await duplicatesSection(slug)),
    ...(await forgetSection(slug)),
  );
}

/** The capture model's recent decisions, applied and vetoed: what it said, why, and what became of it. */
async function decisionsSection(slug) {
  const list = h("div", { "aria-live": "polite" });
  const load = async (vetoed) => {
    const { decisions } = await api("GET", `${path(slug)}/capture-decisions?limit=50${vetoed ? `&vetoed=${vetoed}` : ""}`);
    const rows = decisions.map((d) => {
      const opened = h("div");
      return h(
        "tr",
        {},
        h("td", {}, h("span", { class: "pill" }, d.label), h("div", {}, decisionWhat(d, opened)), opened),
        h("td", {}, d.reason),
        h("td", {}, decisionState(d)),
        h("td", {}, d.model, h("div", { class: "muted" }, `${d.prompt} · ${when(d.created_at)}`)),
      );
    });
    list.replaceChildren(table(["Decision", "Reason", "Outcome", "Model"], rows, "No decisions by the capture model yet."));
  };
  await load("");
  const filter = h(
    "label",
    { class: "filter" },
    "Show",
    h(
      "select",
      { name: "vetoed", onchange: action(async (event) => load(event.target.value)) },
      h("option", { value: "" }, "all"),
      h("option", { value: "false" }, "applied"),
      h("option", { value: "true" }, "vetoed"),
    ),
  );
  return [
    h("h2", {}, "Capture model decisions"),
    h(
      "p",
      { class: "muted" },
      "What the workspace's capture model decided, newest first: applied, undone here, or vetoed by a gate. ",
      h("a", { href: `#/w/${slug}` }, "Capture model settings"),
      " are on the workspace's first page.",
    ),
    filter,
    list,
  ];
}

/** Possible duplicates: facts of one subject that say nearly the same thing; keeping one makes the others its history. */
async function duplicatesSection(slug) {
  const { groups } = await api("GET", `${path(slug)}/duplicates`);
  const rows = groups.map((g) =>
    h(
      "tr",
      {},
      h("td", {}, g.subject, h("div", { class: "muted" }, `${Math.round(g.similarity * 100)}% alike`)),
      h(
        "td",
        {},
        h(
          "ul",
          {},
          g.facts.map((f) =>
            h(
              "li",
              {},
              f.text,
              " ",
              h(
                "button",
                {
                  class: "link",
                  type: "button",
                  onclick: action(async () => {
                    const merge = g.facts.filter((x) => x.fact_id !== f.fact_id).map((x) => x.fact_id);
                    const done = await api("POST", "/v1/admin/facts/merge", { keep: f.fact_id, merge });
                    toast(`Kept one fact; ${done.superseded.length} merged into it.`);
                    reviewPage(slug);
                  }),
                },
                "Keep this",
              ),
            ),
          ),
        ),
      ),
    ),
  );
  return [h("h2", {}, "Possible duplicates"), table(["Subject", "Facts"], rows, "No possible duplicates.")];
}

/** Forget in bulk: a filter, its preview count, the run confirmed with that count; and the audit log of runs. */
async function forgetSection(slug) {
  const { runs } = await api("GET", `${path(slug)}/forget-runs`);
  const field = (label, name, attrs = {}) => h("label", {}, label, h("input", { name, ...attrs }));
  const outcome = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "panel inline", "aria-label": "Forget in bulk" },
    field("Subject", "subject"),
    field("End user", "end_user"),
    field("Agent", "agent"),
    h(
      "label",
      {},
      "Kind",
      h(
        "select",
        { name: "kind" },
        ["", "decision", "preference", "profile_fact", "observation"].map((k) => h("option", { value: k }, k || "any")),
      ),
    ),
    h(
      "label",
      {},
      "Origin",
      h(
        "select",
        { name: "origin" },
        ["", "user_stated", "ingested", "agent_inferred", "agent_action", "system"].map((o) => h("option", { value: o }, o || "any")),
      ),
    ),
    field("Observed after", "observed_after", { type: "date" }),
    field("Observed before", "observed_before", { type: "date" }),
    field("Text contains", "text_contains"),
    h("button", { type: "submit" }, "Preview"),
    outcome,
  );
  const filterOf = () => {
    const filter = {};
    for (const [k, v] of new FormData(form)) if (v) filter[k] = k.startsWith("observed_") ? new Date(String(v)).toISOString() : String(v);
    return filter;
  };
  form.addEventListener(
    "submit",
    action(async (event) => {
      event.preventDefault();
      const filter = filterOf();
      const { count } = await api("POST", `${path(slug)}/forget/preview`, filter);
      const run = h(
        "button",
        {
          class: "danger",
          type: "button",
          onclick: action(async () => {
            if (!confirm(`Forget ${count} facts? This cannot be undone.`)) return;
            const done = await api("POST", `${path(slug)}/forget`, { filter, expected_count: count });
            toast(`Forgot ${done.deleted} facts.`);
            reviewPage(slug);
          }),
        },
        `Forget ${count} facts`,
      );
      outcome.replaceChildren(h("p", {}, `${count} facts match, their history included.`), count > 0 ? run : null);
    }),
  );
  const describe = (filter) =>
    Object.entries(filter)
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ");
  const logRows = runs.map((r) =>
    h(
      "tr",
      {},
      h("td", {}, describe(r.filter)),
      h("td", {}, `${r.deleted} of ${r.previewed}`, r.restored > 0 ? h("div", { class: "muted" }, `${r.restored} replaced facts live again`) : null),
      h("td", {}, h("span", { class: `pill ${r.status === "completed" ? "ok" : r.status === "failed" ? "bad" : ""}` }, r.status)),
      h("td", {}, when(r.started_at)),
    ),
  );
  return [
    h("h2", {}, "Forget in bulk"),
    form,
    h("h2", {}, "Forget log"),
    table(["Filter", "Forgotten", "Status", "Started"], logRows, "Nothing forgotten in bulk yet."),
  ];
}

async function answersPage(slug) {
  const { answers } = await api("GET", `${path(slug)}/answers`);
  const status = (s) => h("span", { class: `pill ${s === "completed" ? "ok" : s === "failed" ? "bad" : ""}` }, s);
  const rows = answers.map((a) =>
    h(
      "tr",
      {},
      h("td", {}, a.input, a.error_code ? h("p", { class: "error" }, `${a.error_code}: ${a.error_message}`) : null),
      h("td", {}, status(a.status)),
      h("td", {}, a.agent_slug),
      h("td", {}, `${a.input_tokens} in / ${a.output_tokens} out`),
      h("td", {}, when(a.created_at)),
    ),
  );
  show("Answers", table(["Question", "Status", "Agent", "Tokens", "Asked"], rows, "No answers yet."));
}

const WEBHOOK_EVENTS = [
  "fact.created",
  "fact.superseded",
  "fact.deleted",
  "fact.restored",
  "fact.expired",
  "end_user.forgotten",
  "answer.completed",
  "answer.failed",
];

async function webhooksPage(slug) {
  const { webhooks } = await api("GET", `${path(slug)}/webhooks`);
  const secretBox = h("div", { "data-secret": "" });
  const create = formAction(
    h(
      "form",
      { class: "panel inline", "aria-label": "New webhook" },
      h("label", {}, "URL", h("input", { name: "url", type: "url", required: true, placeholder: "https://example.com/memoryd" })),
      h(
        "fieldset",
        { class: "actions" },
        h("legend", { class: "muted" }, "Events"),
        WEBHOOK_EVENTS.map((e) =>
          h("label", { class: "check" }, h("input", { type: "checkbox", name: "events", value: e, checked: e.startsWith("fact.") }), e),
        ),
      ),
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", name: "internal", value: "true" }),
        "Internal (every fact, sensitive and team facts included)",
      ),
      h("button", { type: "submit" }, "Add webhook"),
    ),
    async (data) => {
      const hook = await api("POST", `${path(slug)}/webhooks`, {
        url: data.get("url"),
        events: data.getAll("events"),
        internal: data.get("internal") === "true",
      });
      await webhooksPage(slug);
      secretSlot().replaceChildren(
        h(
          "div",
          { class: "secret", role: "alert" },
          h("strong", {}, "Signing secret: shown once, store it now."),
          h("code", { "data-webhook-secret": true }, hook.secret),
        ),
      );
    },
  );
  const rows = webhooks.map((w) => {
    const log = h("div");
    return h(
      "tr",
      {},
      h("td", {}, h("code", {}, w.url), w.internal ? h("div", {}, h("span", { class: "pill bad" }, "internal")) : null, log),
      h(
        "td",
        {},
        w.events.map((e) => h("span", { class: "pill" }, e)),
      ),
      h("td", {}, w.enabled ? `${w.pending} waiting` : h("span", { class: "pill bad" }, "disabled")),
      h(
        "td",
        {},
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            {
              class: "link",
              type: "button",
              onclick: action(async () => {
                const { deliveries } = await api("GET", `/v1/admin/webhooks/${encodeURIComponent(w.webhook_id)}/deliveries`);
                const line = (d) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, when(d.attempted_at)),
                    h("td", {}, d.type),
                    h("td", {}, `#${d.attempt}`),
                    h("td", {}, d.status ?? "no answer"),
                    h("td", {}, d.error ?? ""),
                  );
                log.replaceChildren(table(["When", "Event", "Attempt", "Status", "Error"], deliveries.map(line), "No deliveries yet."));
              }),
            },
            "Deliveries",
          ),
          h(
            "button",
            {
              class: "secondary",
              type: "button",
              onclick: action(async () => {
                await api("PATCH", `/v1/admin/webhooks/${encodeURIComponent(w.webhook_id)}`, { enabled: !w.enabled });
                webhooksPage(slug);
              }),
            },
            w.enabled ? "Disable" : "Enable",
          ),
          h(
            "button",
            {
              class: "danger",
              type: "button",
              onclick: action(async () => {
                if (!confirm("Delete this webhook and the events waiting for it?")) return;
                await api("DELETE", `/v1/admin/webhooks/${encodeURIComponent(w.webhook_id)}`);
                webhooksPage(slug);
              }),
            },
            "Delete",
          ),
        ),
      ),
    );
  });
  show(
    "Webhooks",
    h("p", { class: "muted" }, "Each event is POSTed, signed the Standard Webhooks way, in order, and retried for a day until the receiver answers 2xx."),
    create,
    secretBox,
    table(["Endpoint", "Events", "State", ""], rows, "No webhooks yet."),
  );
}

const pages = {
  "": overviewPage,
  keys: keysPage,
  agents: agentsPage,
  team: teamPage,
  facts: factsPage,
  review: reviewPage,
  "end-users": endUsersPage,
  answers: answersPage,
  webhooks: webhooksPage,
};

async function route() {
  if (csrfToken === null) {
    const session = await fetch("/app/session", { credentials: "same-origin" })
      .then((r) => r.json())
      .catch(() => null);
    if (!session?.data?.signed_in) return renderSignIn();
    csrfToken = session.data.csrf_token;
  }
  const [hashPath, hashQuery] = location.hash.replace(/^#/, "").split("?");
  const [, kind, slug, section = ""] = (hashPath || "/").split("/");
  try {
    if (kind === "w" && slug && section in pages) {
      renderNav(decodeURIComponent(slug), section || "overview");
      await pages[section](decodeURIComponent(slug), hashQuery ?? "");
    } else {
      await workspacesPage();
    }
  } catch (caught) {
    const error = failureOf(caught);
    if (error.status !== 401)
      show("Something went wrong", h("p", { class: "error", role: "alert" }, error.message), h("p", {}, h("a", { href: "#/" }, "Back to workspaces")));
  }
}

signOut.addEventListener("click", async () => {
  await fetch("/app/session", { method: "DELETE", headers: { "x-csrf-token": csrfToken ?? "" }, credentials: "same-origin" });
  csrfToken = null;
  renderSignIn("Signed out.");
});
window.addEventListener("hashchange", route);
route();
