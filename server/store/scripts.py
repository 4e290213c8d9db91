"""The Lua scripts of the store (each runs atomically in Redis). Keys and arguments are documented in each."""

NOW_MS = "local _t = redis.call('TIME')\nlocal now = tonumber(_t[1]) * 1000 + math.floor(tonumber(_t[2]) / 1000)\n"

QUICK_PLAY = NOW_MS + """
-- KEYS[1] queue, KEYS[2] nodes zset
-- ARGV: entry "ts|node|player|session|account|rating|name", now (s), max_age_s, player, rating ('' unrated),
--       base, widen per second (rated queues: the ratings may differ by base + widen * the longer wait)
-- Pop the oldest waiting entry of another player whose process is alive (its heartbeat in the nodes zset
-- has not expired), younger than max_age_s and, in a rated queue, of a close enough rating; entries of dead
-- processes and old ones are dropped, entries of other ratings kept. When none matches, queue ARGV[1].
local mine_ts = tonumber(string.match(ARGV[1], '^([^|]+)|'))
local kept = {}
local found = false
local n = redis.call('LLEN', KEYS[1])
for i = 1, n do
  local e = redis.call('LPOP', KEYS[1])
  if not e then break end
  local ts, node, player, session, account, rating = string.match(e, '^([^|]+)|([^|]+)|([^|]+)|([^|]*)|([^|]*)|([^|]*)|')
  if ts and tonumber(ts) >= tonumber(ARGV[2]) - tonumber(ARGV[3]) and player ~= ARGV[4] then
    local beat = redis.call('ZSCORE', KEYS[2], node)
    if beat and tonumber(beat) > now then
      local close = true
      if ARGV[5] ~= '' then
        local wait = math.max(tonumber(ARGV[2]) - tonumber(ts), tonumber(ARGV[2]) - mine_ts)
        close = rating ~= '' and math.abs(tonumber(rating) - tonumber(ARGV[5])) <= tonumber(ARGV[6]) + tonumber(ARGV[7]) * wait
      end
      if close then
        found = e
        break
      end
      kept[#kept + 1] = e
    end
  end
end
for i = #kept, 1, -1 do redis.call('LPUSH', KEYS[1], kept[i]) end
if found then return found end
redis.call('RPUSH', KEYS[1], ARGV[1])
return false
"""


FENCED_WRITE = NOW_MS + """
-- KEYS[1] lease, KEYS[2] fence, KEYS[3] leases zset
-- ARGV[1] expected lease "node|fence", ARGV[2] node, ARGV[3] ttl ms, ARGV[4] table id, ARGV[5] 'w' or 'c' (close)
-- ARGV[6..]: the write's commands, each as: argument count, command, arguments...
-- The lease must be ARGV[1], or be absent with the fence counter still at ARGV[1]'s value (a new table,
-- or a lease that expired while nobody else took the table): then it is set again.
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then
  if cur then return redis.error_reply('FENCED table held by ' .. cur) end
  local f = redis.call('GET', KEYS[2]) or '0'
  if ARGV[2] .. '|' .. f ~= ARGV[1] then return redis.error_reply('FENCED fence is now ' .. f) end
end
if ARGV[5] == 'c' then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('ZREM', KEYS[3], ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[4])
end
local i = 6
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return 1
"""

ACQUIRE = NOW_MS + """
-- KEYS[1] lease, KEYS[2] fence, KEYS[3] leases zset, KEYS[4] tables set; ARGV[1] node, ARGV[2] ttl ms, ARGV[3] id
-- Adopt a persisted table nobody holds: exactly one caller wins (the script is atomic); the fence goes up.
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
if redis.call('SISMEMBER', KEYS[4], ARGV[3]) == 0 then
  redis.call('ZREM', KEYS[3], ARGV[3])
  return false
end
local v = ARGV[1] .. '|' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], v, 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[3])
return v
"""

