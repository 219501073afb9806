-- Email/password sign-up: a new user per request (unique email per thread and counter), its
-- password hashed, an RS256-signed ID token minted. The peer of Cognito's SignUp.
local report = dofile("bench/wrk/report.lua")
setup = report.setup
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"email":"t%s-%d@example.com","password":"bench-password-1","returnSecureToken":true}', tostring(tid), counter)
  return wrk.format("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench-key",
    {["Content-Type"] = "application/json"}, body)
end
done = report.done
