-- A callable round trip: POST /{project}/us-central1/{FUNCTION} with {"data":{}}; with TOKEN set,
-- the caller's ID token goes in Authorization and the host verifies it before dispatching.
local report = dofile("bench/wrk/report.lua")
local project = os.getenv("PROJECT") or "bench"
local fn = os.getenv("FUNCTION") or "whoami"
local token = os.getenv("TOKEN")
wrk.method = "POST"
wrk.path = string.format("/%s/us-central1/%s", project, fn)
wrk.body = '{"data":{}}'
wrk.headers["Content-Type"] = "application/json"
if token then wrk.headers["Authorization"] = "Bearer " .. token end
done = report.done
