-- Document create with a generated id (POST to the collection), one small document per request.
local report = dofile("bench/wrk/report.lua")
local project = os.getenv("PROJECT") or "bench"
wrk.method = "POST"
wrk.path = string.format("/v1/projects/%s/databases/(default)/documents/created", project)
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"fields":{"title":{"stringValue":"benchmark"},"n":{"integerValue":"1"},"done":{"booleanValue":false}}}'
done = report.done
