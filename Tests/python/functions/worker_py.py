"""A functions worker in Python, written from docs/functions.md (stdlib only)."""
import json
import os
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FUNCTIONS = [
    {"name": "pyHello", "kind": "callable"},
    {"name": "pyCrash", "kind": "callable"},
    {"name": "pySlow", "kind": "callable", "timeoutSeconds": 0.5},
    {"name": "pyOnNote", "kind": "document", "document": "notes/{noteId}", "event": "created", "retry": True},
    {"name": "pyHttp", "kind": "http"},
    {"name": "pyOnUpload", "kind": "storage", "event": "finalized"},
    {"name": "pyOnObjectMeta", "kind": "storage", "event": "metadataUpdated", "bucket": "demo-py.appspot.com"},
    {"name": "pyOnObjectDelete", "kind": "storage", "event": "deleted"},
]
EMULATOR = "http://" + os.environ["FIRESTORE_EMULATOR_HOST"]
PROJECT = os.environ["GCLOUD_PROJECT"]
FAIL_ONCE = set()


def firestore_patch(path, fields):
    req = urllib.request.Request(f"{EMULATOR}/v1/projects/{PROJECT}/databases/(default)/documents/{path}", method="PATCH",
                                 data=json.dumps({"fields": fields}).encode(), headers={"Authorization": "Bearer owner"})
    urllib.request.urlopen(req, timeout=10).read()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/__/functions.json":
            return self.reply(200, {"functions": FUNCTIONS})
        if self.path.startswith("/__/http/pyHttp"):
            return self.reply(200, f"hello from python at {self.path[len('/__/http/pyHttp'):] or '/'}".encode(), "text/plain")
        self.reply(404, {"error": {"status": "NOT_FOUND", "message": "no route"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        name = self.path.rsplit("/", 1)[-1]
        if name == "pyHello":
            return self.reply(200, {"result": {"hello": body.get("data"), "uid": (body.get("auth") or {}).get("uid"), "time": body["time"],
                                               "pid": os.getpid()}})
        if name == "pyCrash":
            os._exit(3)
        if name == "pySlow":
            time.sleep(3)
            return self.reply(200, {"result": "late"})
        if name == "pyOnNote":
            event = body["event"]
            note = event["params"]["noteId"]
            if note.startswith("flaky") and note not in FAIL_ONCE:
                FAIL_ONCE.add(note)
                return self.reply(200, {"error": {"status": "UNAVAILABLE", "message": "try again"}})
            firestore_patch(f"notes-seen/{note}", {"by": {"stringValue": "python"}})
            return self.reply(200, {"result": None})
        if name in ("pyOnUpload", "pyOnObjectMeta", "pyOnObjectDelete"):
            event, obj = body["event"], body["event"]["after"]
            firestore_patch(f"storage-seen/{name}-{obj['name'].replace('/', '_')}-{obj['metageneration']}", {
                "type": {"stringValue": event["type"]}, "subject": {"stringValue": event["subject"]},
                "size": {"stringValue": obj["size"]}, "contentType": {"stringValue": obj.get("contentType", "")},
                "deleted": {"booleanValue": "timeDeleted" in obj}})
            return self.reply(200, {"result": None})
        self.reply(404, {"error": {"status": "NOT_FOUND", "message": "no function " + name}})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"emulator-worker ready port={server.server_address[1]}", flush=True)
server.serve_forever()
