-- One rate-limit decision over every charge of a request, atomically: every charge is evaluated
-- first, and the new states are written only if all of them allow (and only when charging).
-- The arithmetic is the one in docs/rate-limits.md, "The arithmetic every store shares"; it must
-- give the same figures as the in-memory store, so every step is integer arithmetic in
-- microseconds. Lua numbers are doubles: Policy keeps quota*window and burst*window below 2^50,
-- so every value here stays an exact integer below 2^53.
--
-- One call decides one request or several (a batch of concurrent requests, decided one after the
-- other in the order given, each seeing the writes of those before it):
--
-- KEYS     the base keys of every charge, request after request; every key of one request
--          shares one hash tag (one slot), so the window keys derived from a base key (base ..
--          ':' .. window index) are in it too (a batch is only sent to a standalone Redis)
-- ARGV[1]  now in microseconds since the epoch, or '' to use Redis's own clock (TIME)
-- ARGV[2]  the least time in milliseconds a written key lives (0 for none)
-- then, for each request: '1' to charge or '0' to peek (evaluate and report, write nothing), the
--          number n of its charges, and for each charge: algorithm, window W, quota Q, burst B,
--          cost c
--
-- Returns {now, then for each request: 1 if every charge allows, 0 if not, then for each charge:
--          1 if it allows else 0, remaining, reset, retryAfter}. A request whose evaluation fails
--          (a key of another type under our prefix, an unknown algorithm) gets -1 and the error's
--          text in place of its first figure, zeros in the rest, and wrote nothing; the others
--          are decided as usual.

-- Redis runs this whole body on every call (each local function is a new closure each time), so
-- it is written for that: a request with one charge (the common case) makes no table but its
-- reply, and no charge makes a table or a closure of its own. Numbers are passed to redis.call as
-- numbers: Redis writes an integral one with all its digits ("%.17g", or as an integer from 7.2),
-- where Lua's tostring and '..' keep only 14 significant digits, too few for a timestamp in
-- microseconds. That spares a string.format per write; window indexes, which become part of a
-- key, still go through one.

-- Redis >= 5 replicates a script's effects, not the script, by default (7.0 only does that);
-- older servers must be told, or a write after TIME is refused.
if redis.replicate_commands then
  redis.replicate_commands()
end

local call, tonumber, floor = redis.call, tonumber, math.floor

-- Floor of a / b for integers. a / b is rounded to the nearest double, which can land on the
-- next integer when the exact quotient is just below it; one correction step restores it.
-- (The ceiling of a / b is -floordiv(-a, b).)
local function floordiv(a, b)
  local q = floor(a / b)
  if q * b > a then
    return q - 1
  elseif (q + 1) * b <= a then
    return q + 1
  end
  return q
end

-- remaining is reported within [0, Q]: with a burst above the quota a bucket holds more than the
-- quota, and the headers never show more than it
local function clamp(remaining, quota)
  if remaining < 0 then
    return 0
  elseif remaining > quota then
    return quota
  end
  return remaining
end

local now
if ARGV[1] == '' then
  local time = call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[1])
end
local min_ttl_ms = ARGV[2] ~= '0' and tonumber(ARGV[2])

