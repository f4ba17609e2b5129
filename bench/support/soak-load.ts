/**
 * The soak test's load: a mix of the REST API's routes at a steady rate (open loop: an operation
 * starts every 1/rate s whatever the earlier ones are doing, up to `maxInFlight` at once; past it
 * the operation is shed and counted), and the ledger of what the server accepted.
 *
 * Operations (weights in `MIX`): teach (unique facts, with and without an end user, and pairs of
 * one-valued claims whose second value replaces the first, so the review has supersessions),
 * teach from messages, search, context, answers on the local provider (streamed, and queued then
 * polled every second), the facts API (list, get, delete), the admin review (supersessions, and a
 * restore when there is one) and the admin facts listing. Requests rotate over a pool of API keys
 * so that no key reaches the limit of 120 requests a minute.
 *
 * Every fact a teach call accepted (202 with nothing skipped) goes in the ledger by its text,
 * which is unique in the run; a deliberate delete (200) marks it deleted.
 */
import type { Recorder } from "./soak-stats";

/** A fact the server acknowledged. */
export interface LedgerFact {
  text: string;
  endUser: string | null;
  via: "facts" | "messages" | "crash";
  /** Order of acceptance (1, 2, …): a backup started after fact n was accepted must hold it. */
  seq: number;
  deleted: boolean;
  /** `seq` of the ledger when its delete was acknowledged. */
  deletedAtSeq: number | null;
}

export class Ledger {
  readonly facts = new Map<string, LedgerFact>();
  private seq = 0;
  /** Facts in calls whose result counted some as `skipped` (not expected to be stored). */
  skippedCalls = 0;
  skippedFacts = 0;
  /** Deletes acknowledged. */
  deletes = 0;

  get lastSeq(): number {
    return this.seq;
  }

  accept(texts: readonly string[], endUser: string | null, via: LedgerFact["via"]): void {
    for (const text of texts) {
      if (this.facts.has(text)) continue;
      this.seq += 1;
      this.facts.set(text, { text, endUser, via, seq: this.seq, deleted: false, deletedAtSeq: null });
    }
  }

  markDeleted(text: string): void {
    const fact = this.facts.get(text);
    if (fact === undefined || fact.deleted) return;
    fact.deleted = true;
    fact.deletedAtSeq = this.seq;
    this.deletes += 1;
  }

  /** The facts that must be stored: accepted and never deliberately deleted. */
  expected(): LedgerFact[] {
    return [...this.facts.values()].filter((f) => !f.deleted);
  }
}

