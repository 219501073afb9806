#!/usr/bin/env python3
"""Refuses code that can trap in the product modules (SECURITY.md, "Hostile input").

A trap (a failed force unwrap, `try!`, `as!`, `fatalError`, `precondition`, ...) kills the whole
process and every project's in-memory data with it, so one hostile request must never reach one.
This check makes the class visible: every construct that can trap on a value is refused unless
its line says why it cannot happen there, with a `// trap-ok: <reason>` comment (for example a
table built from constants at start-up). Input-derived values never qualify: handle them with
`guard`/`if let`, `??`, `Int(exactly:)`, `&+` where wrapping is meant, or checked indexing.

What it cannot see, and what covers that instead: arithmetic overflow and out-of-range indexing
on computed values (the libFuzzer targets with AddressSanitizer, docs/robustness.md) and traps
inside string interpolations (kept trivial by review).

Usage: scripts/check-traps.py [DIR ...]   (default: Sources). Exit status 1 when something is found.
"""
import pathlib
import re
import sys

TRAPS = [
    (re.compile(r"\btry!"), "try!"),
    (re.compile(r"\bas!"), "as!"),
    (re.compile(r"(?<![.\w])(?<!case )(fatalError|precondition|preconditionFailure|assert|assertionFailure)\s*\("), "trapping call"),
    (re.compile(r"\.unsafelyUnwrapped\b"), "unsafelyUnwrapped"),
    # A postfix `!` (force unwrap or implicitly unwrapped type): right after an identifier, `)`,
    # `]` or `>`, not followed by `=` (that is `!=`).
    (re.compile(r"[A-Za-z0-9_)\]>]!(?!=)"), "force unwrap"),
]
ALLOW = "trap-ok:"


def strip(source):
    """The source with comments and string literals blanked (line structure kept). Returns the
    blanked text and, per line, the comment text (where `trap-ok:` would be)."""
    out = []
    comments = {}
    i, n, line = 0, len(source), 1
    block_depth = 0
    while i < n:
        c = source[i]
        if c == "\n":
            out.append(c)
            line += 1
            i += 1
        elif block_depth:
            if source.startswith("*/", i):
                block_depth -= 1
                i += 2
            elif source.startswith("/*", i):
                block_depth += 1
                i += 2
            else:
                i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            comments[line] = comments.get(line, "") + source[i:end]
            i = end
        elif source.startswith("/*", i):
            block_depth = 1
            i += 2
        elif c == '"' or (c == "#" and re.match(r'#+"', source[i:])):
            hashes = len(re.match(r"#*", source[i:]).group(0))
            j = i + hashes
            multi = source.startswith('"""', j)
            close = ('"""' if multi else '"') + "#" * hashes
            j += 3 if multi else 1
            while j < n and not source.startswith(close, j):
                if source[j] == "\\" and hashes == 0:
                    j += 2
                    continue
                if source[j] == "\n":
                    if not multi:
                        break
                    out.append("\n")
                    line += 1
                j += 1
            out.append('""')
            i = j + len(close)
        else:
            out.append(c)
            i += 1
    return "".join(out), comments


def scan(path):
    text, comments = strip(path.read_text(encoding="utf-8"))
    found = []
    for number, code in enumerate(text.split("\n"), start=1):
        for pattern, what in TRAPS:
            if pattern.search(code) and ALLOW not in comments.get(number, ""):
                found.append((number, what, code.strip()))
                break
    return found


def main(argv):
    roots = [pathlib.Path(a) for a in argv] or [pathlib.Path("Sources")]
    total = 0
    for root in roots:
        for path in sorted(root.rglob("*.swift")):
            for number, what, code in scan(path):
                total += 1
                print(f"{path}:{number}: {what}: {code}")
    if total:
        print(f"{total} construct(s) that can trap in product code: handle the value, or say why it cannot trap with '// {ALLOW} <reason>' (scripts/check-traps.py).")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
