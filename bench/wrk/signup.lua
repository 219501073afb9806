-- Anonymous sign-up (a new user and an RS256-signed ID token per request).
local report = dofile("bench/wrk/report.lua")
wrk.method = "POST"
wrk.path = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench-key"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"returnSecureToken":true}'
done = report.done
