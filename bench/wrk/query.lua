-- runQuery: bucket == k over collection COLL, which matches 20 documents whatever its size
-- (bench/seed.py gives bucket = i mod (COUNT / 20)).
local report = dofile("bench/wrk/report.lua")
local coll = os.getenv("COLL") or "c100000"
local count = tonumber(os.getenv("COUNT") or "100000")
local project = os.getenv("PROJECT") or "bench"
local buckets = math.floor(count / 20)
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"structuredQuery":{"from":[{"collectionId":"%s"}],"where":{"fieldFilter":'
    .. '{"field":{"fieldPath":"bucket"},"op":"EQUAL","value":{"integerValue":"%d"}}},"limit":20}}', coll, counter % buckets)
  return wrk.format("POST", string.format("/v1/projects/%s/databases/(default)/documents:runQuery", project),
    {["Content-Type"] = "application/json"}, body)
end
done = report.done
