/** An app with an embeddings endpoint (the fake one on loopback) and a way to embed what waits, as the worker does. */
import { AnswerEngine } from "../../src/answers/engine";
import { createApp, type App } from "../../src/app";
import type { Config } from "../../src/config";
import type { Db } from "../../src/db/types";
import { createEmbeddings, type Embeddings } from "../../src/embeddings/setup";
import { createLogger } from "../../src/log";
import { FactIndexes } from "../../src/memory/index/registry";
import { testConfig } from "./app";
import type { FakeEmbeddings } from "./fake-embeddings";

export interface SemanticHarness {
  app: App;
  embeddings: Embeddings;
  config: Config;
}

export function semanticApp(db: Db, fake: FakeEmbeddings, overrides: Partial<Config> = {}): SemanticHarness {
  const config = testConfig({
    embeddingsUrl: fake.url,
    embeddingsModel: "fake-embed",
    embeddingsTimeoutMs: 300,
    embeddingsQueryPrefix: "search_query: ",
    embeddingsDocumentPrefix: "search_document: ",
    ...overrides,
  });
  const log = createLogger("silent");
  const embeddings = createEmbeddings(config, db, log, { queryFailed: () => {}, batchDone: () => {} });
  if (embeddings === null) throw new Error("embeddings not configured");
  const index = new FactIndexes(db, config.indexMemoryMb * 1024 * 1024, { semantic: embeddings.semantic });
  const app = createApp({ config, db, log, index, engine: new AnswerEngine({ db, index, config, log }) });
  return { app, embeddings, config };
}

/** Embeds every waiting fact of the workspace, as the worker does in the background; returns how many. */
export async function embedAll(h: SemanticHarness, workspace: string, db: Db): Promise<number> {
  const [ws] = await db.sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${workspace}`;
  let embedded = 0;
  for (;;) {
    const outcome = await h.embeddings.worker.embedBatch({ workspaceId: ws!.id });
    if (outcome.failed) throw outcome.failed;
    if (outcome.leased === 0) return embedded;
    embedded += outcome.embedded;
  }
}
