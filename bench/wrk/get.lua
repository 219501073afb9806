-- Document get: random ids among the COUNT seeded documents of collection COLL.
local report = dofile("bench/wrk/report.lua")
local coll = os.getenv("COLL") or "c100000"
local count = tonumber(os.getenv("COUNT") or "100000")
local project = os.getenv("PROJECT") or "bench"
local token = os.getenv("TOKEN")
local headers = {}
if token then headers["Authorization"] = "Bearer " .. token end
local counter = 0
request = function()
  counter = counter + 1
  local id = (counter * 7919) % count
  return wrk.format("GET", string.format("/v1/projects/%s/databases/(default)/documents/%s/d%d", project, coll, id), headers)
end
done = report.done
