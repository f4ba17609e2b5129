// Imported as text so the compiled binary carries its migrations; append new files here in order.
import foundation from "./001_foundation.sql" with { type: "text" };
import memory from "./002_memory.sql" with { type: "text" };
import answers from "./003_answers.sql" with { type: "text" };
import searchIndex from "./004_search_index.sql" with { type: "text" };
import unloggedRateLimits from "./005_unlogged_rate_limits.sql" with { type: "text" };
import workspaceAgents from "./006_workspace_agents.sql" with { type: "text" };
import adminTokens from "./007_admin_tokens.sql" with { type: "text" };
import adminSessions from "./008_admin_sessions.sql" with { type: "text" };
import oauth from "./009_oauth.sql" with { type: "text" };
import openaiProvider from "./010_openai_provider.sql" with { type: "text" };
import claimColumns from "./011_claim_columns.sql" with { type: "text" };
import clientMetadataDocuments from "./012_client_metadata_documents.sql" with { type: "text" };
import indexSnapshots from "./013_index_snapshots.sql" with { type: "text" };
import factExpiry from "./014_fact_expiry.sql" with { type: "text" };
import webhooks from "./015_webhooks.sql" with { type: "text" };
import factVectors from "./016_fact_vectors.sql" with { type: "text" };
import alternateClaim from "./017_alternate_claim.sql" with { type: "text" };
import snapshotFrames from "./018_snapshot_frames.sql" with { type: "text" };
import agentScope from "./019_agent_scope.sql" with { type: "text" };
import factRecalls from "./020_fact_recalls.sql" with { type: "text" };
import forgetRuns from "./021_forget_runs.sql" with { type: "text" };
import factProvenance from "./022_fact_provenance.sql" with { type: "text" };
import factUpdates from "./023_fact_updates.sql" with { type: "text" };
import captureModel from "./024_capture_model.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "foundation", sql: foundation },
  { version: 2, name: "memory", sql: memory },
  { version: 3, name: "answers", sql: answers },
  { version: 4, name: "search_index", sql: searchIndex },
  { version: 5, name: "unlogged_rate_limits", sql: unloggedRateLimits },
  { version: 6, name: "workspace_agents", sql: workspaceAgents },
  { version: 7, name: "admin_tokens", sql: adminTokens },
  { version: 8, name: "admin_sessions", sql: adminSessions },
  { version: 9, name: "oauth", sql: oauth },
  { version: 10, name: "openai_provider", sql: openaiProvider },
  { version: 11, name: "claim_columns", sql: claimColumns },
  { version: 12, name: "client_metadata_documents", sql: clientMetadataDocuments },
  { version: 13, name: "index_snapshots", sql: indexSnapshots },
  { version: 14, name: "fact_expiry", sql: factExpiry },
  { version: 15, name: "webhooks", sql: webhooks },
  { version: 16, name: "fact_vectors", sql: factVectors },
  { version: 17, name: "alternate_claim", sql: alternateClaim },
  { version: 18, name: "snapshot_frames", sql: snapshotFrames },
  { version: 19, name: "agent_scope", sql: agentScope },
  { version: 20, name: "fact_recalls", sql: factRecalls },
  { version: 21, name: "forget_runs", sql: forgetRuns },
  { version: 22, name: "fact_provenance", sql: factProvenance },
  { version: 23, name: "fact_updates", sql: factUpdates },
  { version: 24, name: "capture_model", sql: captureModel },
];