-- Evaluates at now the charge whose base key is key and whose arguments start at ARGV[arg]. Returns whether its cost fits now and, if not, in how many
-- microseconds; remaining and reset as the state is; and when it fits, remaining and reset after
-- charging and the write that charges: key, value (a token bucket's level), lifetime in
-- microseconds, and for a token bucket the time of that level (else nil).
local function evaluate(key, arg)
  local algorithm = ARGV[arg]
  local W, Q, B, c = tonumber(ARGV[arg + 1]), tonumber(ARGV[arg + 2]),
      tonumber(ARGV[arg + 3]), tonumber(ARGV[arg + 4])

  if algorithm == 'gcra' then
    local T = -floordiv(-W, Q)
    local tat = tonumber(call('GET', key)) or 0
    local tat0 = tat > now and tat or now
    local limit = B * T
    local new_tat = tat0 + c * T
    local remaining, reset = clamp(floordiv(limit - (tat0 - now), T), Q), tat0 - now
    if c > B then
      return false, W, remaining, reset
    elseif new_tat - now <= limit then
      return true, 0, remaining, reset,
          clamp(floordiv(limit - (new_tat - now), T), Q), new_tat - now, key, new_tat, new_tat - now
    end
    return false, new_tat - now - limit, remaining, reset

  elseif algorithm == 'token_bucket' then
    local capacity = B * W
    local level, last = capacity, now
    local stored = call('HMGET', key, 'level', 'last')
    if stored[1] and stored[2] then
      level, last = tonumber(stored[1]), tonumber(stored[2])
    end
    local elapsed = now - last
    if elapsed < 0 then
      elapsed = 0
    end
    local fill = -floordiv(-capacity, Q)
    if elapsed > fill then
      elapsed = fill
    end
    local level0 = level + elapsed * Q
    if level0 > capacity then
      level0 = capacity
    end
    local cost = c * W
    local remaining, reset = clamp(floordiv(level0, W), Q), -floordiv(level0 - capacity, Q)
    if c > B then
      return false, W, remaining, reset
    elseif level0 >= cost then
      local new_level = level0 - cost
      local refill = -floordiv(new_level - capacity, Q)
      -- last never moves backwards: the refill up to it is in the level already
      return true, 0, remaining, reset, clamp(floordiv(new_level, W), Q), refill,
          key, new_level, refill, last > now and last or now
    end
    return false, -floordiv(level0 - cost, Q), remaining, reset

  elseif algorithm == 'fixed_window' then
    local k = floordiv(now, W)
    local window_key = key .. ':' .. string.format('%.0f', k)
    local count = tonumber(call('GET', window_key)) or 0
    local reset = (k + 1) * W - now
    if c <= Q and count + c <= Q then
      return true, 0, clamp(Q - count, Q), reset, clamp(Q - (count + c), Q), reset, window_key, count + c, reset
    end
    -- a cost above the quota never fits; any other fits in the next window
    return false, (c > Q) and W or reset, clamp(Q - count, Q), reset

  elseif algorithm == 'sliding_window' then
    local k = floordiv(now, W)
    local e = now - k * W
    local window_key = key .. ':' .. string.format('%.0f', k)
    local cur = tonumber(call('GET', window_key)) or 0
    local prev = tonumber(call('GET', key .. ':' .. string.format('%.0f', k - 1))) or 0
    local weighted_prev = prev * (W - e)
    -- what the previous window leaves of the quota, and when a state with cur = 0 is unused
    local room = floordiv(Q * W - weighted_prev, W)
    local reset_empty = prev > 0 and (k + 1) * W - now or 0
    local remaining, reset = clamp(room - cur, Q), cur > 0 and (k + 2) * W - now or reset_empty
    if c > Q then
      return false, W, remaining, reset
    elseif weighted_prev + (cur + c) * W <= Q * W then
      -- the count matters for this window and, as the previous one, for the next
      local lifetime = (k + 2) * W - now
      return true, 0, remaining, reset, clamp(room - (cur + c), Q), cur + c > 0 and lifetime or reset_empty,
          window_key, cur + c, lifetime
    end
    local excess = weighted_prev + (cur + c) * W - Q * W
    local wait = prev > 0 and -floordiv(-excess, prev)
    if wait and wait < W - e then
      -- fits later in this window, once enough of the previous one has slid out
      return false, wait, remaining, reset
    elseif cur == 0 then
      return false, W - e, remaining, reset
    end
    -- in the next window this window's count weighs as the previous one
    local e2 = W - floordiv((Q - c) * W, cur)
    return false, (W - e) + (e2 > 0 and e2 or 0), remaining, reset
  end
  error(redis.error_reply('unknown rate-limit algorithm: ' .. tostring(algorithm)))
end

-- Keys expire when their state would read as absent again, so Redis's memory stays bounded by
-- the keys in use: in milliseconds rounded up (a key must never vanish while it still matters),
-- and at least ARGV[2] ms.
local function write(key, value, lifetime, last)
  local ttl_ms = -floordiv(-lifetime, 1000)
  if min_ttl_ms and ttl_ms < min_ttl_ms then
    ttl_ms = min_ttl_ms
  end
  if last then
    call('HSET', key, 'level', value, 'last', last)
    call('PEXPIRE', key, ttl_ms)
  else
    call('SET', key, value, 'PX', ttl_ms)
  end
end

-- Whether the request being decided has begun to write: an error before that is its own (its
-- keys or policies), an error after it may have left part of its charges written.
local writing

-- Decides one request: n charges whose base keys start at KEYS[k] and arguments at ARGV[a]. Puts
-- its status at reply[at] and each charge's four figures after it.
local function decide(k, a, n, charging, reply, at)
  writing = false
  if n == 1 then
    -- the common case, without any table but the reply
    local allow, retry_after, remaining, reset, remaining_after, reset_after, key, value, lifetime, last =
        evaluate(KEYS[k], a)
    if not allow then
      reply[at], reply[at + 1], reply[at + 2], reply[at + 3], reply[at + 4] = 0, 0, remaining, reset, retry_after
    elseif charging then
      writing = true
      write(key, value, lifetime, last)
      reply[at], reply[at + 1], reply[at + 2], reply[at + 3], reply[at + 4] = 1, 1, remaining_after, reset_after, 0
    else
      reply[at], reply[at + 1], reply[at + 2], reply[at + 3], reply[at + 4] = 1, 1, remaining, reset, 0
    end
    return
  end
  -- every charge first, keeping the writes (four values each) and the figures after charging of
  -- the allowing charges until it is known whether all of them allow
  local after, writes = {}, {}
  local all_allow = true
  for i = 0, n - 1 do
    local allow, retry_after, remaining, reset, remaining_after, reset_after, key, value, lifetime, last =
        evaluate(KEYS[k + i], a + 5 * i)
    local p = at + 1 + 4 * i
    reply[p], reply[p + 1], reply[p + 2], reply[p + 3] = allow and 1 or 0, remaining, reset, retry_after
    if allow then
      after[p + 1], after[p + 2] = remaining_after, reset_after
      local w = #writes
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] = key, value, lifetime, last or false
    else
      all_allow = false
    end
  end
  if not all_allow then
    reply[at] = 0
    return
  end
  reply[at] = 1
  if charging then
    writing = true
    for w = 1, #writes, 4 do
      write(writes[w], writes[w + 1], writes[w + 2], writes[w + 3])
    end
    for p = at + 1, at + 4 * n, 4 do
      reply[p + 1], reply[p + 2] = after[p + 1], after[p + 2]
    end
  end
