"""Process launcher for one Python functions codebase, run by the emulator with the codebase's venv
python (`python -c <this> launcher`). It speaks JSON lines: commands on stdin, events on stdout.

It forks every process of the codebase (the SDK's admin server for discovery, one
functions-framework server per function), so that:
- each child has its own process group (the emulator stops a function and everything it started
  with one killpg) and dies with the launcher (PR_SET_PDEATHSIG), which dies with the emulator;
- with prefork on, the heavy imports (flask, functions_framework, firebase_functions,
  firebase_admin, google.cloud.firestore) happen once here and every child starts warm; with
  prefork off each child exec()s a fresh interpreter, exactly like the Firebase CLI;
- the children's stdout and stderr come back as events, line by line.
"""
import ctypes
import json
import os
import selectors
import signal
import socket
import sys
import threading
import time
import traceback

MARK = "\x1e"        # starts an emulator marker or an invocation-tagged line
SEP = "\x1f"         # separates the invocation id from the line
END = "\x1dEND"      # a tagged line with this text closes an invocation's output


def die_with_parent(parent):
    """SIGKILL when the parent thread goes away; exit at once if it is already gone."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    if os.getppid() != parent:
        os._exit(1)


def set_name(text):
    """The name `ps` and `top` show (15 bytes at most)."""
    try:
        ctypes.CDLL(None).prctl(15, ctypes.c_char_p(text.encode()[:15]), 0, 0, 0)  # PR_SET_NAME
    except Exception:
        pass


# ---------------------------------------------------------------- inside a function's process

_local = threading.local()


class TaggedStream:
    """sys.stdout / sys.stderr of a function process: a line written while a request is being
    handled on this thread is prefixed with the request's invocation id."""

    def __init__(self, raw):
        self._raw = raw
        self._pending = threading.local()

    def write(self, text):
        if not isinstance(text, str):
            text = str(text)
        inv = getattr(_local, "inv", None)
        if inv is None:
            return self._raw.write(text)
        pending = getattr(self._pending, "text", "") + text
        *lines, rest = pending.split("\n")
        for line in lines:
            self._raw.write(MARK + inv + SEP + line + "\n")
        self._pending.text = rest
        self._raw.flush()
        return len(text)

    def close_invocation(self, inv):
        rest = getattr(self._pending, "text", "")
        if rest:
            self._raw.write(MARK + inv + SEP + rest + "\n")
        self._pending.text = ""
        self._raw.write(MARK + inv + SEP + END + "\n")
        self._raw.flush()

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        self._raw.flush()

    def isatty(self):
        return False

    def __getattr__(self, name):
        return getattr(self._raw, name)


class InvocationMiddleware:
    """Tags the output of each request the emulator sends (header X-Emulator-Invocation, removed
    before the function sees the request) and marks its end on both streams."""

    def __init__(self, app, out, err):
        self.app, self.out, self.err = app, out, err

    def __call__(self, environ, start_response):
        inv = environ.pop("HTTP_X_EMULATOR_INVOCATION", None)
        if not inv:
            return self.app(environ, start_response)
        _local.inv = inv
        try:
            result = self.app(environ, start_response)
            try:
                body = b"".join(result)
            finally:
                close = getattr(result, "close", None)
                if close:
                    close()
            return [body]
        finally:
            _local.inv = None
            self.out.close_invocation(inv)
            self.err.close_invocation(inv)


def verify_id_tokens_with_the_emulator():
    """In emulator mode firebase_admin.auth.verify_id_token checks neither signature nor expiry
    (any unsigned token with the right audience passes), while production checks both. With
    EMULATOR_VERIFY_ID_TOKENS=1, ID tokens are verified by the emulator instead: signature, expiry on
    the project's clock, revocation and disabled users, as production would."""
    if os.environ.get("EMULATOR_VERIFY_ID_TOKENS") != "1" or not os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
        return
    try:
        from firebase_admin import _auth_utils, _token_gen
    except Exception:
        return
    import urllib.error
    import urllib.request
    original = _token_gen._JWTVerifier.verify

    def verify(self, token, request, clock_skew_seconds=0):
        if self.short_name != "ID token" or not _auth_utils.is_emulated():
            return original(self, token, request, clock_skew_seconds)
        if not isinstance(token, (str, bytes)) or not token:
            return original(self, token, request, clock_skew_seconds)
        if isinstance(token, bytes):
            token = token.decode()
        url = "http://%s/emulator/v1/projects/%s/functions:verifyIdToken" % (os.environ["FIREBASE_AUTH_EMULATOR_HOST"], self.project_id)
        headers = {"Content-Type": "application/json"}
        if os.environ.get("EMULATOR_ADMIN_TOKEN"):
            headers["Authorization"] = "Bearer " + os.environ["EMULATOR_ADMIN_TOKEN"]
        try:
            with urllib.request.urlopen(urllib.request.Request(url, json.dumps({"idToken": token}).encode(), headers), timeout=30) as r:
                claims = json.loads(r.read())["token"]
        except urllib.error.HTTPError as e:
            try:
                message = json.loads(e.read())["error"]["message"]
            except Exception:
                message = "HTTP %d" % e.code
            if "EXPIRED" in message:
                raise self._expired_token_error("The Firebase ID token has expired (the emulator says %s)." % message, None)
            raise self._invalid_token_error("The Firebase ID token is not valid (the emulator says %s)." % message)
        claims["uid"] = claims.get("sub")
        return claims

    _token_gen._JWTVerifier.verify = verify


