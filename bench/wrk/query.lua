-- runQuery: bucket == k over collection COLL, which matches 20 documents whatever its size
-- (bench.py seeds bucket = i mod (COUNT / 20)). With PROJECTS=N, spread over PROJECT-0 .. PROJECT-(N-1).
local report = dofile("bench/wrk/report.lua")
local coll = os.getenv("COLL") or "c100000"
local count = tonumber(os.getenv("COUNT") or "100000")
local project = os.getenv("PROJECT") or "bench"
local projects = tonumber(os.getenv("PROJECTS") or "0")
local buckets = math.floor(count / 20)
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"structuredQuery":{"from":[{"collectionId":"%s"}],"where":{"fieldFilter":'
    .. '{"field":{"fieldPath":"bucket"},"op":"EQUAL","value":{"integerValue":"%d"}}},"limit":20}}', coll, counter % buckets)
  local p = project
  if projects > 0 then p = string.format("%s-%d", project, (counter * 31) % projects) end
  return wrk.format("POST", string.format("/v1/projects/%s/databases/(default)/documents:runQuery", p),
    {["Content-Type"] = "application/json"}, body)
end
done = report.done
