-- One rate-limit decision over every charge of a request, atomically: every charge is evaluated
-- first, and the new states are written only if all of them allow (and only when charging).
-- The arithmetic is the one in docs/rate-limits.md, "The arithmetic every store shares"; it must
-- give the same figures as the in-memory store, so every step is integer arithmetic in
-- microseconds. Lua numbers are doubles: Policy keeps quota*window and burst*window below 2^50,
-- so every value here stays an exact integer below 2^53.
--
-- KEYS[i]  the base key of charge i; every key of a request shares one hash tag (one slot), so
--          the window keys derived from a base key (base .. ':' .. window index) are in it too
-- ARGV[1]  '1' to charge, '0' to peek (evaluate and report, write nothing)
-- ARGV[2]  now in microseconds since the epoch, or '' to use Redis's own clock (TIME)
-- ARGV[3]  the least time in milliseconds a written key lives (0 for none)
-- ARGV[4 + 5*(i-1) ..] for charge i: algorithm, window W, quota Q, burst B, cost c
--
-- Returns {now, 1 if every charge allows else 0,
--          then for each charge: 1 if it allows else 0, remaining, reset, retryAfter}.

-- Redis >= 5 replicates a script's effects, not the script, by default (7.0 only does that);
-- older servers must be told, or a write after TIME is refused.
if redis.replicate_commands then
  redis.replicate_commands()
end

-- Floor of a / b for integers. a / b is rounded to the nearest double, which can land on the
-- next integer when the exact quotient is just below it; one correction step restores it.
local function floordiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

local function ceildiv(a, b)
  return -floordiv(-a, b)
end

-- Integers as digits: Redis turns Lua numbers into strings with 14 significant digits, which
-- would round a microsecond timestamp.
local function digits(n)
  return string.format('%.0f', n)
end

local function clamp(remaining, quota)
  return math.max(0, math.min(quota, remaining))
end

local min_ttl_ms = tonumber(ARGV[3])

-- Keys expire when their state would read as absent again, so Redis's memory stays bounded by
-- the keys in use. Milliseconds rounded up: a key must never vanish while it still matters.
local function ttl_ms(ttl_micros)
  return digits(math.max(min_ttl_ms, ceildiv(ttl_micros, 1000)))
end

-- Each algorithm returns one table:
--   allow, retry_after         whether the cost fits now, and if not, in how many microseconds
--   before = {remaining, reset} the state as it is (reported when nothing is charged)
--   after  = {remaining, reset} the state after charging (only when allow)
--   commit                      writes the charged state (only when allow)

local function gcra(key, W, Q, B, c, now)
  local T = ceildiv(W, Q)
  local tat = tonumber(redis.call('GET', key)) or 0
  local tat0 = math.max(tat, now)
  local limit = B * T
  local new_tat = tat0 + c * T
  local result = {
    before = {clamp(floordiv(limit - (tat0 - now), T), Q), tat0 - now},
  }
  if c > B then
    result.allow, result.retry_after = false, W
  elseif new_tat - now <= limit then
    result.allow, result.retry_after = true, 0
    result.after = {clamp(floordiv(limit - (new_tat - now), T), Q), new_tat - now}
    result.commit = function()
      redis.call('SET', key, digits(new_tat), 'PX', ttl_ms(new_tat - now))
    end
  else
    result.allow, result.retry_after = false, new_tat - now - limit
  end
  return result
end

local function token_bucket(key, W, Q, B, c, now)
  local capacity = B * W
  local level, last = capacity, now
  local stored = redis.call('HMGET', key, 'level', 'last')
  if stored[1] and stored[2] then
    level, last = tonumber(stored[1]), tonumber(stored[2])
  end
  local elapsed = math.min(math.max(0, now - last), ceildiv(capacity, Q))
  local level0 = math.min(capacity, level + elapsed * Q)
  local cost = c * W
  local result = {
    before = {clamp(floordiv(level0, W), Q), ceildiv(capacity - level0, Q)},
  }
  if c > B then
    result.allow, result.retry_after = false, W
  elseif level0 >= cost then
    local new_level = level0 - cost
    local refill = ceildiv(capacity - new_level, Q)
    result.allow, result.retry_after = true, 0
    result.after = {clamp(floordiv(new_level, W), Q), refill}
    result.commit = function()
      redis.call('HSET', key, 'level', digits(new_level), 'last', digits(now))
      redis.call('PEXPIRE', key, ttl_ms(refill))
    end
  else
    result.allow, result.retry_after = false, ceildiv(cost - level0, Q)
  end
  return result
