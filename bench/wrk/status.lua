-- GET /emulator/v1/status: a constant route of our own, the HTTP ceiling.
local report = dofile("bench/wrk/report.lua")
wrk.method = "GET"
wrk.path = "/emulator/v1/status"
done = report.done