export interface HttpAnswer {
  status: number;
  json: any;
  text: string;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
const chance = (p: number): boolean => Math.random() < p;

const CITIES = ["Leeds", "York", "Bristol", "Dundee", "Cardiff", "Norwich", "Exeter", "Lisbon", "Porto", "Ghent", "Utrecht", "Bergen"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const ITEMS = ["copper wire", "spare tyres", "tea chests", "ceramic tiles", "oak planks", "solar panels", "bicycle frames", "wool blankets"];
const COLORS = ["red", "blue", "green", "white", "grey", "yellow", "black", "orange"];
const COMPANIES = ["Lumen Bank", "Harbor Foods", "Cobalt Freight", "Obsidian Foods", "Acme Tools", "Nimbus Air"];
const MANAGERS = ["Boris Quell", "Cyra Dunmere", "Dorian Falk", "Elsa Morrow", "Greta Lind", "Hugo Brandt", "Ilse Varga", "Jonas Pike"];
const SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "dun", "bri", "ma", "ne", "os", "pil", "qua", "ri", "sen", "tha", "ul", "vor", "wen"];
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A person's name, distinct for each n below 20^4. */
function personName(n: number): string {
  const s = (i: number) => SYLLABLES[Math.floor(n / 20 ** i) % 20]!;
  return `${cap(s(0) + s(1))} ${cap(s(2) + s(3))}ford`;
}

export const ROUTES = {
  teach: "POST /v1/memory/facts",
  messages: "POST /v1/memory/messages",
  search: "POST /v1/memory/search",
  context: "POST /v1/memory/context",
  answerStream: "POST /v1/answers (stream)",
  answerQueued: "POST /v1/answers (queued)",
  answerPoll: "GET /v1/answers/:id",
  factsList: "GET /v1/memory/facts",
  factGet: "GET /v1/memory/facts/:id",
  factDelete: "DELETE /v1/memory/facts/:id",
  supersessions: "GET /v1/admin/…/supersessions",
  restore: "POST /v1/admin/facts/:id/restore",
  adminFacts: "GET /v1/admin/…/facts",
  status: "GET /v1/admin/status",
} as const;

type OpName =
  | "teach"
  | "teachEndUser"
  | "teachPair"
  | "messages"
  | "search"
  | "context"
  | "answerStream"
  | "answerQueued"
  | "factsList"
  | "factGet"
  | "factDelete"
  | "review"
  | "adminFacts";

/** Relative weights of the operations. */
export const MIX: Record<OpName, number> = {
  teach: 13,
  teachEndUser: 8,
  teachPair: 3,
  messages: 8,
  search: 20,
  context: 12,
  answerStream: 4,
  answerQueued: 3,
  factsList: 9,
  factGet: 8,
  factDelete: 3,
  review: 6,
  adminFacts: 3,
};

export interface LoadOptions {
  url: string;
  adminToken: string;
  /** API keys with every scope; requests rotate over them. */
  keys: readonly string[];
  recorder: Recorder;
  ledger: Ledger;
  /** Operations started per second. */
  rate: number;
  maxInFlight: number;
  /** Per-request timeout. */
  requestTimeoutMs?: number;
}

interface KnownFact {
  id: string;
  text: string;
  endUser: string | null;
}

export class Load {
  private readonly runTag: string;
  private counter = 0;
  private requestSeq = 0;
  private keyTurn = 0;
  private inFlight = 0;
  private stopping = false;
  private scheduler: Promise<void> | undefined;
  /** Operations not started because `maxInFlight` were running. */
  shed = 0;
  started: Record<string, number> = {};
  /** Answers that ended `answer.failed` / `failed`, and teach results that did not add up. */
  readonly appErrors: string[] = [];
  /** Second values of one-valued claims that replaced the first (teach result `superseded`). */
  pairsSuperseded = 0;
  pairsTaught = 0;
  restores: Record<string, number> = {};
  answersCompleted = 0;
  /** Queued answers still not finished when the load stopped (they finish after the restart). */
  answersLeftRunning = 0;
  private readonly known: KnownFact[] = [];
  private readonly recentCodes: string[] = [];
  private readonly endUsers = Array.from({ length: 24 }, (_, i) => `soak-user-${i + 1}`);
  private readonly weighted: OpName[] = [];

  constructor(private readonly options: LoadOptions) {
    this.runTag = Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join("");
    for (const [op, weight] of Object.entries(MIX) as [OpName, number][]) for (let i = 0; i < weight; i++) this.weighted.push(op);
  }

  private nextCode(): string {
    this.counter += 1;
    const code = `${this.runTag}-${this.counter}`;
    this.recentCodes.push(code);
    if (this.recentCodes.length > 500) this.recentCodes.shift();
    return code;
  }

  private nextKey(): string {
    this.keyTurn = (this.keyTurn + 1) % this.options.keys.length;
    return this.options.keys[this.keyTurn]!;
  }