end

local reply = {now}
local k, a, at, last_arg = 1, 3, 2, #ARGV
while a <= last_arg do
  local n = tonumber(ARGV[a + 1])
  local ok, err = pcall(decide, k, a + 2, n, ARGV[a] == '1', reply, at)
  if not ok then
    local text = type(err) == 'table' and tostring(err.err) or tostring(err)
    local code = text:match('^%-?(%u+) ')
    local server = {MASTERDOWN = true, LOADING = true, BUSY = true, READONLY = true, OOM = true,
                    CLUSTERDOWN = true, NOREPLICAS = true, TRYAGAIN = true}
    if writing or (code and server[code]) then
      -- the server cannot serve now (read-only replica, out of memory, ...), or a write failed
      -- half-way: the whole call fails, as a server that cannot decide must (the requests before
      -- it in a batch may have been charged: their callers go by their fail modes, counting too
      -- much at worst)
      error(err)
    end
    -- an error while reading, from this request's own keys or policies (a key of another type,
    -- a state it cannot read, an unknown algorithm): it alone fails, having written nothing
    reply[at], reply[at + 1] = -1, text
    for p = at + 2, at + 4 * n do
      reply[p] = 0
    end
  end
  k, a, at = k + n, a + 2 + 5 * n, at + 1 + 4 * n
end
return reply
