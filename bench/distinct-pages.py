#!/usr/bin/env python3
"""Peak physical memory of all ranks of one run, each page counted once (not a test).

    python3 bench/distinct-pages.py TAG EXE OUT &   (then start the run; TAG: a string in its command line)

Samples every 0.2 s, while processes of EXE whose command line contains TAG run (the ranks, not
mpirun or time), the set of physical page
frames resident in any of them (/proc/PID/pagemap) and writes the largest count in kB to OUT when they
have ended. Summing the ranks' peak resident sets counts a page that several ranks map (the shared
libraries' code and read-only data, 30-40 MB per rank for Debian's PETSc and its dependencies) once
per rank; this counts it once, as the node's memory holds it once. Reading page frame numbers needs
root (CAP_SYS_ADMIN); without it OUT gets "-".
"""
import os
import struct
import sys
import time

tag, comm, out = sys.argv[1].encode(), os.path.basename(sys.argv[2])[:15], sys.argv[3]
page_kb = os.sysconf("SC_PAGE_SIZE") // 1024


def frames(pid):
    """Physical frame numbers of the pages resident in process pid (None without the right)."""
    got = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pm:
        for line in maps:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if line.rstrip().endswith("[vsyscall]"):
                continue
            pm.seek(lo // 4096 * 8)
            data = pm.read((hi - lo) // 4096 * 8)
            for (e,) in struct.iter_unpack("<Q", data):
                if e >> 63:  # present
                    pfn = e & ((1 << 55) - 1)
                    if pfn == 0:
                        return None
                    got.add(pfn)
    return got


best, seen, unreadable = 0, False, False
while True:
    pids = []
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{p}/comm").read().strip() == comm and tag in open(f"/proc/{p}/cmdline", "rb").read():
                pids.append(p)
        except OSError:
            pass
    if pids:
        seen = True
    elif seen:
        break
    union = set()
    for p in pids:
        try:
            f = frames(p)
        except OSError:
            continue
        if f is None:
            unreadable = True
            break
        union |= f
    if unreadable:
        break
    best = max(best, len(union) * page_kb)
    time.sleep(0.2)
with open(out, "w") as o:
    o.write("-\n" if unreadable or not seen else f"{best}\n")
