/**
 * Which failures mean "the database is away" (503, retry) rather than a bug (500), read from real
 * errors: postgres.js against a port nothing listens on, a server that refuses connections while
 * it shuts down, a closed embedded database; and a bug that must stay a 500.
 */
import { expect, test } from "bun:test";
import { createServer } from "node:net";
import postgres from "postgres";
import { isDatabaseUnavailable } from "../../src/db/unavailable";
import { openTestDatabase } from "../helpers/databases";

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1));
    });
  });
}

const failureOf = async (run: () => Promise<unknown>): Promise<unknown> =>
  run().then(
    () => new Error("it did not fail"),
    (error: unknown) => error,
  );

test("postgres.js against a port nothing listens on is unavailable", async () => {
  const sql = postgres(`postgres://postgres@127.0.0.1:${await closedPort()}/postgres`, { connect_timeout: 2, max: 1, onnotice: () => {} });
  const error = await failureOf(() => sql`SELECT 1`);
  await sql.end({ timeout: 1 });
  expect(isDatabaseUnavailable(error)).toBe(true);
});

test("a closed embedded database is unavailable; an SQL error is not", async () => {
  const t = await openTestDatabase("embedded");
  expect(isDatabaseUnavailable(await failureOf(() => t.db.sql`SELECT * FROM no_such_table`))).toBe(false);
  await t.close();
  expect(isDatabaseUnavailable(await failureOf(() => t.db.sql`SELECT 1`))).toBe(true);
});

test("server codes: shutting down and connection exceptions are unavailable, a constraint violation is not", () => {
  expect(isDatabaseUnavailable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("the database system is starting up"), { code: "57P03" }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("connection failure"), { code: "08006" }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  expect(isDatabaseUnavailable(new TypeError("undefined is not a function"))).toBe(false);
  expect(isDatabaseUnavailable(null)).toBe(false);
});
