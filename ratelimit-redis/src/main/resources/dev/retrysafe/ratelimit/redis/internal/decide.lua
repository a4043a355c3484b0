-- One rate-limit decision over every charge of a request, atomically: every charge is evaluated
-- first, and the new states are written only if all of them allow (and only when charging); or a
-- refund, which gives every charge back (docs/rate-limits.md, "Refunds").
-- The arithmetic is the one in docs/rate-limits.md, "The arithmetic every store shares"; it must
-- give the same figures as the in-memory store, so every step is integer arithmetic in
-- microseconds. Lua numbers are doubles: Policy keeps quota*window and burst*window below 2^50,
-- so every value here stays an exact integer below 2^53.
--
-- One call decides one request or several (a batch of concurrent requests, decided one after the
-- other in the order given, each seeing the writes of those before it). The numbers of a policy
-- come once per call, however many requests of the call it charges, and each request is one
-- argument, so that a batch costs Redis little more than the keys and writes it must touch:
--
-- KEYS     the base keys of every charge, request after request; every key of one request
--          shares one hash tag (one slot), so the window keys derived from a base key (base ..
--          ':' .. window index) are in it too (a batch is only sent to a standalone Redis)
-- ARGV[1]  now in microseconds since the epoch, or '' to use Redis's own clock (TIME)
-- ARGV[2]  the least time in milliseconds a written key lives (0 for none)
-- ARGV[3]  the number m of kinds of charge, then for each kind: algorithm, window W, quota Q,
--          burst B, cost c
-- then one argument per request: the kinds of its charges (1 to m, one per key of the request,
--          in order), joined by ','; with a leading '?' when the request only peeks (evaluate and
--          report, write nothing), or a leading '!' when it refunds (give back each charge's cost
--          as far as its state holds it, then report as a peek does). So "1" charges one key by
--          kind 1, "?2,1" peeks at two keys, "!2,1" refunds them.
--
-- Returns {now, then for each charge of each request: remaining, reset, retryAfter}. A charge
-- allows if and only if its retryAfter is 0 (a refusal always waits some microseconds), and a
-- request is allowed when all its charges allow; when all allow and it charges, remaining and
-- reset are the figures after charging; a refund's are those after refunding. A request whose
-- evaluation fails (a key of another type under our prefix, an unknown algorithm, an argument it
-- cannot read) gets -1 and the error's text in place of its first two figures, zeros in the rest,
-- and wrote nothing; the others are decided as usual.

-- Redis runs this whole body on every call (each local function is a new closure each time), so
-- it is written for that: the kinds' numbers are read once per call, a request with one charge
-- (the common case) makes no table and reads no string but its one argument, and no charge makes
-- a table or a closure of its own. Numbers are passed to redis.call as
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

-- The kinds of charge, by index: algorithm, W, Q, B, c, and for GCRA the emission interval
-- T = ceil(W / Q). A kind that cannot be read is left out (nil), and fails the requests that use it.
local kinds = tonumber(ARGV[3]) or 0
local algorithm_of, W_of, Q_of, B_of, c_of, T_of = {}, {}, {}, {}, {}, {}
for i = 1, kinds do
  local at = 4 + 5 * (i - 1)
  local W, Q, B, c = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  if W and Q and B and c and W >= 1 and Q >= 1 and B >= 1 and c >= 1 then
    algorithm_of[i], W_of[i], Q_of[i], B_of[i], c_of[i] = ARGV[at], W, Q, B, c
    T_of[i] = -floordiv(-W, Q)
  end
end
local first_request = 4 + 5 * kinds

-- The key of window k of base key.
local function window_key(key, k)
  return key .. ':' .. string.format('%.0f', k)
end

-- A token bucket's level refilled to now (at most full, capacity = B*W), the time of its level,
-- and whether it is stored at all (a bucket that is not is full, as of now).
local function bucket(key, capacity, Q)
  local stored = call('HMGET', key, 'level', 'last')
  if not (stored[1] and stored[2]) then
    return capacity, now, false
  end
  local level, last = tonumber(stored[1]), tonumber(stored[2])
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
  return level0, last, true
end

