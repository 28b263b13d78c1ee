"""Version-1 reading for merging (SPEC.md Appendix A, §17.6, §11.1), clean room.

Opens a version-1 file with a credential (MACs, digests, AEAD, padding, TLV and
A.17.3's merge fields) and returns rows shaped like reader.py's, with the item's clock
already converted to version 2's state (§17.6 for entries without merge fields).
It checks what merging needs; it is not a full conformance reader of version 1.
"""
import struct

import reader
from reader import Fail, malformed, truncated, u64, KEYED, CODES


def unpad64(pt):
    i = len(pt) - 1
    while i >= 0 and pt[i] == 0:
        i -= 1
    if i < 0 or pt[i] != 0x80 or len(pt) - i > 64 or len(pt) % 64:
        malformed("v1 padding")
    return pt[:i]


OV_NESTED = {15}
SEC_NESTED = {3, 4, 5, 0x8010}


def tlv(buf, start, end, nested, conflict=False):
    out = []
    pos = start
    while pos < end:
        if pos + 6 > end:
            truncated("v1 field header cut")
        tag, n = struct.unpack_from("<HI", buf, pos)
        pos += 6
        if n > end - pos:
            truncated("v1 field past its list")
        sub = None
        if tag in nested:
            if conflict is False and tag == 0x8010 and nested is SEC_NESTED:
                sub = tlv(buf, pos, pos + n, set(), conflict=True)
            else:
                sub = tlv(buf, pos, pos + n, set())
        elif conflict is True and tag == 5:
            code = None
            for t_, v_, _ in out:
                if t_ == 1 and len(v_) == 1:
                    code = v_[0]
            if code is not None and code in reader.OV_CODES:
                sub = tlv(buf, pos, pos + n, OV_NESTED)
            else:
                sub = tlv(buf, pos, pos + n, {3, 4, 5})
        out.append((tag, bytes(buf[pos:pos + n]), sub))
        pos += n
    return out


def open_v1(data, cred):
    if data[:8] != reader.MAGIC or struct.unpack_from("<H", data, 8)[0] != 1:
        raise Fail("not version 1")
    H = struct.unpack_from("<I", data, 10)[0]
    if H > 65536:
        malformed("H")
    if reader.b2b(data[:14 + H]) != data[14 + H:46 + H]:
        raise Fail("header failure", "checksum")
    body = data[14:14 + H]
    vid = body[:16]
    pos = 16
    ns = body[pos]
    pos += 1
    slots = []
    for _ in range(ns):
        typ = body[pos]
        ln = struct.unpack_from("<H", body, pos + 1)[0]
        pos += 3
        slots.append((typ, bytes(body[pos:pos + ln]), b""))
        pos += ln
    ne = struct.unpack_from("<H", body, pos)[0]
    pos += 2
    exts = []
    for _ in range(ne):
        et, ln = struct.unpack_from("<HI", body, pos)
        pos += 6
        exts.append((et, bytes(body[pos:pos + ln])))
        pos += ln
    if pos != len(body):
        malformed("v1 header trailing bytes")
    # unlock (A.4.6): raw key (type 4) and password (type 1, one lane) only
    K = None
    opened = None
    hdr = {"vault_id": vid}
    for k, (typ, pub, _) in enumerate(slots):
        if cred["kind"] == "raw-key" and typ == 4:
            kek = reader.b2b(b"coffer.v1.slot.raw-key\x00" + pub[:16], key=cred["raw-key"])
        elif cred["kind"] == "password" and typ == 1:
            m, t, p = struct.unpack_from("<III", pub, 1)
            kek = reader.argon2id(cred["password"], pub[13:29], t, m, p)
        elif cred["kind"] == "key-file" and typ == 3:
            m, t, p = struct.unpack_from("<III", pub, 1)
            kek = reader.argon2id(reader.keyfile_material(cred["key-file"]), pub[13:29], t, m, p)
        else:
            continue
        if kek is None:
            continue
        K = reader.open_legacy(hdr, typ, pub, kek)
        if K is not None:
            opened = k
            break
    if K is None:
        raise Fail("wrong key" if cred["kind"] != "password" else "wrong password")

    def sk(ctx):
        return reader.b2b(ctx.encode() + b"\x00", key=K)

    if reader.b2b(data[:14 + H], key=sk("coffer.v1.header")) != data[46 + H:78 + H]:
        raise Fail("header failure", "MAC")
    M = struct.unpack_from("<I", data, 78 + H)[0]
    mb = data[82 + H:82 + H + M]
    if reader.b2b(data[:82 + H + M], key=sk("coffer.v1.manifest")) != data[82 + H + M:114 + H + M]:
        raise Fail("manifest failure")
    gen = u64(mb, 0)
    n = struct.unpack_from("<I", mb, 8)[0]
    ments = [(mb[12 + 56 * k:28 + 56 * k], u64(mb, 28 + 56 * k), mb[36 + 56 * k:68 + 56 * k])
             for k in range(n)]
    pos = 114 + H + M
    ovk, sck = sk("coffer.v1.entry-overview"), sk("coffer.v1.entry-secret")
    rows = []
    for eid, rev, dig in ments:
        L = struct.unpack_from("<I", data, pos)[0]
        rec = data[pos + 4:pos + 4 + L]
        pos += 4 + L
        if rec[:16] != eid or u64(rec, 16) != rev or reader.b2b(rec) != dig:
            raise Fail("entry failure", "record does not match the manifest")
        on = rec[24:48]
        A = struct.unpack_from("<I", rec, 48)[0]
        oct_ = rec[52:52 + A]
        sn = rec[52 + A:76 + A]
        B = struct.unpack_from("<I", rec, 76 + A)[0]
        sct = rec[80 + A:80 + A + B]
        ad = b"coffer.v1.entry\x00" + vid + eid + struct.pack("<Q", rev)
        opt = reader.xchacha_open(ovk, on, ad + b"\x01", oct_)
        spt = reader.xchacha_open(sck, sn, ad + b"\x02", sct)
        if opt is None or spt is None:
            raise Fail("entry failure", "AEAD")
        ovf = tlv(opt, 0, len(unpad64(opt)), OV_NESTED)
        sef = tlv(spt, 0, len(unpad64(spt)), SEC_NESTED)
        rows.append(dict(id=eid, rev=rev, nonce=("v1", on, sn), digest=dig, body=bytes(rec),
                         ovf=ovf, sef=sef))
    if pos != len(data):
        malformed("v1 bytes after the records")
    return gen, rows, dict(vault_id=vid, slots=slots, exts=exts, K=K, opened=opened)


