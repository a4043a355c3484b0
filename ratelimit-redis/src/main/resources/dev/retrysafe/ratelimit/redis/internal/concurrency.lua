-- Concurrency limits: one sorted set per limit and key, whose members are the permits holding a
-- slot, each scored by the time (ms) its lease runs out. Leases that ran out are removed before
-- anything is counted, so a dead holder's slots come back once its leases end.
--
-- KEYS: the slot keys of one permit (all in one hash tag).
-- ARGV[1]: acquire | renew | release | count
-- ARGV[2]: now in ms, or '' for Redis's own clock (TIME); release reads no time
-- ARGV[3]: the permit's member
-- ARGV[2 + 2i], ARGV[3 + 2i]: the limit and the lease (ms) of KEYS[i] (acquire and renew)
-- Reply: {now, ...}: acquire {now, 0} when every slot was taken, or {now, i, in flight} naming the
-- first full KEYS[i]; renew {now, slots lost}; release {}; count {now, in flight of KEYS[1]}.
local op = ARGV[1]
local member = ARGV[3]

-- a release counts nothing, so it needs no time: half of every request's calls skip TIME
if op == 'release' then
  for i = 1, #KEYS do
    redis.call('ZREM', KEYS[i], member)
  end
  return {}
end

local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[2])
end
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
end

if op == 'count' then
  return {now, redis.call('ZCARD', KEYS[1])}
end

if op == 'renew' then
  local lost = 0
  for i = 1, #KEYS do
    local lease = tonumber(ARGV[3 + 2 * i])
    if redis.call('ZSCORE', KEYS[i], member) then
      redis.call('ZADD', KEYS[i], 'XX', now + lease, member)
      redis.call('PEXPIRE', KEYS[i], lease)
    else
      lost = lost + 1
    end
  end
  return {now, lost}
end

if op == 'acquire' then
  for i = 1, #KEYS do
    local held = redis.call('ZCARD', KEYS[i])
    if held >= tonumber(ARGV[2 + 2 * i]) then
      return {now, i, held}
    end
  end
  for i = 1, #KEYS do
    local lease = tonumber(ARGV[3 + 2 * i])
    redis.call('ZADD', KEYS[i], now + lease, member)
    -- every member's lease ends by now + lease: the key goes with the last of them
    redis.call('PEXPIRE', KEYS[i], lease)
  end
  return {now, 0}
end

return redis.error_reply('ERR unknown operation ' .. tostring(op))
