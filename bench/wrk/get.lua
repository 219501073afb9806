-- Document get: random ids among the COUNT seeded documents of collection COLL. With PROJECTS=N,
-- the documents live in projects PROJECT-0 .. PROJECT-(N-1) and requests spread over them.
-- Requests are formatted once in init() so the load generator spends its time sending, not in Lua.
local report = dofile("bench/wrk/report.lua")
local coll = os.getenv("COLL") or "c100000"
local count = tonumber(os.getenv("COUNT") or "100000")
local project = os.getenv("PROJECT") or "bench"
local projects = tonumber(os.getenv("PROJECTS") or "0")
local token = os.getenv("TOKEN")
local headers = {}
if token then headers["Authorization"] = "Bearer " .. token end
local reqs, n, i = {}, 0, 0
function init(args)
  for k = 1, 10007 do
    local id = (k * 7919) % count
    local p = project
    if projects > 0 then p = string.format("%s-%d", project, (k * 31) % projects) end
    reqs[k] = wrk.format("GET", string.format("/v1/projects/%s/databases/(default)/documents/%s/d%d", p, coll, id), headers)
  end
  n = #reqs
end
request = function()
  i = i % n + 1
  return reqs[i]
end
done = report.done
