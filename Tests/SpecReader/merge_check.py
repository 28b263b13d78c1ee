#!/usr/bin/env python3
"""Runs every merge vector (a file with `merge-with:`) through merge.py (SPEC.md §15.1).

    python3 Tests/SpecReader/merge_check.py Tests/Vectors [-v]

Every order of a family's files is merged pairwise from the left and compared with the
`merged:` line (a rotation vector: its files into it, in the order listed); a refused
vector must be refused with its class, both ways (a rotation one: its file into it).
Prints a line per disagreement and a count per family; exits 1 on any disagreement.
"""
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import merge  # noqa: E402
import reader  # noqa: E402
from reader import Fail  # noqa: E402

VDIR = next((a for a in sys.argv[1:] if os.path.isdir(a)), None)
VERBOSE = "-v" in sys.argv

_cache = {}


def load(name):
    if name not in _cache:
        try:
            _cache[name] = merge.open_file(os.path.join(VDIR, name))
        except Fail as f:
            _cache[name] = f
    v = _cache[name]
    if isinstance(v, Fail):
        raise v
    return v


def diff(exp, got):
    out = []
    for k in ("items", "deleted", "conflicts"):
        if reader.canon(exp[k]) != reader.canon(got[k]):
            if k == "items":
                ei = {i["id"]: i for i in exp[k]}
                gi = {i["id"]: i for i in got[k]}
                for iid in sorted(set(ei) | set(gi)):
                    a, b = ei.get(iid), gi.get(iid)
                    if a is None or b is None:
                        out.append(f"items: {iid} expected {'present' if a else 'absent'}, got {'present' if b else 'absent'}")
                        continue
                    for kk in sorted(set(a) | set(b)):
                        if reader.canon(a.get(kk)) != reader.canon(b.get(kk)):
                            out.append(f"items[{iid}].{kk}: expected {reader.canon(a.get(kk))} got {reader.canon(b.get(kk))}")
            else:
                out.append(f"{k}: expected {reader.canon(exp[k])} got {reader.canon(got[k])}")
    if sorted(exp["slots"]) != sorted(got["slots"]):
        out.append(f"slots: expected {exp['slots']} got {got['slots']}")
    return out


def fold(names):
    acc = load(names[0])
    for n in names[1:]:
        acc = merge.merge_vaults(acc, load(n))
    return acc


def main():
    files = sorted(f for f in os.listdir(VDIR) if f.endswith(".vec"))
    results = []  # (family, file, order, ok, detail)
    for f in files:
        h, _ = reader.parse_vector(os.path.join(VDIR, f))
        if "merge-with" not in h:
            continue
        others = h["merge-with"].split(" ")
        fam = f.replace(".vec", "")
        if fam.startswith("v2-merge-rotation-refused"):
            fam = "v2-merge-rotation-refused"
        elif fam.startswith("v2-merge-rotation"):
            fam = "v2-merge-rotation"
        elif fam.startswith("v2-merge-refused"):
            fam = "v2-merge-refused"
        else:
            fam = fam.rsplit("-", 1)[0]
        if "merge-refused" in h:
            want = h["merge-refused"]
            if f.startswith("v2-merge-rotation-refused"):
                orders = [[f, o] for o in others]
            else:
                orders = []
                for o in others:
                    orders += [[f, o], [o, f]]
            for order in orders:
                try:
                    fold(order)
                    results.append((fam, f, order, False, f"merged; expected refusal '{want}'"))
                except Fail as e:
                    ok = e.cls == want
                    results.append((fam, f, order, ok, "" if ok else f"refused '{e.cls}' ({e.why}); expected '{want}'"))
            continue
        exp = json.loads(h["merged"])
        if f.startswith("v2-merge-rotation"):
            orders = [[f] + others]
        else:
            orders = [list(p) for p in itertools.permutations([f] + others)]
        for order in orders:
            try:
                got = merge.render(fold(order))
            except Fail as e:
                results.append((fam, f, order, False, f"failed: {e.cls}: {e.why}"))
                continue
            d = diff(exp, got)
            results.append((fam, f, order, not d, "\n      ".join(d)))
    fams = {}
    for fam, f, order, ok, det in results:
        a = fams.setdefault(fam, [0, 0])
        a[0 if ok else 1] += 1
        if not ok or VERBOSE:
            print(f"{'AGREE' if ok else 'DISAGREE'} {f} order {' + '.join(order)}")
            if det:
                print("      " + det)
    print()
    for fam, (a, d) in sorted(fams.items()):
        print(f"{fam:32s} agree {a:2d} disagree {d:2d}")
    na = sum(a for a, _ in fams.values())
    nd = sum(d for _, d in fams.values())
    print(f"{'TOTAL':32s} agree {na:2d} disagree {nd:2d}")
    return 1 if nd or not na else 0


if __name__ == "__main__":
    if VDIR is None:
        print("usage: merge_check.py VECTOR_DIRECTORY [-v]", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
