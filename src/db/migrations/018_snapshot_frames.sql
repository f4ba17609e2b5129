-- An index snapshot is stored as independent zstd frames, each `frame_bytes` of the snapshot
-- (the last one shorter), back to back in `data`; `frame_ends` holds where each frame ends in it.
-- A reader fetches groups of whole frames at once and unpacks each group as it arrives, so reading
-- the row and unpacking it overlap instead of following one another, and no copy of the whole
-- compressed row is made. Snapshots written before are derived data in the old framing: dropped,
-- the next read of each workspace builds and stores a new one.
DELETE FROM index_snapshots;
ALTER TABLE index_snapshots ADD COLUMN frame_bytes integer NOT NULL;
ALTER TABLE index_snapshots ADD COLUMN frame_ends integer[] NOT NULL;
