-- The database work of one POST /v1/payments with the idempotency filter OFF, as the server sends it
-- (statement probe, bench/payments/run.sh --profile): bank SELECT + INSERT in autocommit on the
-- bank pool, then BEGIN, INSERT payments, INSERT events, COMMIT. 3 transactions, 2 WAL flushes.
-- Replayed by pgbench against the server's own schema (server V1 migration + idempotency_keys.sql):
--   pgbench -n -M prepared -c 20 -j 2 -T 20 -f nokeys.sql <db>   (20 = the server's request + bank pools)
\set r random(1, 2000000000)
SELECT :client_id || '-' || :r || '-' || clock_timestamp() AS k \gset
SELECT outcome FROM bank_charges WHERE charge_key = md5(:k) AND created_at >= now() - interval '1 day';
INSERT INTO bank_charges (charge_key, account_id, amount, currency, outcome, created_at) VALUES (md5(:k), 'acct_bench', 500, 'eur', 'APPROVED', now());
BEGIN;
INSERT INTO payments (id, account_id, amount, amount_refunded, currency, status, description, created_at, idempotency_key) VALUES ('pay_' || substr(md5(:k || 'p'), 1, 26), 'acct_bench', 500, 0, 'eur', 'succeeded', 'bench', now(), NULL);
INSERT INTO events (id, account_id, type, created_at, data) VALUES ('evt_' || substr(md5(:k || 'e'), 1, 26), 'acct_bench', 'payment.succeeded', now(), '{"id":"pay_x","object":"payment","amount":500,"amount_refunded":0,"currency":"eur","status":"succeeded","description":"bench","created_at":"2026-12-02T12:00:00Z"}');
COMMIT;
