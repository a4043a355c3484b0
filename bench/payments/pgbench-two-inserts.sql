-- pgbench custom script: the database work of one payment, as the yardstick for the server.
-- One transaction, two inserts: a payment row and its payment.succeeded event row (the event
-- carries the payment as JSON), into tables shaped like the server's `payments` and `events`
-- (V1 migration: varchar ids, FK to accounts, an index on (account_id, idempotency_key), listing
-- indexes). Ids look like the server's: a prefix and 26 time-ordered characters. The schema is
-- created by run.sh (function pgbench_schema) in a throw-away database.
--   pgbench -n -M prepared -c 64 -j 2 -T 30 -f pgbench-two-inserts.sql <db>
-- -M prepared because pgjdbc switches to server-side prepared statements after 5 executions.
\set amount random(1, 100000)
\set r random(0, 999999999)
BEGIN;
INSERT INTO payments (id, account_id, amount, currency, status, description, idempotency_key, created_at)
  VALUES ('pay_' || lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || substr(md5(:client_id || '-' || :r), 1, 14),
          'acct_bench', :amount, 'eur', 'succeeded', 'bench', md5(:client_id || '/' || :r || clock_timestamp()), now());
INSERT INTO events (id, account_id, type, created_at, data)
  VALUES ('evt_' || lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') || substr(md5(:r || '-' || :client_id), 1, 14),
          'acct_bench', 'payment.succeeded', now(),
          '{"id":"pay_x","object":"payment","amount":' || :amount || ',"currency":"eur","status":"succeeded","description":"bench","created_at":"2026-12-02T12:00:00Z"}');
COMMIT;