def _stamp(c, V):
    i = c.fixed(1)[0]
    t = u64(c.fixed(8))
    if i >= len(V) or t < 1 or t > V[i][1]:
        malformed("v1 stamp")
    return (t, V[i][0])


def _reg(c):
    code = c.fixed(1)[0]
    if code not in CODES:
        malformed("v1 register code")
    key = 0
    if code in KEYED:
        key = u64(c.fixed(8))
        if key == 0:
            malformed("v1 key 0")
    return (code, key)


def item_clock(row):
    """Returns (V dict, D dict, stamps {reg: st}, siblings [(reg, st)], conflicts {(reg, st): fields})."""
    mf = {t: v for t, v, _ in row["ovf"] if 0x8010 <= t <= 0x8013}
    from merge import ov_register, sec_register  # noqa
    regs = set()
    occ = {}
    for tag, v, sub in row["ovf"]:
        r = ov_register(tag, sub, occ)
        if r is not None:
            regs.add(r)
    occ = {}
    for tag, v, sub in row["sef"]:
        r = sec_register(tag, sub, occ)
        if r is not None:
            regs.add(r)
    conflicts = {}
    if not mf:
        # §17.6: the legacy clock
        R = int.from_bytes(row["digest"][:8], "big") | 1
        st = (row["rev"], R)
        return {R: row["rev"]}, {}, {reg: st for reg in regs}, [], conflicts
    if 0x8010 not in mf:
        malformed("v1 merge fields without versions")
    vv = mf[0x8010]
    V = [(u64(vv, 16 * k), u64(vv, 16 * k + 8)) for k in range(len(vv) // 16)]
    stamps = {}
    if 0x8011 in mf:
        c = reader.MF(mf[0x8011], "v1 stamps")
        default = _stamp(c, V)
        mask = struct.unpack("<I", c.fixed(4))[0]
        if mask >> 19:
            malformed("v1 mask")
        explicit = {}
        while c.more():
            reg = _reg(c)
            explicit[reg] = _stamp(c, V)
        for b in range(19):
            if mask >> b & 1:
                code = CODES[b]
                if code in KEYED:
                    for reg in regs:
                        if reg[0] == code and reg not in explicit:
                            stamps[reg] = default
                else:
                    if (code, 0) in explicit:
                        malformed("v1 stamp in mask and explicit")
                    stamps[(code, 0)] = default
        stamps.update(explicit)
    siblings = []
    if 0x8012 in mf:
        c = reader.MF(mf[0x8012], "v1 siblings")
        while c.more():
            reg = _reg(c)
            siblings.append((reg, _stamp(c, V)))
    D = {}
    if 0x8013 in mf:
        c = reader.MF(mf[0x8013], "v1 deleted")
        while c.more():
            i = c.fixed(1)[0]
            t = u64(c.fixed(8))
            if i >= len(V) or t > V[i][1]:
                malformed("v1 deleted")
            D[V[i][0]] = t
    for tag, v, sub in row["sef"]:
        if tag == 0x8010:
            d = {t: (vv_, s) for t, vv_, s in sub}
            code = d[1][0][0]
            key = u64(d[2][0]) if 2 in d else 0
            st = (u64(d[4][0]), u64(d[3][0]))
            conflicts[((code, key), st)] = list(d[5][1] or [])
    for reg in regs:
        if reg not in stamps:
            malformed("v1 register with a value and no stamp")
    for s in siblings:
        if s not in conflicts:
            malformed("v1 sibling without conflict field")
    return dict(V), D, stamps, siblings, conflicts
