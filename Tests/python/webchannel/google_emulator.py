"""Google's Firestore emulator (the Java one) as an oracle for the differential test and the
benchmark: found where the Cloud SDK's Debian package or the Firebase CLI's cache installs it,
started on a free loopback port, stopped. Absent on most users' machines: callers skip then."""
import glob
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

JARS = glob.glob("/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator*.jar") + glob.glob(
    os.path.expanduser("~/.cache/firebase/emulators/cloud-firestore-emulator*.jar"))


def available():
    return bool(JARS) and shutil.which("java") is not None


def start(timeout=90):
    """Starts the emulator; returns (process, port) once it answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([shutil.which("java"), "-cp", JARS[0], "com.google.cloud.datastore.emulator.firestore.CloudFirestore",
                             "--host", "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as r:
                if r.status == 200:
                    return proc, port
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            stop(proc)
            raise RuntimeError("Google's Firestore emulator did not start")
        time.sleep(0.3)


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
