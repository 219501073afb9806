"""Storage throughput against the loopback/disk limit: 1 MB and 1 GB uploads and downloads through
the emulator (JSON API media upload, `alt=media` download) and through nginx (WebDAV PUT, static
file with sendfile) on the same files in the same run; parallel small uploads per second (wrk);
the emulator's memory while a 1 GB object streams in and out. Prints markdown table rows.

Environment: EMULATOR_BIN (release build), BIG_MB (default 1024), WORK (a directory on the disk
to measure; default a fresh one under $TMPDIR).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import free_port, rss_mib, wait_http  # noqa: E402

BIN = os.environ.get("EMULATOR_BIN", ".build/release/emulator")
BIG_MB = int(os.environ.get("BIG_MB", "1024"))


def curl(args):
    """Runs curl and returns (seconds, http status) from its own timing."""
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{time_total} %{http_code}", "-H", "Expect:", *args],
                         check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1])


def mbps(size, seconds):
    return size / seconds / 1e6


def make_file(path, size):
    with open(path, "wb") as f:
        left = size
        block = os.urandom(1 << 20)
        while left > 0:
            n = min(left, len(block))
            f.write(block[:n])
            left -= n


class Sampler:
    """Samples a process's RSS every 20 ms while running."""

    def __init__(self, pid):
        self.pid, self.peak, self.samples, self.stop = pid, 0.0, [], False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop:
            v = rss_mib(self.pid)
            self.samples.append(v)
            self.peak = max(self.peak, v)
            time.sleep(0.02)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *a):
        self.stop = True
        self.thread.join()


def timed_ok(args):
    """Seconds of a curl transfer that must succeed (a refused one would time an error page)."""
    t, status = curl(args)
    assert 200 <= status < 300, f"curl {' '.join(args)} answered {status}"
    return t


