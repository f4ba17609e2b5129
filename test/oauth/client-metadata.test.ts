import { expect, test } from "bun:test";
import { isMetadataDocumentId } from "../../src/oauth/client-metadata";

test("a metadata-document client_id is an https URL with a path and nothing that could hide another", () => {
  for (const id of ["https://claude.ai/oauth/mcp-client.json", "https://app.example.com/client", "https://example.com:8443/a/b.json"]) {
    expect(isMetadataDocumentId(id)).toBe(true);
  }
  for (const id of [
    "mcpc_abc123",
    "http://example.com/client.json",
    "https://example.com",
    "https://example.com/",
    "https://example.com/client.json#frag",
    "https://user:pw@example.com/client.json",
    "https://example.com/a/../client.json",
    "https://example.com/./client.json",
    "not a url",
  ]) {
    expect(isMetadataDocumentId(id)).toBe(false);
  }
});
