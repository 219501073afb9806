"""Google's Pub/Sub emulator (the Java one, Debian package google-cloud-cli-pubsub-emulator or the
gcloud component) as an oracle: found, started on a free loopback port, stopped. Absent on most
machines: callers skip with one line then."""
import glob
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

JARS = sorted(glob.glob("/usr/lib/google-cloud-sdk/platform/pubsub-emulator/lib/cloud-pubsub-emulator-*.jar")
              + glob.glob(os.path.expanduser("~/google-cloud-sdk/platform/pubsub-emulator/lib/cloud-pubsub-emulator-*.jar")))


def missing():
    """Why the oracle cannot run ('' when it can)."""
    if shutil.which("java") is None:
        return "Google's Pub/Sub emulator needs Java (not found on PATH)"
    if not JARS:
        return "Google's Pub/Sub emulator jar is not installed (google-cloud-cli-pubsub-emulator)"
    return ""


def start(timeout=90):
    """Starts the emulator; returns (process, 'host:port') once it answers HTTP."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([shutil.which("java"), "-jar", JARS[-1], "--host=127.0.0.1", f"--port={port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as r:
                if r.status == 200:
                    return proc, f"127.0.0.1:{port}"
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            stop(proc)
            raise RuntimeError("Google's Pub/Sub emulator did not start")
        time.sleep(0.3)


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
