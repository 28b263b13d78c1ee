#!/usr/bin/env python3
"""Builds a KDBX 4 database holding the entries of a gen_entries.py TSV file.

keepassxc-cli 2.7.4 imports XML only into KDBX 3.1 with AES-KDF and cannot set
Argon2id parameters, so:
1. pykeepass (Debian's python3-pykeepass) creates a KDBX 4 file, sets its KDF to
   Argon2id with exactly the given memory, iterations and lanes, and adds the
   entries (title, username, password, URL, notes);
2. `keepassxc-cli db-edit -p` sets the same password again, so that the file on
   disk is the one KeePassXC itself writes (its XML, compression and cipher).

usage: make_kdbx.py ENTRIES.tsv OUT.kdbx PASSWORD MEMORY_KIB ITERATIONS LANES
"""
import os
import subprocess
import sys
from pykeepass import PyKeePass, create_database
from pykeepass.entry import Entry
from pykeepass.kdbx_parsing.kdbx4 import kdf_uuids


def cli(args, stdin_text):
    subprocess.run(["keepassxc-cli"] + args, input=stdin_text.encode(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    tsv, out, password = sys.argv[1], sys.argv[2], sys.argv[3]
    memory_kib, iterations, lanes = (int(x) for x in sys.argv[4:7])
    if os.path.exists(out):
        os.remove(out)
    kp = create_database(out, password=password)
    kdf = kp.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
    kdf["$UUID"].value = kdf_uuids["argon2id"]
    kdf["M"].value = memory_kib * 1024
    kdf["I"].value = iterations
    kdf["P"].value = lanes
    # pykeepass writes the header's parsed bytes when it has them: drop them so the
    # header is rebuilt with the new KDF parameters.
    del kp.kdbx.header["data"]
    group = kp.root_group
    with open(tsv, encoding="utf-8") as src:
        for line in src:
            title, user, secret, url, notes = line.rstrip("\n").split("\t")
            # Entry + append, as add_entry does minus its duplicate search (quadratic here).
            group.append(Entry(title, user, secret, url=url, notes=notes, kp=kp))
    kp.save()
    # Re-save with KeePassXC itself (same password; the KDF parameters are kept).
    cli(["db-edit", "-q", "-p", out], f"{password}\n{password}\n{password}\n")
    check = PyKeePass(out, password=password)
    kdf = check.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
    got = (check.kdf_algorithm, kdf["M"].value // 1024, kdf["I"].value, kdf["P"].value)
    print(f"{out}: {len(check.entries)} entries, KDBX {check.version}, {got[0]} m={got[1]} KiB t={got[2]} p={got[3]}, "
          f"{os.path.getsize(out)} bytes")
    if got != ("argon2id", memory_kib, iterations, lanes):
        sys.exit(f"unexpected KDF parameters after db-edit: {got}")


if __name__ == "__main__":
    main()
