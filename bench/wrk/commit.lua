-- :commit of one update to a random existing document of collection COLL (scaling of write latency).
local report = dofile("bench/wrk/report.lua")
local coll = os.getenv("COLL") or "c100000"
local count = tonumber(os.getenv("COUNT") or "100000")
local project = os.getenv("PROJECT") or "bench"
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"writes":[{"update":{"name":"projects/%s/databases/(default)/documents/%s/d%d",'
    .. '"fields":{"bucket":{"integerValue":"%d"},"v":{"integerValue":"%d"}}}}]}',
    project, coll, (counter * 7919) % count, ((counter * 7919) % count) % (math.floor(count / 20)), counter)
  return wrk.format("POST", string.format("/v1/projects/%s/databases/(default)/documents:commit", project),
    {["Content-Type"] = "application/json"}, body)
end
done = report.done
