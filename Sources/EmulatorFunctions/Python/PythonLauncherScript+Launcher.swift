extension PythonLauncherScript {
    /// The part of the launcher script that is the launcher itself: the preloaded modules, the
    /// `Launcher` (forking children, relaying their output and exits, answering commands) and the
    /// script's entry point.
    static let launcher = #"""
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
"""#
}
