#!/usr/bin/env python3
"""Adds up the fuzzing sessions that tests/fuzz/campaign.sh logged in build-fuzz/logs/NAME-*.log:
per harness, the sessions, the inputs run (libFuzzer's stat::number_of_executed_units; for a
session still running, its last "#N" status line, marked "running"), the crashes (a session that
ended in a sanitizer report, a deadly signal, a leak, a timeout or an out-of-memory), and the runs
per CPU second; after a crash, also the runs since (the count that starts again once what it found
is fixed). A crash found to be none (a timeout of a process that was stopped, say) is marked so
in its log by a line "reviewed: WHY" appended by hand: it is listed with the reason and not
counted. Standard library only.
Usage: tally.py [LOG_DIR] [NAME ...]"""
import glob
import os
import re
import sys

log_dir = sys.argv[1] if len(sys.argv) > 1 else "build-fuzz/logs"
names = sys.argv[2:]
CRASH = re.compile(r"^(==\d+==ERROR|SUMMARY: (Address|UndefinedBehavior|Leak)Sanitizer|==\d+== ERROR: libFuzzer"
                   r"|.*runtime error: |==\d+== ERROR: libFuzzer: (deadly signal|timeout|out-of-memory))", re.M)


def session(path):
    text = open(path, errors="replace").read()
    s = {"log": os.path.basename(path), "harness": "", "runs": 0, "running": False, "crash": False, "cpu": None,
         "reviewed": None}
    m = re.search(r"^harness: (.*)$", text, re.M)
    s["harness"] = m.group(1) if m else "?"
    m = re.search(r"^stat::number_of_executed_units: (\d+)$", text, re.M)
    if m:
        s["runs"] = int(m.group(1))
    else:
        status = re.findall(r"^#(\d+)\s", text, re.M)
        s["runs"] = int(status[-1]) if status else 0
        s["running"] = "exit:" not in text
    m = re.search(r"^exit: (\d+)$", text, re.M)
    s["crash"] = bool(CRASH.search(text)) or (m is not None and int(m.group(1)) not in (0, 72))
    m = re.search(r"^reviewed: (.*)$", text, re.M)
    if s["crash"] and m:
        s["crash"], s["reviewed"] = False, m.group(1)
    m = re.search(r"^cpu: ([\d.]+) user ([\d.]+) sys", text, re.M)
    if m:
        s["cpu"] = float(m.group(1)) + float(m.group(2))
    return s


by_name = {}
for path in sorted(glob.glob(os.path.join(log_dir, "*-*T*.log"))):
    name = os.path.basename(path).rsplit("-", 1)[0]
    if names and name not in names:
        continue
    by_name.setdefault(name, []).append(session(path))

for name, sessions in sorted(by_name.items()):
    print(f"{name}:")
    for s in sessions:
        rate = f", {s['runs'] / s['cpu']:.0f} runs/cpu-s" if s["cpu"] else ""
        flags = (" RUNNING" if s["running"] else "") + (" CRASH" if s["crash"] else "") + \
            (f" (reviewed: {s['reviewed']})" if s["reviewed"] else "")
        print(f"  {s['log']}: {s['runs']:,} runs{rate}{flags}  [{s['harness']}]")
    total = sum(s["runs"] for s in sessions)
    crashes = sum(s["crash"] for s in sessions)
    print(f"  total: {total:,} runs, {crashes} crashes, {len(sessions)} sessions")
    if crashes:
        # The count starts again after the fix of what the last crash found.
        last = max(i for i, s in enumerate(sessions) if s["crash"])
        print(f"  since the last crash: {sum(s['runs'] for s in sessions[last + 1:]):,} runs, "
              f"{len(sessions) - last - 1} sessions")
