-- Versioned rate-limit policy sets (docs/rate-limits.md, "Versions").
-- The set an account is pinned to (./run create-account --rate-limit-version V); NULL: its set
-- follows from its created_at. A pin to a set whose sunset has passed no longer counts.
ALTER TABLE accounts ADD COLUMN rate_limit_version VARCHAR(32);

-- When a server first served each previous set, which is when its accounts first saw its Sunset:
-- the 90-day rule counts the notice from here, so that restarting an instance later does not
-- shorten the notice it gave. Written once by whichever instance starts first.
CREATE TABLE rate_limit_announcements (
    version       VARCHAR(32) NOT NULL PRIMARY KEY,
    announced_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
