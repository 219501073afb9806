-- :commit of WRITES (default 1) updates to existing documents of collection COLL, applied
-- atomically (the peer of DynamoDB's TransactWriteItems when WRITES=2). With PROJECTS=N, spread
-- over PROJECT-0 .. PROJECT-(N-1).
local report = dofile("bench/wrk/report.lua")
local coll = os.getenv("COLL") or "c100000"
local count = tonumber(os.getenv("COUNT") or "100000")
local project = os.getenv("PROJECT") or "bench"
local writes = tonumber(os.getenv("WRITES") or "1")
local projects = tonumber(os.getenv("PROJECTS") or "0")
local counter = 0
request = function()
  counter = counter + 1
  local p = project
  if projects > 0 then p = string.format("%s-%d", project, (counter * 31) % projects) end
  local parts = {}
  for w = 0, writes - 1 do
    local id = ((counter * 7919) + w) % count
    parts[#parts + 1] = string.format('{"update":{"name":"projects/%s/databases/(default)/documents/%s/d%d",'
      .. '"fields":{"bucket":{"integerValue":"%d"},"title":{"stringValue":"task %d"},"v":{"integerValue":"%d"}}}}',
      p, coll, id, id % (math.floor(count / 20)), id, counter)
  end
  return wrk.format("POST", string.format("/v1/projects/%s/databases/(default)/documents:commit", p),
    {["Content-Type"] = "application/json"}, '{"writes":[' .. table.concat(parts, ",") .. ']}')
end
done = report.done
