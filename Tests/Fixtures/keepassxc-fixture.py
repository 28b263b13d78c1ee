#!/usr/bin/env python3
"""Builds the KeePassXC test database with pykeepass: python3 keepassxc-fixture.py OUT.kdbx PASSWORD

Used by Tests/CofferTransferTests/TransferImportRealPeerTests.swift (which exports it with keepassxc-cli and
imports the export) and to make keepassxc.xml / keepassxc.csv beside this file:
  python3 keepassxc-fixture.py /tmp/f.kdbx pw
  printf 'pw\n' | keepassxc-cli export -q -f xml /tmp/f.kdbx > keepassxc.xml
  printf 'pw\n' | keepassxc-cli export -q -f csv /tmp/f.kdbx > keepassxc.csv
Every time is fixed, so the exports are the same on every run (except UUIDs).
"""
import sys
from datetime import datetime, timezone

from pykeepass import create_database

CREATED = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
MODIFIED = datetime(2024, 2, 3, 4, 5, 6, tzinfo=timezone.utc)


def stamp(entry, created=CREATED, modified=MODIFIED):
    entry.ctime = created
    entry.mtime = modified


def protect(entry, key):
    entry._element.find("String[Key='%s']/Value" % key).set("Protected", "True")


db = create_database(sys.argv[1], password=sys.argv[2])
work = db.add_group(db.root_group, "Work")
email = db.add_group(work, "Email")
personal = db.add_group(db.root_group, "Personal")

# An internet login with two earlier passwords, tags, attributes (one protected) and an OTP.
mail = db.add_entry(email, "Work Mail", "alice@example.com", "first-pass",
                    url="https://mail.example.com:8443/login?x=1", notes="line one\nline two",
                    tags=["mail", "important"])
stamp(mail, modified=datetime(2024, 1, 10, 0, 0, 0, tzinfo=timezone.utc))
mail.save_history()
mail.password = "second-pass"
stamp(mail, modified=datetime(2024, 1, 20, 0, 0, 0, tzinfo=timezone.utc))
mail.save_history()
mail.password = 'third-pass <&> "quoted"'
mail.set_custom_property("Customer", "12-345")
mail.set_custom_property("PIN", "9876")
protect(mail, "PIN")
mail.otp = ("otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP"
            "&issuer=Example&period=30&digits=6&algorithm=SHA1")
stamp(mail)

# A generic password (no URL) with non-ASCII text and CSV-hostile characters.
bank = db.add_entry(personal, "Bänk", "bob", 'b@nk"pw,;')
stamp(bank)

# A bare host, no scheme; the entry expires.
router = db.add_entry(db.root_group, "Router", "admin", "r0uter", url="192.168.1.1")
router.expires = True
router.expiry_time = datetime(2030, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
stamp(router)

# A secure note: no user name, password or URL.
note = db.add_entry(db.root_group, "Wi-Fi note", "", "", notes="SSID: home\nkey: abc")
stamp(note)

# SHA-256, 8 digits, 60 seconds.
vpn = db.add_entry(work, "VPN", "alice", "vpn-pass", url="https://vpn.example.com")
vpn.otp = ("otpauth://totp/VPN:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA"
           "&algorithm=SHA256&digits=8&period=60&issuer=VPN")
stamp(vpn)

# In the Recycle Bin: skipped on import.
trash = db.add_entry(db.root_group, "Trash me", "x", "y")
stamp(trash)
db.trash_entry(trash)

db.save()
