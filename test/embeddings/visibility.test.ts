/**
 * test/memory/visibility.test.ts with an embeddings endpoint configured: every fact has a vector
 * (superseded ones too, as when a fact was embedded before it was replaced), and some queries
 * share no word with any fact, so facts are found by their vectors alone. Whatever the vectors
 * rank, search and context return only facts the visibility rules let the caller see.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { createWorkspace } from "../../src/auth/workspaces";
import { insertFacts, markSuperseded, type NewFactRow } from "../../src/capture/store";
import { EmbeddingClient } from "../../src/embeddings/client";
import { SemanticSearch } from "../../src/embeddings/semantic";
import { storeVectors } from "../../src/embeddings/store";
import { sortableId } from "../../src/ids";
import { createLogger } from "../../src/log";
import { nextFactSeq } from "../../src/memory/changes";
import { buildContext } from "../../src/memory/context";
import { FactIndexes } from "../../src/memory/index/registry";
import { searchFacts } from "../../src/memory/search";
import type { FactKind, Origin, SubjectType } from "../../src/schema/memory";
import type { Caller, Channel } from "../../src/service";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";
import { startFakeEmbeddings, type FakeEmbeddings } from "../helpers/fake-embeddings";

const ORIGINS: Origin[] = ["user_stated", "ingested", "agent_inferred", "agent_action", "system"];
const KINDS: FactKind[] = ["decision", "preference", "profile_fact", "observation"];
const USERS = ["u1", "u2", "u3"];
const MODEL = "fake-embed";

const factArb = fc.record({
  subjectType: fc.constantFrom<SubjectType>("end_user", "team", "workspace"),
  user: fc.constantFrom(...USERS),
  origin: fc.constantFrom(...ORIGINS),
  kind: fc.constantFrom(...KINDS),
  sensitive: fc.boolean(),
  superseded: fc.boolean(),
  pinned: fc.boolean(),
  word: fc.constantFrom("alpha", "bravo", "charlie"),
});

const callArb = fc.record({
  audience: fc.constantFrom<"internal" | "external">("internal", "external"),
  endUser: fc.option(fc.constantFrom(...USERS, "nobody"), { nil: null }),
  channel: fc.constantFrom<Channel>("rest", "mcp"),
  // "okapi" and "giraffe" are no fact's words: to the fake model, okapi means zebra and giraffe alpha.
  query: fc.constantFrom("zebra", "zebra alpha", "bravo charlie zebra", "the of", "zebr", "okapi", "giraffe", "okapi giraffe"),
  workspace: fc.nat({ max: 1 }),
});

type FactSpec = typeof factArb extends fc.Arbitrary<infer T> ? T : never;
type CallSpec = typeof callArb extends fc.Arbitrary<infer T> ? T : never;

/** The visibility rules, stated independently of the code under test. */
function visible(fact: { ws: string; f: FactSpec }, call: CallSpec, workspaceId: string): boolean {
  const { f } = fact;
  if (fact.ws !== workspaceId || f.superseded) return false;
  if (f.subjectType === "end_user" && f.user !== call.endUser) return false;
  if (call.audience === "external" && (f.sensitive || f.subjectType === "team" || f.origin === "agent_inferred")) return false;
  return true;
}

