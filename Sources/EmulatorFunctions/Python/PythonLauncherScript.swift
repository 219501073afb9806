/// The launcher every Python codebase runs in its venv (`python -c <source> launcher`): forks the
/// SDK's admin server and one functions-framework server per function, reports their ports,
/// output and exits as JSON lines, and answers YAML-to-JSON conversions with the venv's PyYAML.
/// The protocol is described in the script's docstring and `LauncherEvent`.
enum PythonLauncherScript {
    /// The script (Python 3.10 or later, as firebase-functions requires).
    /// Assembled from its three parts (this file: the docstring, imports and helpers both sides use;
    /// `+FunctionProcess`: what runs inside a function's process; `+Launcher`: the launcher loop
    /// and the entry point). Python sees one script; two blank lines separate the parts.
    static let source = common + "\n\n\n" + functionProcess + "\n\n\n" + launcher

    /// The docstring (the protocol), the imports and the helpers both sides use.
    private static let common = #"""
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
"""#
}
