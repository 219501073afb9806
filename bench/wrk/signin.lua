-- Password sign-in of one seeded user (password check with the configured hash cost, token minting).
local report = dofile("bench/wrk/report.lua")
wrk.method = "POST"
wrk.path = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=bench-key"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"bench@example.com","password":"bench-password-1","returnSecureToken":true}'
done = report.done
