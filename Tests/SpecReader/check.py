#!/usr/bin/env python3
"""Runs the clean-room reader (reader.py) over every format-2 vector of a directory.

    python3 Tests/SpecReader/check.py Tests/Vectors

For each `v2-*.vec` file it compares the outcome class with the file's `expect:` line and,
for a success vector, the entries and the generation with its `entries:` and `generation:`
lines (SPEC.md §15.1). It prints one line per disagreement and a summary, and exits 1 when
there is any (2 when it cannot run).
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reader  # noqa: E402


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check.py VECTOR_DIRECTORY", file=sys.stderr)
        return 2
    files = sorted(glob.glob(os.path.join(argv[1], "v2-*.vec")))
    if not files:
        print("no v2-*.vec file in " + argv[1], file=sys.stderr)
        return 2
    disagreements = []
    for path in files:
        name = os.path.basename(path)
        header, outcome, why, entries, generation = reader.run_vector(path)
        expected = header["expect"]
        if outcome != expected:
            disagreements.append(f"{name}: expected {expected}, read {outcome} ({why})")
        elif expected == "success":
            if reader.canon(json.loads(header["entries"])) != reader.canon(entries):
                disagreements.append(f"{name}: the entries differ")
            elif int(header["generation"]) != generation:
                disagreements.append(f"{name}: generation {generation}, expected {header['generation']}")
    for line in disagreements:
        print("disagree " + line)
    print(f"agree {len(files) - len(disagreements)} disagree {len(disagreements)} of {len(files)}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
