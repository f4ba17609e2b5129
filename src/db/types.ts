/** A row-returning tagged-template query: values become bind parameters, never SQL text. */
export type Sql = <Row = Record<string, unknown>>(strings: TemplateStringsArray, ...values: unknown[]) => Promise<Row[]>;

export interface Queryable {
  sql: Sql;
  /** Runs several statements with no parameters (migrations). */
  exec(text: string): Promise<void>;
}

export type Transaction = Queryable;

export type NotifyHandler = (payload: string) => void;

/**
 * The one database surface every feature uses. Two implementations exist (postgres.js and
 * embedded PGlite); nothing above this interface knows which one it talks to.
 */
export interface Db extends Queryable {
  readonly kind: "postgres" | "embedded";
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  listen(channel: string, onNotify: NotifyHandler): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /**
   * The embedded database only: a consistent gzipped tarball of the whole data directory, taken
   * between two statements of the one connection, so every committed transaction is in it.
   */
  snapshot?(): Promise<Blob>;
  close(): Promise<void>;
}
