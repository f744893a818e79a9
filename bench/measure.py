#!/usr/bin/env python3
"""Runs each contender on one log file and prints a Markdown table row per
contender: wall time (best of REPEAT), peak RSS (of that run), events/s, MB/s,
peak bytes per event, and the answer (overlap pairs / oversold units).

Usage: measure.py FILE EVENTS REPEAT LOCKREPLAY_BIN VENV_PYTHON
"""

import json
import os
import subprocess
import sys
import tempfile

path, events, repeat, lr, py = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
here = os.path.dirname(os.path.abspath(__file__))
size = os.path.getsize(path)


def timed(cmd, env=None):
    """(seconds, peak RSS bytes, stdout, cores busy) of one run under
    /usr/bin/time; cores busy is (user + system CPU) / wall. Its output
    goes to a file, as a user's `> report.json` does (through a pipe into
    this script, the 679 MB JSON report of the overlap-heavy 10 M log cost
    a second more than the same bytes written to a file)."""
    with tempfile.NamedTemporaryFile("r") as tf, tempfile.TemporaryFile() as out:
        subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name] + cmd,
                       stdout=out, stderr=subprocess.DEVNULL, env=env)
        secs, kb, user, system = tf.read().strip().splitlines()[-1].split()
        out.seek(0)
        secs = float(secs)
        busy = (float(user) + float(system)) / max(secs, 0.005)
        return secs, int(kb) * 1024, out.read(), busy


def lr_answer(out):
    s = json.loads(out)["summary"]
    return f'{s["overlap_pairs"]} / {s["oversold_units"]}'


contenders = [
    # First open: the load cache (a second open of the same file answers
    # from it) is left out, as DuckDB has none; the second open is a row of
    # its own below the table.
    ("lockreplay analyze --format json", [lr, "analyze", "--no-cache", "--format", "json", path],
     lr_answer),
    ("lockreplay analyze --format text", [lr, "analyze", "--no-cache", "--format", "text", path],
     lambda o: "-"),
    ("wc -l (floor)", ["wc", "-l", path], lambda o: "-"),
    ("DuckDB (read_ndjson, SQL)", [py, os.path.join(here, "duckdb_overlaps.py"), path],
     lambda o: " / ".join(o.decode().split())),
    ("pandas (pyarrow reader, numpy)", [py, os.path.join(here, "pandas_overlaps.py"), path],
     lambda o: " / ".join(o.decode().split())),
]
rows = {}
for name, cmd, answer in contenders:
    best = None
    for _ in range(repeat):
        r = timed(cmd)
        if best is None or r[0] < best[0]:
            best = r
    rows[name] = best[:3] + (answer(best[2]),)
    if name == contenders[0][0]:
        first_busy = best[3]

print(f"\n### {events:,} events ({size / 1e6:,.0f} MB, {size / events:.0f} bytes/line)\n")
print("| contender | time s | peak RSS MB | events/s | MB/s | peak bytes/event | pairs / oversold |")
print("|---|---:|---:|---:|---:|---:|---|")
for name, (secs, rss, _, ans) in rows.items():
    t = max(secs, 0.005)
    print(f"| {name} | {secs:.2f} | {rss / 1e6:,.0f} | {events / t:,.0f} | {size / 1e6 / t:,.0f} "
          f"| {rss / events:,.0f} | {ans} |")
lrt, txt, wct = (rows[contenders[i][0]][0] for i in range(3))
ddb, pdt = rows[contenders[3][0]][0], rows[contenders[4][0]][0]
lrt = max(lrt, 0.005)
print(f"\nlockreplay: {lrt / max(wct, 0.005):.1f}x wc -l; DuckDB / lockreplay {ddb / lrt:.1f}x; "
      f"JSON / text report {lrt / max(txt, 0.005):.2f}x; "
      f"pandas / lockreplay {pdt / lrt:.1f}x; {rows[contenders[0][0]][1] / events:.0f} bytes/event")

# The second open: the same command with a private cache, after one run
# that fills it (the load entry, the analysis, the printed report); the
# ratio to the first open above. Then the same with the report entries
# removed before each run: the log and its analysis from the cache, the
# report formatted again (what another format or language costs).
with tempfile.TemporaryDirectory() as cache_dir:
    env = dict(os.environ, LOCKREPLAY_CACHE_DIR=cache_dir)
    cached = [lr, "analyze", "--format", "json", path]
    timed(cached, env)
    runs = [timed(cached, env) for _ in range(repeat)]
    second, second_busy = min((r[0], r[3]) for r in runs)

    def analysis_only():
        for f in os.listdir(cache_dir):
            if f.endswith(".lrr"):
                os.remove(os.path.join(cache_dir, f))
        return timed(cached, env)

    runs = [analysis_only() for _ in range(repeat)]
    again, again_busy = min((r[0], r[3]) for r in runs)
print(f"lockreplay first open: {lrt:.2f} s, {first_busy:.2f} cores busy")
print(f"lockreplay second open (report from the result cache): {second:.3f} s, "
      f"first / second {lrt / max(second, 0.005):.1f}x, {second_busy:.2f} cores busy")
print(f"lockreplay second open, report made again (log and analysis from the cache): "
      f"{again:.2f} s, first / second {lrt / max(again, 0.005):.1f}x, {again_busy:.2f} cores busy")
