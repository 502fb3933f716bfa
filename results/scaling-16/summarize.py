#!/usr/bin/env python3
"""Medians of the runs in diag-*.tsv, gcfloor-*.tsv, mpiprocs-*.tsv and lend3-*.tsv (one
run per line: tag, 1-minute load before or the copies run at once, start,
end, the command's JSON). Prints per tag: runs, the median (lower middle)
and extremes of the command's seconds, the medians of the ranks' work and
idle seconds (--stats), and of the idle seconds those before the ranks'
first work slices and after their last where the runs have them (since
c6f12cd: "start", "end"), the share of the requests sent that were
rejected ("rejected"), the GOMAXPROCS the runs had; for the E1 tags the
ratio of the concurrent copies' median to the lone runs' median (how much
slower a core runs when all are busy), and for the mpirun tags of
mpiprocs and lend3 ("m mpi-auto ...", "p mpi-auto ...") the ratio of their
median to the embedded runs' ("m emb ...", "p emb ...") of the same instance.

    python3 results/scaling-16/summarize.py results/scaling-16/gcfloor-7df98af.tsv
"""
import collections
import json
import sys


def lower_median(xs):
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 2]


for path in sys.argv[1:]:
    runs = collections.defaultdict(list)
    for line in open(path):
        tag, _, _, _, out = line.rstrip("\n").split("\t", 4)
        d = json.loads(out)
        total = d.get("stats", {}).get("total", {})
        procs = d.get("provenance", {}).get("gomaxprocs")
        runs[tag].append((d["seconds"], total.get("work_seconds", 0.0), total.get("idle_seconds", 0.0), procs,
                          total.get("idle_start_seconds"), total.get("idle_end_seconds"),
                          total.get("requests_rejected", 0) / total["requests_sent"] if total.get("requests_sent") else None))
    print(path)
    for tag, rs in runs.items():
        secs = [r[0] for r in rs]
        line = "  %-58s %2d  %.3f s (%.3f–%.3f)" % (tag, len(rs), lower_median(secs), min(secs), max(secs))
        if any(r[1] for r in rs):
            line += "  work %.2f s  idle %.2f s" % (lower_median([r[1] for r in rs]), lower_median([r[2] for r in rs]))
            if all(r[4] is not None and r[5] is not None for r in rs):
                line += " (start %.3f, end %.3f)" % (lower_median([r[4] for r in rs]), lower_median([r[5] for r in rs]))
            if all(r[6] is not None for r in rs):
                line += "  rejected %.2f" % lower_median([r[6] for r in rs])
        procs = sorted({r[3] for r in rs if r[3] is not None})
        if procs:
            line += "  GOMAXPROCS %s" % ",".join(map(str, procs))
        if tag.startswith("e1 conc"):
            lone = runs.get(tag.replace("e1 conc", "e1 lone"))
            if lone:
                line += "  × %.2f of the lone runs'" % (lower_median(secs) / lower_median([r[0] for r in lone]))
        words = tag.split(" ", 2)
        if len(words) == 3 and words[1].startswith("mpi-"):
            emb = runs.get("%s emb %s" % (words[0], words[2]))
            if emb:
                line += "  × %.3f of embedded" % (lower_median(secs) / lower_median([r[0] for r in emb]))
        print(line)
