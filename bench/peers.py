"""moto in server mode: the most common fake cloud backend people run locally, measured on the
operations nearest ours (DynamoDB GetItem, PutItem, TransactWriteItems; Cognito SignUp)."""
import http.client
import json
import subprocess

from benchlib import free_port, wait_http

ITEMS = 1_000


class Moto:
    def __init__(self, python):
        self.python = python
        self.port = free_port()
        self.process = subprocess.Popen([python, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_http(self.port, "/moto-api/data.json")
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def api(self, service, target, body, version):
        self.conn.request("POST", "/", body=json.dumps(body), headers={
            "Content-Type": f"application/x-amz-json-{version}", "X-Amz-Target": target,
            "Authorization": f"AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/{service}/aws4_request, "
                             "SignedHeaders=host, Signature=0"})
        r = self.conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"moto {target}: {r.status} {data[:200]!r}")
        return json.loads(data or b"{}")

    def prepare(self):
        """A DynamoDB table of ITEMS items and a Cognito user pool; returns the pool's client id."""
        ddb = lambda op, body: self.api("dynamodb", "DynamoDB_20120810." + op, body, "1.0")
        ddb("CreateTable", {"TableName": "bench", "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"})
        for i in range(ITEMS):
            ddb("PutItem", {"TableName": "bench", "Item": {"id": {"S": f"d{i}"}, "title": {"S": f"task {i}"}, "n": {"N": str(i)}}})
        idp = lambda op, body: self.api("cognito-idp", "AWSCognitoIdentityProviderService." + op, body, "1.1")
        pool = idp("CreateUserPool", {"PoolName": "bench"})["UserPool"]["Id"]
        return idp("CreateUserPoolClient", {"UserPoolId": pool, "ClientName": "bench"})["UserPoolClient"]["ClientId"]

    def version(self):
        return subprocess.run([self.python, "-c", "import moto; print(moto.__version__)"], capture_output=True, text=True).stdout.strip()

    def close(self):
        self.conn.close()