def nginx(root, port, work):
    conf = os.path.join(work, "nginx.conf")
    # Started as root, nginx's worker would run as `nobody` and be refused the private work
    # directory (every request a 403/500); keep it the invoking user.
    user = "user root;" if os.geteuid() == 0 else ""
    with open(conf, "w") as f:
        f.write(f"""
daemon off; {user} worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off; sendfile on; tcp_nopush on;
  client_body_temp_path {work}/nginx-body; client_max_body_size 4g; client_body_buffer_size 1m;
  server {{ listen 127.0.0.1:{port}; root {root}; location / {{ dav_methods PUT; create_full_put_path on; }} }}
}}
""")
    return subprocess.Popen(["nginx", "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    work = os.environ.get("WORK") or tempfile.mkdtemp(prefix="bench-storage-")
    os.makedirs(work, exist_ok=True)
    served = os.path.join(work, "served")
    os.makedirs(served, exist_ok=True)
    small, big = os.path.join(served, "small.bin"), os.path.join(served, "big.bin")
    make_file(small, 1_000_000)
    make_file(big, BIG_MB * 1_000_000)
    port = free_port()
    env = dict(os.environ, TMPDIR=work)  # the emulator's blob directory on the same disk
    emu = subprocess.Popen([BIN, "start", "--port", str(port), "--project", "bench", "--log-level", "error"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    ng = None
    rows = []
    try:
        wait_http(port, "/emulator/v1/status")
        base = f"http://127.0.0.1:{port}"
        up = f"{base}/upload/storage/v1/b/bench.appspot.com/o?uploadType=media&name="
        down = f"{base}/storage/v1/b/bench.appspot.com/o/"
        have_nginx = shutil.which("nginx") is not None
        if have_nginx:
            nport = free_port()
            ng = nginx(served, nport, work)
            wait_http(nport, "/small.bin")
            nbase = f"http://127.0.0.1:{nport}"
        idle = rss_mib(emu.pid)

        def measure(label, path, size, runs):
            e_up = [mbps(size, timed_ok(["-X", "POST", "-T", path, up + label])) for _ in range(runs)]
            e_down = [mbps(size, timed_ok([down + label + "?alt=media"])) for _ in range(runs)]
            row = {"up": statistics.median(e_up), "down": statistics.median(e_down)}
            if have_nginx:
                row["nup"] = statistics.median([mbps(size, timed_ok(["-T", path, f"{nbase}/put/{label}"])) for _ in range(runs)])
                row["ndown"] = statistics.median([mbps(size, timed_ok([f"{nbase}/{os.path.basename(path)}"])) for _ in range(runs)])
            return row

        r1 = measure("one-mb", small, 1_000_000, 20)
        # The 1 GB runs also watch the emulator's memory.
        with Sampler(emu.pid) as s_up:
            t, status = curl(["-X", "POST", "-T", big, up + "one-gb"])
        assert status == 200, status
        up_big = [mbps(BIG_MB * 1_000_000, t)]
        with Sampler(emu.pid) as s_down:
            t, status = curl([down + "one-gb?alt=media"])
        assert status == 200, status
        down_big = [mbps(BIG_MB * 1_000_000, t)]
        for _ in range(2):
            up_big.append(mbps(BIG_MB * 1_000_000, timed_ok(["-X", "POST", "-T", big, up + "one-gb"])))
            down_big.append(mbps(BIG_MB * 1_000_000, timed_ok([down + "one-gb?alt=media"])))
        rg = {"up": statistics.median(up_big), "down": statistics.median(down_big)}
        if have_nginx:
            rg["nup"] = statistics.median([mbps(BIG_MB * 1_000_000, timed_ok(["-T", big, f"{nbase}/put/big"])) for _ in range(3)])
            rg["ndown"] = statistics.median([mbps(BIG_MB * 1_000_000, timed_ok([f"{nbase}/big.bin"])) for _ in range(3)])

        def cells(r):
            if not have_nginx:
                return f"upload {r['up']:.0f} MB/s, download {r['down']:.0f} MB/s", "nginx not installed"
            return (f"upload {r['up']:.0f} MB/s, download {r['down']:.0f} MB/s",
                    f"nginx: upload (WebDAV PUT) {r['nup']:.0f} MB/s, download (sendfile) {r['ndown']:.0f} MB/s")

        c, n = cells(r1)
        rows.append(f"| Storage 1 MB object (JSON API media upload, `alt=media`; curl, median of 20) | {c} | near {n} |")
        c, n = cells(rg)
        rows.append(f"| Storage {BIG_MB / 1000:g} GB object (median of 3) | {c} | near {n} |")
        rows.append(f"| Emulator memory while a {BIG_MB / 1000:g} GB object streams | idle {idle:.0f} MiB; upload peak {s_up.peak:.0f} MiB; "
                    f"download peak {s_down.peak:.0f} MiB | flat (no growth with object size) |")
        # Parallel small uploads: 1 KiB each, distinct names, 64 connections, 10 s.
        script = os.path.join(work, "upload.lua")
        with open(script, "w") as f:
            f.write('local n = 0\nrequest = function()\n  n = n + 1\n'
                    '  return wrk.format("POST", "/upload/storage/v1/b/bench.appspot.com/o?uploadType=media&name=small/" .. n .. "-" .. math.random(1e9), '
                    '{["Content-Type"] = "application/octet-stream"}, string.rep("x", 1024))\nend\n')
        if shutil.which("wrk") is None:  # bench/run.sh installs it; a bare run still reports the rest
            rows.append("| Parallel 1 KiB uploads | wrk not installed | thousands per second, no errors |")
        else:
            out = subprocess.run(["wrk", "-t", "2", "-c", "64", "-d", "10s", "-s", script, base], capture_output=True, text=True, check=True).stdout
            rate = next(float(line.split()[1]) for line in out.splitlines() if line.startswith("Requests/sec"))
            errors = [line.strip() for line in out.splitlines() if "Non-2xx" in line or "Socket errors" in line]
            rows.append(f"| Parallel 1 KiB uploads (wrk, 64 connections, 10 s) | {rate:,.0f} uploads/s{'; ' + '; '.join(errors) if errors else ''} "
                        f"| thousands per second, no errors |")
        rows.append(f"| Emulator memory after those uploads | {rss_mib(emu.pid):.0f} MiB | |")
    finally:
        emu.terminate()
        emu.wait(30)
        if ng:
            ng.terminate()
            ng.wait(10)
        if not os.environ.get("WORK"):
            shutil.rmtree(work, ignore_errors=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
