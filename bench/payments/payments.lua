-- wrk script for POST /v1/payments (driven by bench/payments/run.sh).
--
--   wrk -t2 -c64 -d30s --latency -s payments.lua http://127.0.0.1:PORT -- <api-key> <keys|nokeys> <nonce>
--
-- keys   : every request carries a fresh, unique Idempotency-Key "<nonce>-<thread>-<n>", so
--          every request is a first use (claim + operation + stored answer), never a replay.
-- nokeys : no Idempotency-Key header (the server runs with the idempotency filter off).
-- nonce  : makes keys unique across the warm-up and the measured run (and across runs).
--
-- done() prints one machine-readable line that run.sh parses:
--   BENCH requests=.. duration_s=.. rps=.. p50_ms=.. p90_ms=.. p99_ms=.. p999_ms=.. max_ms=..
--         non2xx=.. connect_err=.. read_err=.. write_err=.. timeouts=.. errors_total=..
-- With BENCH_STATUS_DETAIL=1 in the environment it also counts every status code (a Lua
-- response() callback, which costs wrk CPU, hence off by default) and prints
--   BENCH_STATUS <code>=<count> ...
-- wrk's own "Non-2xx or 3xx responses" counter (summary.errors.status) is what non2xx reports;
-- the server never answers 3xx on this route, so that is the non-2xx count.

local threads = {}
local next_id = 1

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local api_key, mode, nonce
local path = "/v1/payments"
local body = '{"amount":500,"currency":"eur","description":"bench"}'
local base_headers
local n = 0

function init(args)
  api_key = args[1] or error("payments.lua: first script argument must be the API key")
  mode = args[2] or "keys"
  if mode ~= "keys" and mode ~= "nokeys" then
    error("payments.lua: second script argument must be 'keys' or 'nokeys', got " .. mode)
  end
  nonce = args[3] or tostring(os.time())
  base_headers = {
    ["Authorization"] = "Bearer " .. api_key,
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json",
  }
  statuses = {}
end

function request()
  n = n + 1
  local headers = base_headers
  if mode == "keys" then
    headers = {
      ["Authorization"] = base_headers["Authorization"],
      ["Content-Type"] = base_headers["Content-Type"],
      ["Accept"] = base_headers["Accept"],
      ["Idempotency-Key"] = nonce .. "-" .. tid .. "-" .. n,
    }
  end
  return wrk.format("POST", path, headers, body)
end

if os.getenv("BENCH_STATUS_DETAIL") == "1" then
  function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local secs = summary.duration / 1e6
  local total_err = e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format(
    "BENCH requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f mean_ms=%.3f non2xx=%d connect_err=%d read_err=%d write_err=%d timeouts=%d errors_total=%d\n",
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    latency.max / 1000, latency.mean / 1000,
    e.status, e.connect, e.read, e.write, e.timeout, total_err))
  if os.getenv("BENCH_STATUS_DETAIL") == "1" then
    local merged = {}
    for _, t in ipairs(threads) do
      local s = t:get("statuses") or {}
      for code, count in pairs(s) do merged[code] = (merged[code] or 0) + count end
    end
    local parts = {}
    for code, count in pairs(merged) do table.insert(parts, code .. "=" .. count) end
    table.sort(parts)
    io.write("BENCH_STATUS " .. table.concat(parts, " ") .. "\n")
  end
end
