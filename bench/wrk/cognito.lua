-- moto (Cognito user pools over HTTP): SignUp of a new user per request on client CLIENT_ID.
local report = dofile("bench/wrk/report.lua")
local client = os.getenv("CLIENT_ID")
local headers = {
  ["Content-Type"] = "application/x-amz-json-1.1",
  ["X-Amz-Target"] = "AWSCognitoIdentityProviderService.SignUp",
  ["Authorization"] = "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/cognito-idp/aws4_request, SignedHeaders=host, Signature=0",
}
setup = report.setup
local counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"ClientId":"%s","Username":"t%s-%d","Password":"Bench-password-1!"}', client, tostring(tid), counter)
  return wrk.format("POST", "/", headers, body)
end
done = report.done