RENEW = NOW_MS + """
-- KEYS[1] leases zset, then n lease keys, then n fence keys; ARGV[1] node, ARGV[2] ttl ms,
-- then n expected lease values, then n table ids. Returns the ids whose lease is lost.
local n = (#KEYS - 1) / 2
local lost = {}
for i = 1, n do
  local cur = redis.call('GET', KEYS[1 + i])
  local ok = cur == ARGV[2 + i]
  if not ok and not cur then
    ok = (ARGV[1] .. '|' .. (redis.call('GET', KEYS[1 + n + i]) or '0')) == ARGV[2 + i]
  end
  if ok then
    redis.call('SET', KEYS[1 + i], ARGV[2 + i], 'PX', ARGV[2])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[2 + n + i])
  else
    lost[#lost + 1] = ARGV[2 + n + i]
  end
end
return lost
"""

RELEASE = """
-- KEYS[1] lease, KEYS[2] fence, KEYS[3] leases zset; ARGV[1] expected lease, ARGV[2] table id
-- Hand a table over: the lease goes, the fence goes up (the old lease value can never write again),
-- and the table is listed for adoption at once.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
return 1
"""

ORPHANS = NOW_MS + """
-- KEYS[1] leases zset, KEYS[2] tables set; ARGV[1] limit, ARGV[2] '1' to list never-leased tables first
if ARGV[2] == '1' then
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('ZADD', KEYS[1], 'NX', 0, id) end
end
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
"""

HEARTBEAT = NOW_MS + """
-- KEYS[1] nodes zset; ARGV[1] node, ARGV[2] ttl ms ('0': leave, '-1': only look). Returns the live nodes.
if ARGV[2] == '0' then redis.call('ZREM', KEYS[1], ARGV[1])
elseif ARGV[2] ~= '-1' then redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""

REFRESH_LOBBY = """
-- KEYS[1] tables set, KEYS[2] lobby zset; ARGV[1] ttl s, ARGV[2] expiry (s), then triples: table id, entry key, entry
-- Extend the lobby entries of live tables. A table closed meanwhile (no longer in the tables set) is not brought
-- back; an entry that is there keeps its content (its table writes newer ones); a lost one is set again.
local n = 0
for i = 3, #ARGV, 3 do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    if redis.call('EXPIRE', ARGV[i + 1], ARGV[1]) == 0 then
      redis.call('SET', ARGV[i + 1], ARGV[i + 2], 'EX', ARGV[1])
    end
    redis.call('ZADD', KEYS[2], ARGV[2], ARGV[i])
    n = n + 1
  end
end
return n
"""

CLAIM_CREATION = """
-- KEYS[1] create:<creation id>; ARGV[1] new table id, ARGV[2] ttl s. Returns the table already made, or false.
local cur = redis.call('GET', KEYS[1])
if cur then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
"""

TV_LEASES = """
-- KEYS: the lease key of each TV channel (P tv:lease:<channel>)
-- ARGV[1] node, ARGV[2] ttl (ms)
-- Take every free lease, extend every lease this node holds; returns the indexes (1-based) of the leases held.
local held = {}
for i, k in ipairs(KEYS) do
  local cur = redis.call('GET', k)
  if cur == ARGV[1] then
    redis.call('PEXPIRE', k, ARGV[2])
    held[#held + 1] = i
  elseif not cur then
    redis.call('SET', k, ARGV[1], 'PX', ARGV[2])
    held[#held + 1] = i
  end
end
return held
"""

TV_WRITE = """
-- KEYS: pairs (lease key, featured key) of TV channels
-- ARGV[1] node, ARGV[2] expiry of a featured value (s), then one value per pair
-- Write each channel's featured value only while this node holds the channel's lease (a chooser that lost
-- its lease, e.g. a process that stood still, writes nothing); returns how many were written.
local n = 0
for i = 1, #KEYS / 2 do
  if redis.call('GET', KEYS[2 * i - 1]) == ARGV[1] then
    redis.call('SET', KEYS[2 * i], ARGV[2 + i], 'EX', ARGV[2])
    n = n + 1
  end
end
return n
"""

TV_RELEASE = """
-- KEYS: lease keys of TV channels; ARGV[1] node. Delete the leases this node holds (it is leaving).
for _, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then redis.call('DEL', k) end
end
return 1
"""
