import { expect, test } from "bun:test";
import { TEST_ADMIN_TOKEN, testApp } from "../helpers/app";
import { describeEachDb } from "../helpers/databases";

describeEachDb("GET /v1/admin/backup", (get) => {
  test("embedded: a gzipped tarball of the data directory; PostgreSQL: 409 backup_unsupported pointing to pg_dump", async () => {
    const app = testApp(get().db);
    const res = await app.handle(new Request("http://localhost/v1/admin/backup", { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }));
    if (get().db.kind === "embedded") {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/gzip");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      expect(bytes.length).toBeGreaterThan(100_000);
    } else {
      expect(res.status).toBe(409);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("backup_unsupported");
      expect(body.error.message).toContain("pg_dump");
    }
  });

  test("an API key is not the admin credential", async () => {
    const app = testApp(get().db);
    const res = await app.handle(
      new Request("http://localhost/v1/admin/backup", { headers: { authorization: "Bearer ak_test_not_an_admin_token_00000000000" } }),
    );
    expect(res.status).toBe(401);
  });
});
