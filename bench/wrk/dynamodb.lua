-- moto (DynamoDB over HTTP): OP=PutItem, GetItem or TransactWriteItems (two puts, all or nothing)
-- on table "bench", keys among COUNT items.
local report = dofile("bench/wrk/report.lua")
local op = os.getenv("OP") or "GetItem"
local count = tonumber(os.getenv("COUNT") or "1000")
local headers = {
  ["Content-Type"] = "application/x-amz-json-1.0",
  ["X-Amz-Target"] = "DynamoDB_20120810." .. op,
  ["Authorization"] = "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
}
local counter = 0
request = function()
  counter = counter + 1
  local id = (counter * 7919) % count
  local body
  if op == "TransactWriteItems" then
    body = string.format('{"TransactItems":[{"Put":{"TableName":"bench","Item":{"id":{"S":"d%d"},"n":{"N":"%d"}}}},'
      .. '{"Put":{"TableName":"bench","Item":{"id":{"S":"d%d"},"n":{"N":"%d"}}}}]}', id, counter, (id + 1) % count, counter)
  elseif op == "PutItem" then
    body = string.format('{"TableName":"bench","Item":{"id":{"S":"new%d"},"title":{"S":"benchmark"},"n":{"N":"1"}}}', counter)
  else
    body = string.format('{"TableName":"bench","Key":{"id":{"S":"d%d"}}}', id)
  end
  return wrk.format("POST", "/", headers, body)
end
done = report.done
