"""The project's shell scripts: rules that keep CI from failing at random.

Under `set -o pipefail`, a reader that stops early (`grep -q`, `grep -m`, `head`) can make the
writer die of SIGPIPE, and the pipeline then fails although the reader found what it wanted.
CI failed that way once: `tar -tzf "$tarball" | grep -qx "$name/LICENSE"` in
scripts/check-package.sh reported "the tarball carries no LICENSE" for a tarball that carried it.
Whether it fails depends on how far the writer has got when the reader exits, so it passes on one
run and fails on the next. Read the writer's output into a variable, or into a file, first.
"""
import re
import subprocess

from conftest import ROOT

# A pipe into a reader that may exit before its writer has finished writing.
EARLY_READER = re.compile(r"\|\s*(grep\s+-[A-Za-z]*[qm]|head\b|sed\s+-n\s+'?1?q)")


def shell_scripts():
    listed = subprocess.run(["git", "ls-files", "*.sh", ".ci/run"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / path for path in listed.stdout.split()]


def test_no_pipefail_script_pipes_into_a_reader_that_exits_early():
    scripts = shell_scripts()
    assert scripts, "git ls-files found no shell scripts"
    offending = []
    for script in scripts:
        text = script.read_text()
        if not re.search(r"^\s*set\s+-[a-z]*o\s+pipefail|^\s*set\s+-o\s+pipefail", text, re.M):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            code = line.split(" #", 1)[0]
            if code.lstrip().startswith("#"):
                continue
            if EARLY_READER.search(code):
                offending.append(f"{script.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offending, "pipefail script pipes into an early-exiting reader:\n" + "\n".join(offending)


def test_the_early_reader_pattern_finds_the_line_that_failed_ci():
    # The rule's own check: the line CI failed on, and forms that are safe.
    assert EARLY_READER.search('tar -tzf "$tarball" | grep -qx "$name/LICENSE" || fail "no LICENSE"')
    assert EARLY_READER.search("grep -E 'error' build.log | head -30 >&2")
    assert not EARLY_READER.search('grep -qx "$name/LICENSE" <<<"$listing"')
    assert not EARLY_READER.search("grep -m 30 -E 'error' build.log >&2")
