#!/usr/bin/env python3
"""Writes N deterministic entries as TSV: title, username, password, url, notes.

Both vaults are built from this one file, so Coffer and KeePassXC hold the same
entries. No field contains a tab or a newline.
"""
import os
import random
import sys

# EFF's large wordlist (7,776 words), compiled into Coffer as the `dice<TAB>word` lines of a
# Swift raw string: notes and names drawn from it compress about as well as ordinary text,
# which matters for KDBX's gzip.
WORDLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "CofferGenerator", "WordLists",
                        "EFFLargeWordlist.swift")


def dice_words(path):
    words = []
    for line in open(path, encoding="utf-8"):
        dice, tab, word = line.rstrip("\n").partition("\t")
        if tab and len(dice) == 5 and set(dice) <= set("123456") and word:
            words.append(word)
    if len(words) != 7776:
        sys.exit(f"gen_entries: expected 7,776 words in {path}, found {len(words):,}")
    return words


WORDS = dice_words(WORDLIST)
PASSWORD_CHARS = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                  "!#$%&()*+,-./:;<=>?@[]^_{|}~")


def entries(count, seed=20240613):
    rng = random.Random(seed)
    for i in range(count):
        host = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i:06d}.example.com"
        user = f"{rng.choice(WORDS)}.{rng.choice(WORDS)}{rng.randrange(1000)}@mail.example.org"
        password = "".join(rng.choice(PASSWORD_CHARS) for _ in range(20))
        url = f"https://{host}/login"
        words = []
        while sum(len(w) + 1 for w in words) < 100:
            words.append(rng.choice(WORDS))
        notes = (" ".join(words))[:100]
        yield host, user, password, url, notes


def main():
    count, path = int(sys.argv[1]), sys.argv[2]
    with open(path, "w", encoding="utf-8") as out:
        for fields in entries(count):
            out.write("\t".join(fields) + "\n")


if __name__ == "__main__":
    main()