describeEachDb("visibility with vectors (property)", (get) => {
  let fake: FakeEmbeddings;
  beforeAll(() => {
    fake = startFakeEmbeddings({
      concepts: [
        ["zebra", "okapi"],
        ["alpha", "giraffe"],
      ],
    });
  });
  afterAll(async () => {
    await fake.stop();
  });

  test("vectors never carry a fact across workspace, end-user, audience, kind or supersession lines", async () => {
    const { db } = get();
    const client = new EmbeddingClient({ baseURL: fake.url, model: MODEL, queryPrefix: "search_query: ", documentPrefix: "search_document: " });
    const semantic = new SemanticSearch(db, client, createLogger("silent"), { timeoutMs: 10_000, minSimilarity: 0.3, budgetBytes: 64 * 1024 * 1024 });
    const index = new FactIndexes(db, 64 * 1024 * 1024, { semantic });
    let foundByVector = 0;
    let foundByVectorAlone = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(factArb, { minLength: 1, maxLength: 25 }), fc.array(callArb, { minLength: 1, maxLength: 6 }), async (facts, calls) => {
        const workspaces = [await createWorkspace(db, uniqueSlug("vvis"), 0), await createWorkspace(db, uniqueSlug("vvis"), 0)];
        const meta = new Map<string, { ws: string; f: FactSpec; text: string }>();
        for (const [i, f] of facts.entries()) {
          const ws = workspaces[i % 2]!.id;
          const row: NewFactRow = {
            id: sortableId("fact"),
            text: `zebra ${f.word} fact number ${i}`,
            normalized: `zebra ${f.word} fact number ${i}`,
            kind: f.kind,
            origin: f.origin,
            subject: f.subjectType === "end_user" ? f.user : f.subjectType,
            subjectType: f.subjectType,
            endUserId: f.subjectType === "end_user" ? f.user : null,
            agent: null,
            confidence: 0.8,
            recordedAt: new Date(Date.now() - i * 1000),
            expiresAt: null,
            sensitive: f.sensitive,
            pinned: f.pinned,
            claimKey: null,
            claimSubject: null,
            claimValue: null,
            claimNegated: false,
          };
          await db.transaction(async (tx) => {
            const seq = await nextFactSeq(tx, ws);
            await insertFacts(tx, ws, seq, [row]);
            if (f.superseded) {
              const replacement = { ...row, id: sortableId("fact"), text: `${row.text} v2`, normalized: `${row.normalized} v2`, superseded: false };
              await insertFacts(tx, ws, seq, [replacement]);
              meta.set(replacement.id, { ws, f: { ...f, superseded: false }, text: replacement.text });
              await markSuperseded(tx, seq, [{ oldId: row.id, newId: replacement.id }]);
            }
          });
          meta.set(row.id, { ws, f, text: row.text });
        }
        // A vector for every fact, superseded ones included.
        const all = [...meta.entries()];
        const vectors = await client.embedDocuments(
          all.map(([, m]) => m.text),
          10_000,
        );
        await storeVectors(
          db,
          MODEL,
          all.map(([id, m], i) => ({ factId: id, workspaceId: m.ws, vector: vectors[i]! })),
        );

        for (const call of calls) {
          const ws = workspaces[call.workspace]!;
          const caller: Caller = {
            workspaceId: ws.id,
            keyId: "key_x",
            audience: call.audience,
            channel: call.channel,
            agent: null,
            boundAgent: null,
            factSeq: null,
          };
          const ctx = { db, index, caller };
          const endUser = call.endUser === null ? undefined : { id: call.endUser };
          const searched = (await searchFacts(ctx, { query: call.query, limit: 100, end_user: endUser, explain: true })).facts;
          const packet = (await buildContext(ctx, { query: call.query, token_budget: 20000, end_user: endUser })).facts.map((f) => f.fact_id);
          for (const hit of searched) {
            if (hit.explanation?.vector !== undefined) foundByVector += 1;
            if (hit.explanation?.vector !== undefined && hit.explanation.words.length === 0) foundByVectorAlone += 1;
          }
          for (const id of [...searched.map((f) => f.fact_id), ...packet]) {
            const m = meta.get(id);
            expect(m).toBeDefined();
            expect(visible(m!, call, ws.id)).toBe(true);
          }
        }
      }),
      { numRuns: 25 },
    );
    // The vectors were in play: facts were ranked by them, some found by nothing else.
    expect(foundByVector).toBeGreaterThan(0);
    expect(foundByVectorAlone).toBeGreaterThan(0);
  }, 120_000);
});
