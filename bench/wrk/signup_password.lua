-- Email/password sign-up: a new user per request (unique email per thread and counter), its
-- password hashed, an RS256-signed ID token minted. The peer of Cognito's SignUp.
local report = dofile("bench/wrk/report.lua")
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"email":"t%s-%d@example.com","password":"bench-password-1","returnSecureToken":true}', tostring(tid), counter)
  return wrk.format("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench-key",
    {["Content-Type"] = "application/json"}, body)
end
done = report.done
