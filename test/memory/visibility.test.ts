import { expect, test } from "bun:test";
import fc from "fast-check";
import { createWorkspace } from "../../src/auth/workspaces";
import { insertFacts, markSuperseded, type NewFactRow } from "../../src/capture/store";
import { nextFactSeq } from "../../src/memory/changes";
import { FactIndexes } from "../../src/memory/index/registry";
import { sortableId } from "../../src/ids";
import { buildContext } from "../../src/memory/context";
import { searchFacts } from "../../src/memory/search";
import type { Caller, Channel } from "../../src/service";
import type { FactKind, Origin, SubjectType } from "../../src/schema/memory";
import { uniqueSlug } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

const ORIGINS: Origin[] = ["user_stated", "ingested", "agent_inferred", "agent_action", "system"];
const KINDS: FactKind[] = ["decision", "preference", "profile_fact", "observation"];
const USERS = ["u1", "u2", "u3"];
const AGENTS = ["support", "sales"];

const factArb = fc.record({
  subjectType: fc.constantFrom<SubjectType>("end_user", "team", "workspace"),
  user: fc.constantFrom(...USERS),
  origin: fc.constantFrom(...ORIGINS),
  kind: fc.constantFrom(...KINDS),
  sensitive: fc.boolean(),
  superseded: fc.boolean(),
  pinned: fc.boolean(),
  /** Whose own fact it is; null: the workspace's. */
  agent: fc.option(fc.constantFrom(...AGENTS), { nil: null }),
  word: fc.constantFrom("alpha", "bravo", "charlie"),
});

const callArb = fc.record({
  audience: fc.constantFrom<"internal" | "external">("internal", "external"),
  endUser: fc.option(fc.constantFrom(...USERS, "nobody"), { nil: null }),
  channel: fc.constantFrom<Channel>("rest", "mcp"),
  /** The agent the call acts as ("ops" owns no fact). */
  agent: fc.option(fc.constantFrom(...AGENTS, "ops"), { nil: null }),
  query: fc.constantFrom("zebra", "zebra alpha", "bravo charlie zebra", "the of", "zebr"),
  workspace: fc.nat({ max: 1 }),
});

describeEachDb("visibility (property)", (get) => {
  test("no fact ever crosses workspace, end-user, agent, audience, kind or supersession lines", async () => {
    const { db } = get();
    const index = new FactIndexes(db, 64 * 1024 * 1024);
    await fc.assert(
      fc.asyncProperty(fc.array(factArb, { minLength: 1, maxLength: 25 }), fc.array(callArb, { minLength: 1, maxLength: 6 }), async (facts, calls) => {
        const workspaces = [await createWorkspace(db, uniqueSlug("vis"), 0), await createWorkspace(db, uniqueSlug("vis"), 0)];
        const meta = new Map<string, { ws: string; f: (typeof facts)[number] }>();
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
            agent: f.agent,
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
              meta.set(replacement.id, { ws, f: { ...f, superseded: false } });
              await markSuperseded(tx, seq, [{ oldId: row.id, newId: replacement.id }]);
            }
          });
          meta.set(row.id, { ws, f });
        }
        for (const call of calls) {
          const ws = workspaces[call.workspace]!;
          const caller: Caller = {
            workspaceId: ws.id,
            keyId: "key_x",
            audience: call.audience,
            channel: call.channel,
            agent: call.agent,
            boundAgent: null,
            factSeq: null,
          };
          const ctx = { db, index, caller };
          const endUser = call.endUser === null ? undefined : { id: call.endUser };
          const searched = (await searchFacts(ctx, { query: call.query, limit: 100, end_user: endUser })).facts.map((f) => f.fact_id);
          const packet = (await buildContext(ctx, { query: call.query, token_budget: 20000, end_user: endUser })).facts.map((f) => f.fact_id);
          for (const id of [...searched, ...packet]) {
            const m = meta.get(id);
            expect(m).toBeDefined();
            const f = m!.f;
            expect(m!.ws).toBe(ws.id);
            expect(f.superseded).toBe(false);
            if (f.subjectType === "end_user") expect(f.user).toBe(call.endUser!);
            if (f.agent !== null) expect(f.agent).toBe(call.agent!);
            if (call.audience === "external") {
              expect(f.sensitive).toBe(false);
              expect(f.subjectType).not.toBe("team");
              expect(f.origin).not.toBe("agent_inferred");
            }
          }
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
