-- GET /emulator/v1/status at a bounded rate: each connection waits 1 ms after each answer
-- (wrk's `delay`), so N connections offer at most N x 1,000 requests/s. Latency at a load both
-- binaries sustain, where the closed loop of status.lua measures latency at saturation.
local report = dofile("bench/wrk/report.lua")
wrk.method = "GET"
wrk.path = "/emulator/v1/status"
function delay() return 1 end
done = report.done