-- Fails the request of a charge of kind i whose algorithm is not known (nil: no such kind).
local function unknown_kind(i, algorithm)
  if algorithm == nil then
    error(redis.error_reply('no such kind of charge, or one with unreadable numbers: ' .. tostring(i)))
  end
  error(redis.error_reply('unknown rate-limit algorithm: ' .. tostring(algorithm)))
end

-- Evaluates at now a charge of kind i on base key. Returns whether its cost fits now and, if not,
-- in how many microseconds; remaining and reset as the state is; and when it fits, remaining and
-- reset after charging and the write that charges: key, value (a token bucket's level), lifetime
-- in microseconds, and for a token bucket the time of that level (else nil).
local function evaluate(key, i)
  local algorithm, W, Q, B, c = algorithm_of[i], W_of[i], Q_of[i], B_of[i], c_of[i]

  if algorithm == 'gcra' then
    local T = T_of[i]
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
    local level0, last = bucket(key, capacity, Q)
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
    local count_key = window_key(key, k)
    local count = tonumber(call('GET', count_key)) or 0
    local reset = (k + 1) * W - now
    if c <= Q and count + c <= Q then
      return true, 0, clamp(Q - count, Q), reset, clamp(Q - (count + c), Q), reset, count_key, count + c, reset
    end
    -- a cost above the quota never fits; any other fits in the next window
    return false, (c > Q) and W or reset, clamp(Q - count, Q), reset

  elseif algorithm == 'sliding_window' then
    local k = floordiv(now, W)
    local e = now - k * W
    local cur_key = window_key(key, k)
    local cur = tonumber(call('GET', cur_key)) or 0
    local prev = tonumber(call('GET', window_key(key, k - 1))) or 0
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
          cur_key, cur + c, lifetime
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
  unknown_kind(i, algorithm)
end

-- Works out at now the refund of a charge of kind i on base key: its cost goes back as far as the
-- state still holds it, never past an absent key's (docs/rate-limits.md, "Refunds"). Appends the
-- writes to writes, four values each as decide keeps them, where a value of false deletes the key
-- (its state reads as absent again); reads only, and a key that is not stored stays so. A written
-- key lives as long as decide would have it live: until its state reads as absent again.
local function refund_of(key, i, writes)
  local algorithm, W, Q, B, c = algorithm_of[i], W_of[i], Q_of[i], B_of[i], c_of[i]
  local w = #writes

  if algorithm == 'gcra' then
    local T = T_of[i]
    local tat = tonumber(call('GET', key)) or 0
    if tat > now then
      -- tat - c*T, not before now; c*T taken at most up to the debt, as the Java does
      local units = -floordiv(now - tat, T)
      if c < units then
        units = c
      end
      local new_tat = tat - units * T
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] =
          key, new_tat > now and new_tat, new_tat - now, false
    end

  elseif algorithm == 'token_bucket' then
    local capacity = B * W
    local level0, last, stored = bucket(key, capacity, Q)
    if stored then
      local units = c < B and c or B
      local level = level0 + units * W
      if level > capacity then
        level = capacity
      end
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] =
          key, level < capacity and level, -floordiv(level - capacity, Q), last > now and last or now
    end

  elseif algorithm == 'fixed_window' then
    -- only the current window's count: a charge of an earlier window is gone with it
    local k = floordiv(now, W)
    local count_key = window_key(key, k)
    local count = tonumber(call('GET', count_key)) or 0
    if count > 0 then
      local left = count - c
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] =
          count_key, left > 0 and left, (k + 1) * W - now, false
    end

  elseif algorithm == 'sliding_window' then
    -- off the current window's count, and what it cannot cover off the previous one's (exact
    -- within the window of the charge, an approximation after it)
    local k = floordiv(now, W)
    local cur_key, prev_key = window_key(key, k), window_key(key, k - 1)
    local cur = tonumber(call('GET', cur_key)) or 0
    local prev = tonumber(call('GET', prev_key)) or 0
    local new_cur = cur > c and cur - c or 0
    local rest = c > cur and c - cur or 0
    local new_prev = prev > rest and prev - rest or 0
    if new_cur ~= cur then
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] =
          cur_key, new_cur > 0 and new_cur, (k + 2) * W - now, false
      w = w + 4
    end
    if new_prev ~= prev then
      -- the previous window's count matters until this window ends
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] =
          prev_key, new_prev > 0 and new_prev, (k + 1) * W - now, false
    end

  else
    unknown_kind(i, algorithm)
  end
