"""What the tests of bench/gpu's tools share: running a tool on a results file made of given lines,
and the verdict from a list of failures."""
import os
import subprocess
import sys
import tempfile


def run_on_results(tool, lines):
    """The tool's standard output on a results file holding `lines` (removed after)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        return subprocess.run([sys.executable, tool, f.name], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)


def verdict(out, failures):
    """0 if nothing failed; else prints the tool's output and the failures, and returns 1."""
    if not failures:
        return 0
    print(out)
    print("\n".join(failures))
    return 1
