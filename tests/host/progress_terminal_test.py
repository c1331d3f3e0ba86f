#!/usr/bin/env python3
"""The live progress line in an 80-column terminal (a pty): a training's line keeps its measured
dB and its ETA, and no live line is wider than the terminal. Waits for the sign (a line with
both), then interrupts the run; never a fixed sleep.

usage: progress_terminal_test.py FIELDFLOW IMAGE WORKDIR
"""
import fcntl, os, pty, re, select, signal, struct, sys, termios, time

fieldflow, image, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
graph = os.path.join(work, "train.yaml")
with open(graph, "w") as f:
    f.write("fieldflow: 1\nnodes:\n"
            f"  image: {{op: ReadImage, params: {{path: '{image}'}}}}\n"
            "  train: {op: Train, inputs: {image: image},\n"
            "          params: {steps: 100000000, cpu_steps: 0, batch: 64, eval_interval: 20,\n"
            "                   checkpoint_interval: 0}}\n")

pid, fd = pty.fork()
if pid == 0:
    os.environ["COLUMNS"] = "80"
    os.environ.pop("FIELDFLOW_PLUGIN_PATH", None)
    os.execv(fieldflow, [fieldflow, "run", graph, "--no-cache"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

ansi = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\r")
seen, found, deadline = b"", None, time.monotonic() + 300
while found is None and time.monotonic() < deadline:
    ready, _, _ = select.select([fd], [], [], 1.0)
    if not ready:
        continue
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    for line in ansi.sub("\n", seen.decode("utf-8", "replace")).split("\n"):
        if line.startswith("train ") and " dB at step " in line and "ETA " in line:
            found = line
os.kill(pid, signal.SIGINT)
os.waitpid(pid, 0)

text = ansi.sub("\n", seen.decode("utf-8", "replace"))
if found is None:
    sys.exit("no progress line with the measured dB and an ETA; the terminal showed:\n" + text[-3000:])
# The live lines (redrawn in place) must fit; log lines above them may wrap.
too_wide = [l for l in text.split("\n") if re.match(r"train( \[| [0-9])", l) and len(l) > 79]
if too_wide:
    sys.exit("lines wider than the 80-column terminal:\n" + "\n".join(too_wide[:5]))
print("progress line in 80 columns: " + found)
