"""bench/gpu/run.sh's results file, as its summaries read it: '# KEY VALUE' lines (date, gpu), then
for every run a '# run TAG' line followed by the run's JSON lines (ff-engine-bench's events, the
PyTorch peer's lines, timed_job.py's job line); any other line is skipped."""
import json


def read(path):
    """(meta, runs): meta the {KEY: VALUE} of the '# KEY VALUE' lines, runs the (tag, [events])
    of every run in the order they ran."""
    meta, runs = {}, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# run "):
                runs.append((line[len("# run "):].strip(), []))
            elif line.startswith("# "):
                key, _, value = line[2:].partition(" ")
                meta[key] = value
            elif line.startswith("{") and runs:
                try:
                    runs[-1][1].append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return meta, runs
