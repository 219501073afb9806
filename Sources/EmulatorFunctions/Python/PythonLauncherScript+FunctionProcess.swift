extension PythonLauncherScript {
    /// The part of the launcher script that runs inside a function's process: tagged output per
    /// invocation, the middleware that reads the emulator's invocation header, token verification
    /// through the emulator, and serving one function (or the SDK's admin server).
    static let functionProcess = #"""
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
"""#
}