def marker(text):
    os.write(1, (MARK + "emulator " + text + "\n").encode())


def serve_function():
    """What the `functions-framework` command does (create_app + create_server), with the socket
    bound first (so the emulator knows the port before the user's module is imported), output
    tagging, and the gunicorn worker tied to its parent."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it; gunicorn sets it only on sockets it creates itself, and
    # without it each answer's second segment waits for the client's delayed ACK (~40 ms).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    os.environ["PORT"] = str(port)
    marker("listen %d" % port)
    out, err = TaggedStream(sys.stdout), TaggedStream(sys.stderr)
    sys.stdout, sys.stderr = out, err
    verify_id_tokens_with_the_emulator()
    import functions_framework
    from functions_framework._http import create_server

    target = os.environ["FUNCTION_TARGET"]
    signature = os.environ.get("FUNCTION_SIGNATURE_TYPE", "http")
    app = functions_framework.create_app(target, os.environ.get("FUNCTION_SOURCE"), signature)
    app.wsgi_app = InvocationMiddleware(app.wsgi_app, out, err)
    marker("ready %d" % port)
    arbiter = os.getpid()

    def post_fork(server, worker):
        die_with_parent(arbiter)

    create_server(app, False, bind="fd://%d" % sock.fileno(), post_fork=post_fork).run("127.0.0.1", port)


def serve_admin():
    """The SDK's admin server (python -m firebase_functions.private.serving), on ADMIN_PORT."""
    from firebase_functions.private import serving
    serving.main()


def child_main(kind):
    """Runs a child to its end and exits with its status (never returns). A SystemExit raised in a
    process gunicorn forked from here (its worker) ends that process the same way."""
    code = 0
    set_name("py:" + (os.environ.get("FUNCTION_TARGET", "function") if kind == "function" else "admin"))
    try:
        if kind == "function":
            serve_function()
        else:
            serve_admin()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 3
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


# ---------------------------------------------------------------- the launcher itself

PRELOAD = [
    "flask", "werkzeug", "yaml", "functions_framework", "functions_framework._http.gunicorn", "gunicorn.workers.gthread",
    "firebase_functions", "firebase_functions.https_fn", "firebase_functions.identity_fn", "firebase_functions.firestore_fn",
    "firebase_functions.scheduler_fn", "firebase_functions.pubsub_fn", "firebase_functions.tasks_fn", "firebase_functions.params",
    "firebase_functions.options", "firebase_functions.private.serving", "firebase_admin", "firebase_admin.auth",
    "firebase_admin.firestore", "google.cloud.firestore",
]


