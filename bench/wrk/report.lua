-- Shared by every wrk scenario: prints one machine-readable line that bench/run.sh parses.
-- Latency percentiles come from wrk's own histogram (microseconds).
local M = {}

function M.done(summary, latency, requests)
  local secs = summary.duration / 1e6
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  io.write(string.format("WRK_RESULT rps=%.1f p50_ms=%.3f p99_ms=%.3f requests=%d errors=%d\n",
    summary.requests / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, errors))
end

-- Use as `setup = report.setup`: gives each wrk thread a global `tid` (1, 2, ...) so scenarios
-- that create things can make names unique across threads.
local threads = 0
function M.setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

return M