  /** One HTTP request, recorded under `route`. `auth` "admin" uses the admin token, otherwise the next API key. */
  async call(route: string, method: string, path: string, body?: unknown, auth: "key" | "admin" = "key"): Promise<HttpAnswer> {
    // The request id is in the server's log line of the request: a failure here can be found there.
    this.requestSeq += 1;
    const requestId = `soak-${this.runTag}-${this.requestSeq}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${auth === "admin" ? this.options.adminToken : this.nextKey()}`,
      "x-request-id": requestId,
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    const started = performance.now();
    try {
      const res = await fetch(`${this.options.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 120_000),
      });
      const text = await res.text();
      const ms = performance.now() - started;
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      this.options.recorder.add(
        route,
        res.status,
        ms,
        res.status >= 500 ? `${method} ${path} (x-request-id ${requestId}) -> ${text.slice(0, 300)}` : undefined,
      );
      return { status: res.status, json, text };
    } catch (error) {
      const ms = performance.now() - started;
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.options.recorder.add(route, 0, ms, `${method} ${path} (x-request-id ${requestId}, ${ms.toFixed(0)} ms): ${message}`);
      return { status: 0, json: undefined, text: message };
    }
  }

  // ---- facts -------------------------------------------------------------------------------

  private plainFact(): string {
    const code = this.nextCode();
    switch (Math.floor(Math.random() * 4)) {
      case 0:
        return `Parcel ${code} was shipped to ${pick(CITIES)} on ${pick(DAYS)}.`;
      case 1:
        return `Crate ${code} in bay ${(this.counter % 40) + 1} holds ${pick(ITEMS)}.`;
      case 2:
        return `Invoice ${code} from ${pick(COMPANIES)} is due on ${pick(DAYS)}.`;
      default:
        return `The ${pick(COLORS)} van ${code} is parked at the ${pick(CITIES)} depot.`;
    }
  }

  private endUserFact(): string {
    const code = this.nextCode();
    switch (Math.floor(Math.random() * 3)) {
      case 0:
        return `I keep my ${pick(ITEMS)} in locker ${code}.`;
      case 1:
        return `My order ${code} of ${pick(ITEMS)} ships to ${pick(CITIES)}.`;
      default:
        return `I booked room ${code} in ${pick(CITIES)} for ${pick(DAYS)}.`;
    }
  }

  /** Teaches `texts` in one call; the ledger takes them when the call was accepted with nothing skipped. */
  async teach(texts: string[], endUser: string | null, via: LedgerFact["via"] = "facts"): Promise<HttpAnswer> {
    const body: Record<string, unknown> = { facts: texts.map((text) => ({ text })) };
    if (endUser !== null) body.end_user = { id: endUser };
    const res = await this.call(ROUTES.teach, "POST", "/v1/memory/facts", body);
    if (res.status === 202) this.acceptResult(texts, res.json?.data, endUser, via);
    return res;
  }

  private acceptResult(texts: string[], data: any, endUser: string | null, via: LedgerFact["via"]): void {
    const stored = Number(data?.created ?? 0) + Number(data?.superseded ?? 0);
    const skipped = Number(data?.skipped ?? 0);
    if (stored + skipped !== texts.length) this.appErrors.push(`teach result does not add up for ${texts.length} facts: ${JSON.stringify(data)}`);
    if (skipped === 0) this.options.ledger.accept(texts, endUser, via);
    else {
      this.options.ledger.skippedCalls += 1;
      this.options.ledger.skippedFacts += skipped;
    }
  }

  private async opTeach(withEndUser: boolean): Promise<void> {
    const n = 1 + Math.floor(Math.random() * 3);
    const texts = Array.from({ length: n }, () => (withEndUser ? this.endUserFact() : this.plainFact()));
    await this.teach(texts, withEndUser ? pick(this.endUsers) : null);
  }

  /** A one-valued claim, then another value of it: the second replaces the first (a supersession to review). */
  private async opTeachPair(): Promise<void> {
    this.counter += 1;
    const person = personName(this.counter);
    const first = pick(MANAGERS);
    const second = pick(MANAGERS.filter((m) => m !== first));
    const a = await this.teach([`${person}'s manager is ${first}.`], null);
    if (a.status !== 202) return;
    const b = await this.teach([`${person}'s manager is ${second}.`], null);
    if (b.status === 202) {
      this.pairsTaught += 1;
      if (Number(b.json?.data?.superseded ?? 0) === 1) this.pairsSuperseded += 1;
    }
  }

  private async opMessages(): Promise<void> {
    const endUser = pick(this.endUsers);
    const code = this.nextCode();
    const code2 = this.nextCode();
    const body = {
      end_user: { id: endUser },
      messages: [
        {
          role: "user",
          content: `I parked the ${pick(COLORS)} van ${code} in ${pick(CITIES)}, and I left the ${pick(ITEMS)} in locker ${code2}. Can you remind me tomorrow?`,
        },
        { role: "assistant", content: `Noted: the van ${code} and locker ${code2}. I will remind you.` },
      ],
    };
    const res = await this.call(ROUTES.messages, "POST", "/v1/memory/messages", body);
    if (res.status !== 202) return;
    const statements: string[] = Array.isArray(res.json?.data?.statements) ? res.json.data.statements : [];
    this.acceptResult(statements, res.json?.data, endUser, "messages");
  }

  // ---- reads -------------------------------------------------------------------------------

  private query(): string {
    const code = this.recentCodes.length > 0 ? pick(this.recentCodes) : "unknown";
    switch (Math.floor(Math.random() * 5)) {
      case 0:
        return `Where was parcel ${code} shipped?`;
      case 1:
        return `what is in crate ${code}`;
      case 2:
        return `which invoice is due on ${pick(DAYS)}`;
      case 3:
        return `where is my ${pick(ITEMS)}`;
      default:
        return `${pick(COLORS)} van at the ${pick(CITIES)} depot`;
    }
  }

  private async opSearch(): Promise<void> {
    const body: Record<string, unknown> = { query: this.query(), limit: 10 };
    if (chance(0.3)) body.end_user = { id: pick(this.endUsers) };
    await this.call(ROUTES.search, "POST", "/v1/memory/search", body);
  }

  private async opContext(): Promise<void> {
    const body: Record<string, unknown> = { query: this.query(), token_budget: 800 };
    if (chance(0.3)) body.end_user = { id: pick(this.endUsers) };
    await this.call(ROUTES.context, "POST", "/v1/memory/context", body);
  }

  private async opAnswerStream(): Promise<void> {
    const body: Record<string, unknown> = { input: this.query() };
    if (chance(0.3)) body.end_user = { id: pick(this.endUsers) };
    const res = await this.call(ROUTES.answerStream, "POST", "/v1/answers", body);
    if (res.status !== 200) return;
    if (res.text.includes("event: answer.completed")) this.answersCompleted += 1;
    else this.appErrors.push(`streamed answer did not complete: ${res.text.slice(-300)}`);
  }

  private async opAnswerQueued(): Promise<void> {
    const body: Record<string, unknown> = { input: this.query(), stream: false };
    if (chance(0.3)) body.end_user = { id: pick(this.endUsers) };
    const res = await this.call(ROUTES.answerQueued, "POST", "/v1/answers", body);
    if (res.status !== 202) return;
    const id = res.json?.data?.answer_id as string;
    for (let polls = 0; polls < 120; polls++) {
      await Bun.sleep(1000);
      if (this.stopping) {
        this.answersLeftRunning += 1;
        return;
      }
      const poll = await this.call(ROUTES.answerPoll, "GET", `/v1/answers/${id}`);
      const status = poll.json?.data?.status;
      if (status === "completed") {
        this.answersCompleted += 1;
        return;
      }
      if (status === "failed") {
        this.appErrors.push(`queued answer ${id} failed: ${JSON.stringify(poll.json.data.error)}`);
        return;
      }
    }
    this.appErrors.push(`queued answer ${id} did not finish within 120 polls`);
  }

  // ---- the facts API -----------------------------------------------------------------------

  private remember(facts: any[], endUser: string | null): void {
    for (const f of facts) {
      if (typeof f?.fact_id !== "string" || typeof f?.fact_text !== "string") continue;
      if (this.known.some((k) => k.id === f.fact_id)) continue;
      this.known.push({ id: f.fact_id, text: f.fact_text, endUser });
    }
    while (this.known.length > 300) this.known.shift();
  }

  private async opFactsList(): Promise<void> {
    const endUser = chance(0.4) ? pick(this.endUsers) : null;
    const path = `/v1/memory/facts?limit=20${endUser === null ? "" : `&end_user=${encodeURIComponent(endUser)}`}`;
    const res = await this.call(ROUTES.factsList, "GET", path);
    if (res.status === 200) this.remember(res.json?.data?.facts ?? [], endUser);
  }

  private endUserQuery(fact: KnownFact): string {
    return fact.endUser === null ? "" : `?end_user=${encodeURIComponent(fact.endUser)}`;
  }

  private async opFactGet(): Promise<void> {
    if (this.known.length === 0) return this.opFactsList();
    const fact = pick(this.known);
    await this.call(ROUTES.factGet, "GET", `/v1/memory/facts/${fact.id}${this.endUserQuery(fact)}`);
  }

  private async opFactDelete(): Promise<void> {
    const ledger = this.options.ledger;
    const candidates = this.known.filter((k) => ledger.facts.get(k.text)?.deleted === false);
    if (candidates.length === 0) return this.opFactsList();
    const fact = pick(candidates);
    this.known.splice(this.known.indexOf(fact), 1);
    const res = await this.call(ROUTES.factDelete, "DELETE", `/v1/memory/facts/${fact.id}${this.endUserQuery(fact)}`);
    if (res.status === 200) ledger.markDeleted(fact.text);
  }

  // ---- review ------------------------------------------------------------------------------

  private async opReview(): Promise<void> {
    const res = await this.call(ROUTES.supersessions, "GET", "/v1/admin/workspaces/default/supersessions?limit=20", undefined, "admin");
    if (res.status !== 200 || !chance(0.5)) return;
    const ledger = this.options.ledger;
    const open = (res.json?.data?.supersessions ?? []).filter(
      (s: any) => s?.replaced?.superseded_by !== null && ledger.facts.get(s?.replaced?.text)?.deleted === false,
    );
    if (open.length === 0) return;
    const chosen = pick(open) as any;
    const newer = chance(0.5) ? "keep" : "supersede";
    const restored = await this.call(ROUTES.restore, "POST", `/v1/admin/facts/${chosen.replaced.fact_id}/restore`, { newer }, "admin");
    const outcome = restored.status === 200 ? `200 ${restored.json?.data?.newer}` : `${restored.status} ${restored.json?.error?.code ?? ""}`.trim();
    this.restores[outcome] = (this.restores[outcome] ?? 0) + 1;
  }

  private async opAdminFacts(): Promise<void> {
    const superseded = chance(0.5) ? "&include_superseded=true" : "";
    await this.call(ROUTES.adminFacts, "GET", `/v1/admin/workspaces/default/facts?limit=50${superseded}`, undefined, "admin");
  }

  private run(op: OpName): Promise<void> {
    switch (op) {
      case "teach":
        return this.opTeach(false);
      case "teachEndUser":
        return this.opTeach(true);
      case "teachPair":
        return this.opTeachPair();
      case "messages":
        return this.opMessages();
      case "search":
        return this.opSearch();
      case "context":
        return this.opContext();
      case "answerStream":
        return this.opAnswerStream();
      case "answerQueued":
        return this.opAnswerQueued();
      case "factsList":
        return this.opFactsList();
      case "factGet":
        return this.opFactGet();
      case "factDelete":
        return this.opFactDelete();
      case "review":
        return this.opReview();
      case "adminFacts":
        return this.opAdminFacts();
    }
  }

  private launch(op: OpName): void {
    if (this.inFlight >= this.options.maxInFlight) {
      this.shed += 1;
      return;
    }
    this.inFlight += 1;
    this.started[op] = (this.started[op] ?? 0) + 1;
    void this.run(op)
      .catch((error: unknown) => this.appErrors.push(`operation ${op} threw: ${error instanceof Error ? error.stack : String(error)}`))
      .finally(() => {
        this.inFlight -= 1;
      });
  }

  /**
   * Each operation once, one after another: the parts the server loads on first use (the
   * tokenizer, the language model of capture) load here, not in the first interval of the load.
   */
  async warmUp(): Promise<void> {
    for (const op of Object.keys(MIX) as OpName[]) await this.run(op);
  }

  /** Starts the open-loop schedule: one operation every 1/rate s until `stop()`. */
  start(): void {
    const period = 1000 / this.options.rate;
    this.scheduler = (async () => {
      let next = performance.now();
      while (!this.stopping) {
        this.launch(pick(this.weighted));
        next += period;
        const wait = next - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        else if (wait < -1000) next = performance.now(); // the event loop stalled: do not burst to catch up
      }
    })();
  }

  /** Stops starting operations and waits (up to `timeoutMs`) for those running to finish. */
  async stop(timeoutMs = 120_000): Promise<number> {
    this.stopping = true;
    await this.scheduler;
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) await Bun.sleep(20);
    return this.inFlight;
  }

  /** Facts acknowledged in the crash under write so far. */
  crashAccepted = 0;

  /**
   * The crash under write: `workers` teachers, each teaching one unique fact after another, until
   * `until` resolves (the server is being killed); calls without an answer are not in the ledger.
   */
  async crashWrites(workers: number, until: Promise<unknown>): Promise<{ accepted: number; unanswered: number }> {
    let done = false;
    void until.then(() => {
      done = true;
    });
    let unanswered = 0;
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        while (!done) {
          const res = await this.teach([this.plainFact()], w % 2 === 0 ? null : pick(this.endUsers), "crash");
          if (res.status === 202) this.crashAccepted += 1;
          else if (res.status === 0) {
            unanswered += 1;
            await Bun.sleep(20);
          }
        }
      }),
    );
    return { accepted: this.crashAccepted, unanswered };
  }
}
