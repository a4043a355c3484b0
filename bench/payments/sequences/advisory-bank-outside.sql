-- Keyed without a separately committed claim: inside the operation's transaction, one statement
-- takes pg_try_advisory_xact_lock(hash of scope) (false = in flight: 409) and looks the key up;
-- the key row is INSERTed completed, with the answer, before COMMIT. The bank stays outside the
-- transaction (autocommit). 2 transactions, 2 WAL flushes: the same as without keys.
-- Replayed by pgbench against the server's own schema (server V1 migration + idempotency_keys.sql):
--   pgbench -n -M prepared -c 20 -j 2 -T 20 -f advisory-bank-outside.sql <db>   (20 = the server's request + bank pools)
\set r random(1, 2000000000)
INSERT INTO bank_charges (charge_key, account_id, amount, currency, outcome, created_at) VALUES (md5(:client_id || '-' || :r || clock_timestamp()), 'acct_bench', 500, 'eur', 'APPROVED', now()) ON CONFLICT (charge_key) DO NOTHING;
BEGIN;
SELECT :client_id || '-' || :r || '-' || clock_timestamp() AS k, pg_try_advisory_xact_lock(hashtextextended(:client_id || '-' || :r, 0)) AS locked, (SELECT completed_at FROM idempotency_keys WHERE account = 'acct_bench' AND route = 'POST /v1/payments' AND idem_key = :client_id || '-' || :r) AS done \gset
WITH p AS (INSERT INTO payments (id, account_id, amount, amount_refunded, currency, status, description, created_at, idempotency_key) VALUES ('pay_' || substr(md5(:k || 'p'), 1, 26), 'acct_bench', 500, 0, 'eur', 'succeeded', 'bench', now(), :k) RETURNING id)
INSERT INTO events (id, account_id, type, created_at, data) SELECT 'evt_' || substr(md5(:k || 'e'), 1, 26), 'acct_bench', 'payment.succeeded', now(), '{"id":"' || p.id || '","object":"payment","amount":500,"amount_refunded":0,"currency":"eur","status":"succeeded","description":"bench","created_at":"2026-12-02T12:00:00Z"}' FROM p;
INSERT INTO idempotency_keys (account, route, idem_key, fingerprint, lease_token, lease_expires_at, created_at, completed_at, response_status, response_headers, response_body) VALUES ('acct_bench', 'POST /v1/payments', :k, repeat('f', 64), md5(:r::text), 0, 1764680000000, 1764680000001, 201, 'Content-Type: application/json;charset=utf-8', convert_to(repeat('x', 191), 'UTF8'));
COMMIT;