end

local function fixed_window(key, W, Q, c, now)
  local k = floordiv(now, W)
  local window_key = key .. ':' .. digits(k)
  local count = tonumber(redis.call('GET', window_key)) or 0
  local reset = (k + 1) * W - now
  local result = {before = {clamp(Q - count, Q), reset}}
  if c <= Q and count + c <= Q then
    result.allow, result.retry_after = true, 0
    result.after = {clamp(Q - (count + c), Q), reset}
    result.commit = function()
      redis.call('SET', window_key, digits(count + c), 'PX', ttl_ms(reset))
    end
  else
    -- a cost above the quota never fits; any other fits in the next window
    result.allow, result.retry_after = false, (c > Q) and W or reset
  end
  return result
end

local function sliding_state(W, Q, prev, cur, e, k, now)
  local remaining = math.max(0, floordiv(Q * W - prev * (W - e), W) - cur)
  local reset = 0
  if cur > 0 then
    reset = (k + 2) * W - now
  elseif prev > 0 then
    reset = (k + 1) * W - now
  end
  return {clamp(remaining, Q), reset}
end

local function sliding_window(key, W, Q, c, now)
  local k = floordiv(now, W)
  local e = now - k * W
  local window_key = key .. ':' .. digits(k)
  local cur = tonumber(redis.call('GET', window_key)) or 0
  local prev = tonumber(redis.call('GET', key .. ':' .. digits(k - 1))) or 0
  local weighted_prev = prev * (W - e)
  local result = {before = sliding_state(W, Q, prev, cur, e, k, now)}
  if c > Q then
    result.allow, result.retry_after = false, W
  elseif weighted_prev + (cur + c) * W <= Q * W then
    result.allow, result.retry_after = true, 0
    result.after = sliding_state(W, Q, prev, cur + c, e, k, now)
    result.commit = function()
      -- the count matters for this window and, as the previous one, for the next
      redis.call('SET', window_key, digits(cur + c), 'PX', ttl_ms((k + 2) * W - now))
    end
  else
    result.allow = false
    local excess = weighted_prev + (cur + c) * W - Q * W
    if prev > 0 and ceildiv(excess, prev) < W - e then
      -- fits later in this window, once enough of the previous one has slid out
      result.retry_after = ceildiv(excess, prev)
    elseif cur == 0 then
      result.retry_after = W - e
    else
      -- in the next window this window's count weighs as the previous one
      local e2 = math.max(0, W - floordiv((Q - c) * W, cur))
      result.retry_after = (W - e) + e2
    end
  end
  return result
end

local charging = ARGV[1] == '1'
local now
if ARGV[2] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[2])
end

local results = {}
local all_allow = true
for i = 1, #KEYS do
  local base = 3 + 5 * (i - 1)
  local algorithm = ARGV[base + 1]
  local W, Q, B, c = tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3]),
      tonumber(ARGV[base + 4]), tonumber(ARGV[base + 5])
  local result
  if algorithm == 'gcra' then
    result = gcra(KEYS[i], W, Q, B, c, now)
  elseif algorithm == 'token_bucket' then
    result = token_bucket(KEYS[i], W, Q, B, c, now)
  elseif algorithm == 'fixed_window' then
    result = fixed_window(KEYS[i], W, Q, c, now)
  elseif algorithm == 'sliding_window' then
    result = sliding_window(KEYS[i], W, Q, c, now)
  else
    return redis.error_reply('unknown rate-limit algorithm: ' .. tostring(algorithm))
  end
  results[i] = result
  all_allow = all_allow and result.allow
end

local charged = charging and all_allow
local reply = {now, all_allow and 1 or 0}
for i = 1, #results do
  local result = results[i]
  local state = result.before
  if charged then
    result.commit()
    state = result.after
  end
  table.insert(reply, result.allow and 1 or 0)
  table.insert(reply, state[1])
  table.insert(reply, state[2])
  table.insert(reply, result.retry_after)
end
return reply
