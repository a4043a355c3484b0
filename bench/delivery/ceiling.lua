-- wrk script for the ceiling of bench/delivery/run.sh: POSTs the payload the dispatchers send
-- (a payment.succeeded event of the same shape and size, one fixed id) with headers of the same
-- names and sizes as a signed attempt, to the same receiver.
--
--   wrk -t2 -c64 -d30s --latency -s ceiling.lua http://127.0.0.1:PORT/hooks/0
--
-- done() prints one machine-readable line that run.sh parses:
--   BENCH requests=.. duration_s=.. rps=.. p50_ms=.. p99_ms=.. non2xx=.. errors_total=..

local t = "2026-12-02T18:00:00.123456Z"
wrk.method = "POST"
wrk.body = '{"id":"evt_a_123456","type":"payment.succeeded","timestamp":"' .. t .. '",'
  .. '"data":{"id":"pay_01kbfz3x8m2c7v9q4w6e1r5t0y","object":"payment","amount":500,'
  .. '"amount_refunded":0,"currency":"eur","status":"succeeded","description":"bench",'
  .. '"created_at":"' .. t .. '"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Retrysafe-Webhooks/0.1.0-SNAPSHOT"
wrk.headers["webhook-id"] = "msg_01kbfz3x8m2c7v9q4w6e1r5t0y"
wrk.headers["webhook-timestamp"] = "1796237015"
wrk.headers["webhook-signature"] = "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="

function done(summary, latency, requests)
  local s = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format("BENCH requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f non2xx=%d errors_total=%d\n",
    summary.requests, s, summary.requests / s, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status, e.connect + e.read + e.write + e.timeout + e.status))
end
