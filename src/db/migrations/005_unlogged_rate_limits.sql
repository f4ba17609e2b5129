-- Rate-limit counters are written by every authenticated request. As an ordinary table each of those
-- writes made the request wait for a WAL flush (0.2-1.5 ms, more on a busy disk); an unlogged table
-- writes no WAL, so the commit does not wait. The trade-off: after a database crash (not a clean
-- restart) PostgreSQL empties the table, so the current minute's counts start again from zero, and
-- standbys do not see it. Both are acceptable for a one-minute request counter.
ALTER TABLE rate_limit_hits SET UNLOGGED;
