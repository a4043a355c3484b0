-- Keyed, with two round trips fewer than today: the bank as one INSERT .. ON CONFLICT DO NOTHING
-- (SELECT only when it inserted nothing), payment and event in one statement (CTE).
-- Replayed by pgbench against the server's own schema (server V1 migration + idempotency_keys.sql):
--   pgbench -n -M prepared -c 20 -j 2 -T 20 -f proposed.sql <db>   (20 = the server's request + bank pools)
\set r random(1, 2000000000)
INSERT INTO idempotency_keys (account, route, idem_key, fingerprint, lease_token, lease_expires_at, created_at) VALUES ('acct_bench', 'POST /v1/payments', :client_id || '-' || :r || '-' || clock_timestamp(), repeat('f', 64), md5(:r::text), 9999999999999, 1764680000000) RETURNING idem_key AS k \gset
INSERT INTO bank_charges (charge_key, account_id, amount, currency, outcome, created_at) VALUES (md5(:k), 'acct_bench', 500, 'eur', 'APPROVED', now()) ON CONFLICT (charge_key) DO NOTHING;
BEGIN;
WITH p AS (INSERT INTO payments (id, account_id, amount, amount_refunded, currency, status, description, created_at, idempotency_key) VALUES ('pay_' || substr(md5(:k || 'p'), 1, 26), 'acct_bench', 500, 0, 'eur', 'succeeded', 'bench', now(), :k) RETURNING id)
INSERT INTO events (id, account_id, type, created_at, data) SELECT 'evt_' || substr(md5(:k || 'e'), 1, 26), 'acct_bench', 'payment.succeeded', now(), '{"id":"' || p.id || '","object":"payment","amount":500,"amount_refunded":0,"currency":"eur","status":"succeeded","description":"bench","created_at":"2026-12-02T12:00:00Z"}' FROM p;
UPDATE idempotency_keys SET completed_at = 1764680000001, response_status = 201, response_headers = 'Content-Type: application/json;charset=utf-8', response_body = convert_to(repeat('x', 191), 'UTF8') WHERE account = 'acct_bench' AND route = 'POST /v1/payments' AND idem_key = :k AND lease_token = md5(:r::text) AND completed_at IS NULL;
COMMIT;