end

-- Keys expire when their state would read as absent again, so Redis's memory stays bounded by
-- the keys in use: in milliseconds rounded up (a key must never vanish while it still matters),
-- and at least ARGV[2] ms. A value of false deletes the key instead: a refund brought its state
-- back to an absent key's (and a lifetime of 0 would be an error).
local function write(key, value, lifetime, last)
  if not value then
    call('DEL', key)
    return
  end
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

-- Decides a request of one charge, of kind i on KEYS[k], charging; puts its three figures at reply[at].
local function decide_one(k, i, reply, at)
  local allow, retry_after, remaining, reset, remaining_after, reset_after, key, value, lifetime, last =
      evaluate(KEYS[k], i)
  if not allow then
    reply[at], reply[at + 1], reply[at + 2] = remaining, reset, retry_after
  else
    writing = true
    write(key, value, lifetime, last)
    reply[at], reply[at + 1], reply[at + 2] = remaining_after, reset_after, 0
  end
end

-- Decides a request whose kinds of charge are in the list spec (its argument without the peek
-- mark), on the keys from KEYS[k], charging or not; puts each charge's three figures from
-- reply[at]. Every charge is evaluated first, keeping the writes (four values each) and the
-- figures after charging of the allowing charges until it is known whether all of them allow.
local function decide(k, spec, charging, reply, at)
  local after, writes = {}, {}
  local all_allow = true
  local p = at
  -- every piece between commas, empty ones too, so that the charges evaluated are the ones
  -- charges_of counts (an empty piece is no kind, and fails the request alone)
  for kind in string.gmatch(spec .. ',', '([^,]*),') do
    local allow, retry_after, remaining, reset, remaining_after, reset_after, key, value, lifetime, last =
        evaluate(KEYS[k], tonumber(kind))
    reply[p], reply[p + 1], reply[p + 2] = remaining, reset, retry_after
    if allow then
      after[p], after[p + 1] = remaining_after, reset_after
      local w = #writes
      writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] = key, value, lifetime, last or false
    else
      all_allow = false
    end
    k, p = k + 1, p + 3
  end
  if all_allow and charging then
    writing = true
    for w = 1, #writes, 4 do
      write(writes[w], writes[w + 1], writes[w + 2], writes[w + 3])
    end
    for q = at, p - 1, 3 do
      reply[q], reply[q + 1] = after[q], after[q + 1]
    end
  end
end

-- Refunds a request whose kinds of charge are in the list spec (its argument without the refund
-- mark), on the keys from KEYS[k]: every charge's refund is worked out first, so that a request
-- that cannot be read writes nothing; then the writes; then each charge's three figures from
-- reply[at], as a peek reports them after the refund.
local function refund(k, spec, reply, at)
  local writes = {}
  local key = k
  for kind in string.gmatch(spec .. ',', '([^,]*),') do
    refund_of(KEYS[key], tonumber(kind), writes)
    key = key + 1
  end
  writing = true
  for w = 1, #writes, 4 do
    write(writes[w], writes[w + 1], writes[w + 2], writes[w + 3])
  end
  decide(k, spec, false, reply, at)
end

-- The number of charges of a request's argument: one more than its commas.
local function charges_of(spec)
  local _, commas = string.gsub(spec, ',', ',')
  return commas + 1
end

local reply = {now}
local k, at = 1, 2
for a = first_request, #ARGV do
  local spec = ARGV[a]
  local one = tonumber(spec)
  local n, ok, err = 1
  writing = false
  if one then
    ok, err = pcall(decide_one, k, one, reply, at)
  else
    local mark = string.sub(spec, 1, 1)
    if mark == '?' or mark == '!' then
      spec = string.sub(spec, 2)
    end
    n = charges_of(spec)
    if mark == '!' then
      ok, err = pcall(refund, k, spec, reply, at)
    else
      ok, err = pcall(decide, k, spec, mark ~= '?', reply, at)
    end
  end
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
    for p = at + 2, at + 3 * n - 1 do
      reply[p] = 0
    end
  end
  k, at = k + n, at + 3 * n
end
return reply