class Launcher:
    def __init__(self, prefork):
        self.prefork = prefork
        self.pid = os.getpid()
        self.children = {}     # pid -> {"id", "pipes": {fd: stream}, "buffers": {fd: bytes}}
        self.by_id = {}        # id -> pid
        self.sel = selectors.DefaultSelector()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        os.set_blocking(self.wake_r, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda *_: self.quit())
        self.stdin_buffer = b""

    def send(self, event):
        data = (json.dumps(event) + "\n").encode()
        while data:
            n = os.write(1, data)
            data = data[n:]

    def spawn(self, cmd):
        cid, kind, env = cmd["id"], cmd.get("kind", "function"), cmd["env"]
        cwd = cmd.get("cwd") or os.getcwd()
        extra = {}
        if kind == "admin":
            probe = socket.socket()
            probe.bind(("127.0.0.1", 0))
            extra["port"] = probe.getsockname()[1]
            probe.close()
            env = dict(env, ADMIN_PORT=str(extra["port"]))
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                die_with_parent(self.pid)
                signal.set_wakeup_fd(-1)
                for s in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
                    signal.signal(s, signal.SIG_DFL)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                os.closerange(3, 65536)
                os.chdir(cwd)
                os.environ.clear()
                os.environ.update(env)
                if cwd not in sys.path:
                    sys.path.insert(0, cwd)
                sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
                sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
                if not self.prefork:
                    os.execve(sys.executable, [sys.executable, "-c", SOURCE, kind], env)
            except BaseException:
                traceback.print_exc()
                os._exit(3)
            child_main(kind)
        os.close(out_w)
        os.close(err_w)
        for fd in (out_r, err_r):
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ, ("child", pid))
        self.children[pid] = {"id": cid, "pipes": {out_r: "stdout", err_r: "stderr"}, "buffers": {out_r: b"", err_r: b""}}
        self.by_id[cid] = pid
        self.send(dict({"ev": "spawned", "id": cid, "pid": pid}, **extra))

    def child_output(self, pid, fd, final=False):
        child = self.children.get(pid)
        if child is None or fd not in child["pipes"]:
            return
        stream = child["pipes"][fd]
        closed = False
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                closed = True
                break
            child["buffers"][fd] += chunk
        data = child["buffers"][fd]
        *lines, rest = data.split(b"\n")
        child["buffers"][fd] = rest
        if closed and rest:
            lines.append(rest)
            child["buffers"][fd] = b""
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if stream == "stdout" and line.startswith(MARK + "emulator "):
                word, _, arg = line[len(MARK) + 9:].partition(" ")
                if word in ("listen", "ready"):
                    self.send({"ev": word, "id": child["id"], "pid": pid, "port": int(arg)})
                    continue
            self.send({"ev": "out", "id": child["id"], "stream": stream, "line": line})
        if closed:
            self.sel.unregister(fd)
            os.close(fd)
            del child["pipes"][fd]

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = self.children.get(pid)
            if child is None:
                continue
            # Forward what the process wrote before it died; pipes still held open by its own
            # children (a gunicorn worker about to notice) are closed here.
            for fd in list(child["pipes"]):
                self.child_output(pid, fd)
            for fd in list(child["pipes"]):
                self.sel.unregister(fd)
                os.close(fd)
            del self.children[pid]
            if self.by_id.get(child["id"]) == pid:
                del self.by_id[child["id"]]
            event = {"ev": "exit", "id": child["id"], "pid": pid}
            if os.WIFSIGNALED(status):
                event["signal"] = os.WTERMSIG(status)
            else:
                event["status"] = os.WEXITSTATUS(status)
            self.send(event)

    def signal_child(self, cmd):
        pid = self.by_id.get(cmd["id"])
        if pid is None:
            return
        try:
            os.killpg(pid, int(cmd.get("signal", signal.SIGTERM)))
        except ProcessLookupError:
            pass

    def yaml_to_json(self, cmd):
        try:
            import yaml
            value = yaml.safe_load(cmd["text"])
            self.send({"ev": "yaml", "id": cmd["id"], "json": value})
        except Exception as e:
            self.send({"ev": "yaml", "id": cmd["id"], "error": "%s: %s" % (type(e).__name__, e)})

    def quit(self):
        # SIGINT is gunicorn's quick shutdown (SIGTERM would let workers linger up to 30 s).
        for pid in list(self.children):
            try:
                os.killpg(pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2
        while self.children and time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self.children.pop(pid, None)
            else:
                time.sleep(0.02)
        for pid in list(self.children):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os._exit(0)

    def command(self, line):
        try:
            cmd = json.loads(line)
        except ValueError:
            self.send({"ev": "error", "error": "not JSON: %r" % line[:200]})
            return
        op = cmd.get("op")
        try:
            if op == "spawn":
                self.spawn(cmd)
            elif op == "signal":
                self.signal_child(cmd)
            elif op == "yaml":
                self.yaml_to_json(cmd)
            elif op == "quit":
                self.quit()
            else:
                self.send({"ev": "error", "id": cmd.get("id"), "error": "unknown op %r" % op})
        except Exception as e:
            self.send({"ev": "error", "id": cmd.get("id"), "error": "%s: %s" % (type(e).__name__, e)})

    def run(self, parent):
        die_with_parent(parent)
        os.setpgid(0, 0)
        set_name("py:launcher")
        started = time.monotonic()
        loaded, failed = [], []
        if self.prefork:
            for name in PRELOAD:
                try:
                    __import__(name)
                    loaded.append(name)
                except Exception as e:
                    failed.append("%s (%s)" % (name, type(e).__name__))
        import gc
        import platform
        # Children share the preloaded modules' pages: keep the collector from walking (and so
        # copying) them in every child.
        gc.collect()
        gc.freeze()
        self.send({"ev": "ready", "python": platform.python_version(), "prefork": self.prefork, "preloaded": len(loaded),
                   "missing": failed, "ms": round((time.monotonic() - started) * 1000)})
        os.set_blocking(0, False)
        self.sel.register(0, selectors.EVENT_READ, ("stdin", None))
        self.sel.register(self.wake_r, selectors.EVENT_READ, ("wake", None))
        while True:
            for key, _ in self.sel.select(timeout=1.0):
                kind, pid = key.data
                if kind == "stdin":
                    try:
                        chunk = os.read(0, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        self.quit()
                    self.stdin_buffer += chunk
                    *lines, self.stdin_buffer = self.stdin_buffer.split(b"\n")
                    for line in lines:
                        if line.strip():
                            self.command(line.decode("utf-8", "replace"))
                elif kind == "wake":
                    try:
                        while os.read(self.wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                    self.reap()
                else:
                    self.child_output(pid, key.fd)
            self.reap()


SOURCE = sys.orig_argv[sys.orig_argv.index("-c") + 1] if "-c" in sys.orig_argv else open(__file__).read()

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "launcher"
    if mode == "launcher":
        Launcher(os.environ.get("EMULATOR_PREFORK", "1") == "1").run(int(os.environ["EMULATOR_PARENT_PID"]))
    else:
        child_main(mode)