#!/usr/bin/env python3
"""Independent clean-room reader of the Coffer vault format, version 2.

Written only from SPEC.md (sections 1-10, 12, 15, 17.1-17.3, 17.6, and A.4 for
legacy slots), by a writer who read none of Coffer's Swift source, to show that
SPEC.md alone is enough: it opens every format-2 vector with the outcome class,
entries and generation the vector states (check.py; CofferFormatTests runs it).
Crypto through libsodium (ctypes) and hashlib/hmac.  When SPEC.md changes, change
this reader from the text, not from the Swift code: a disagreement is a question
about the text.  Merging (section 17.4-17.8) is out of its scope.  Its first
writer's questions about the text made SPEC.md say more (a tombstone's fields,
how a conflict's value is framed, the order of conflict fields, a live row's
deletion vector, the order of a header's extension checks, libsodium's one lane);
the two new rules among them were added here from the text.
"""
import ctypes
import hashlib
import hmac
import json
import struct
import sys

# ---------------------------------------------------------------- libsodium
_s = ctypes.CDLL("libsodium.so.23")
if _s.sodium_init() < 0:
    raise RuntimeError("sodium_init failed")
ULL = ctypes.c_ulonglong
SZ = ctypes.c_size_t


def b2b(msg, outlen=32, key=None):
    out = ctypes.create_string_buffer(outlen)
    if key is None:
        rc = _s.crypto_generichash(out, SZ(outlen), msg, ULL(len(msg)), None, SZ(0))
    else:
        rc = _s.crypto_generichash(out, SZ(outlen), msg, ULL(len(msg)), key, SZ(len(key)))
    if rc != 0:
        raise RuntimeError("generichash")
    return out.raw


def _aead_open(fn, key, nonce, ad, ct):
    if len(ct) < 16:
        return None
    m = ctypes.create_string_buffer(max(1, len(ct) - 16))
    mlen = ULL()
    rc = fn(m, ctypes.byref(mlen), None, ct, ULL(len(ct)), ad, ULL(len(ad)), nonce, key)
    if rc != 0:
        return None
    return m.raw[:mlen.value]


def xchacha_open(key, nonce, ad, ct):
    return _aead_open(_s.crypto_aead_xchacha20poly1305_ietf_decrypt, key, nonce, ad, ct)


def chacha_open(key, nonce, ad, ct):
    return _aead_open(_s.crypto_aead_chacha20poly1305_ietf_decrypt, key, nonce, ad, ct)


def x25519(n, p):
    """Returns None for an all-zero result."""
    q = ctypes.create_string_buffer(32)
    rc = _s.crypto_scalarmult(q, n, p)
    if rc != 0 or q.raw == bytes(32):
        return None
    return q.raw


def x25519_base(n):
    q = ctypes.create_string_buffer(32)
    rc = _s.crypto_scalarmult_base(q, n)
    if rc != 0:
        return None
    return q.raw


def argon2id(pwd, salt, t, m_kib, p):
    if p != 1:
        return None  # libsodium computes one lane only
    out = ctypes.create_string_buffer(32)
    rc = _s.crypto_pwhash(out, ULL(32), pwd, ULL(len(pwd)), salt, ULL(t), SZ(m_kib * 1024),
                          ctypes.c_int(2))  # crypto_pwhash_ALG_ARGON2ID13 == 2
    if rc != 0:
        return None
    return out.raw


def ed_pk_to_x(pk):
    out = ctypes.create_string_buffer(32)
    rc = _s.crypto_sign_ed25519_pk_to_curve25519(out, pk)
    return out.raw if rc == 0 else None


def ed_sk_to_x(sk):
    out = ctypes.create_string_buffer(32)
    rc = _s.crypto_sign_ed25519_sk_to_curve25519(out, sk)
    return out.raw if rc == 0 else None


def ed_seed_keypair(seed):
    pk = ctypes.create_string_buffer(32)
    sk = ctypes.create_string_buffer(64)
    rc = _s.crypto_sign_seed_keypair(pk, sk, seed)
    if rc != 0:
        raise RuntimeError("seed_keypair")
    return pk.raw, sk.raw


def hkdf_sha256(ikm, salt, info, length=32):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


# ---------------------------------------------------------------- bech32
_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def bech32_decode(s):
    if s.lower() != s and s.upper() != s:
        raise ValueError("mixed case")
    s = s.lower()
    pos = s.rfind("1")
    hrp, data = s[:pos], s[pos + 1:]
    d = [_CHARSET.index(c) for c in data]
    if _polymod([ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + d) != 1:
        raise ValueError("bad checksum")
    d = d[:-6]
    acc, bits, out = 0, 0, bytearray()
    for v in d:
        acc = (acc << 5) | v
        bits += 5
        while bits >= 8:
            bits -= 8
            out.append((acc >> bits) & 0xff)
    if bits >= 5 or (acc & ((1 << bits) - 1)):
        raise ValueError("bad padding")
    return hrp, bytes(out)


# ---------------------------------------------------------------- outcomes
class Fail(Exception):
    def __init__(self, cls, why=""):
        super().__init__(f"{cls}: {why}")
        self.cls = cls
        self.why = why


def malformed(why):
    raise Fail("malformed", why)


def truncated(why):
    raise Fail("truncated", why)


MAGIC = b"\x89COFFER\n"
DATE_MIN, DATE_MAX = -62135596800000, 253402300799999


def read_varint(buf, pos, end, bound, what):
    """§1: LEB128, shortest form, at most 10 bytes; bound checked; cut => truncated."""
    v, shift, n = 0, 0, 0
    while True:
        if pos >= end:
            truncated(f"{what}: varint cut")
        b = buf[pos]
        pos += 1
        n += 1
        if n == 10 and b > 1:
            malformed(f"{what}: varint too long")
        v |= (b & 0x7f) << shift
        shift += 7
        if not (b & 0x80):
            break
    if n > 1 and b == 0:
        malformed(f"{what}: varint not shortest")
    if v > bound:
        malformed(f"{what}: {v} above bound {bound}")
    return v, pos


def enc_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def padme(m):
    if m <= 16:
        return 16
    e = m.bit_length() - 1
    s = e.bit_length()
    step = 1 << (e - s)
    return (m + step - 1) // step * step


def is_padded_len(L):
    return L >= 16 and padme(L) == L


def unpad(pt):
    i = len(pt) - 1
    while i >= 0 and pt[i] == 0:
        i -= 1
    if i < 0 or pt[i] != 0x80:
        malformed("padding: no 0x80 marker")
    if len(pt) != padme(i + 1):
        malformed(f"padding: length {len(pt)} is not P({i + 1}) = {padme(i + 1)}")
    return pt[:i]


def utf8(b, what):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        malformed(f"{what}: not UTF-8")


def u64(b, o=0):
    return struct.unpack_from("<Q", b, o)[0]


def i64(b, o=0):
    return struct.unpack_from("<q", b, o)[0]


def check_date(v, what):
    if len(v) != 8:
        malformed(f"{what}: date of {len(v)} bytes")
    d = i64(v)
    if d < DATE_MIN or d > DATE_MAX:
        malformed(f"{what}: date {d} out of range")
    return d


# ---------------------------------------------------------------- header
KDF_SLOTS = {0x11, 0x12, 0x13, 1, 2, 3}


def check_kdf(pub, what):
    if pub[0] != 1:
        malformed(f"{what}: KDF id {pub[0]}")
    m, t, p = struct.unpack_from("<III", pub, 1)
    if not (1 <= p <= 64) or not (1 <= t <= 64) or not (8 <= m <= 4194304) or m < 8 * p:
        raise Fail("kdf out of bounds", f"{what}: m={m} t={t} p={p}")


def has_control(s):
    return any(ord(c) <= 0x1f or 0x7f <= ord(c) <= 0x9f for c in s)


def parse_header(body):
    end = len(body)
    pos = 0

    def need(n, what):
        if pos + n > end:
            truncated(f"header: {what} cut")

    need(48, "ids and epoch start")
    vault_id, epoch_id = body[0:16], body[16:32]
    es_rep, es_time = u64(body, 32), u64(body, 40)
    pos = 48
    if es_rep == 0 or es_time == 0:
        malformed("epoch start zero")
    need(1, "slot count")
    nslots = body[pos]
    pos += 1
    if not (1 <= nslots <= 32):
        malformed(f"slot count {nslots}")
    slots = []
    def prefixed(fmt, bound, what):
        """A length (struct `fmt`), its bound first ("malformed"), then that many bytes (10: order within a step)."""
        nonlocal pos
        size = struct.calcsize(fmt)
        need(size, f"{what} length")
        n = struct.unpack_from(fmt, body, pos)[0]
        pos += size
        if n > bound:
            malformed(f"{what}: length {n}")
        need(n, what)
        part = body[pos:pos + n]
        pos += n
        return part

    def slot_part(si, what):
        """A slot's part (4.1): a u16 length, at most 4096."""
        return prefixed("<H", 4096, f"slot {si} {what}")

    for si in range(nslots):
        need(1, "slot type")
        typ = body[pos]
        pos += 1
        pub = slot_part(si, "public part")
        stanza = slot_part(si, "stanza")
        plen, slen = len(pub), len(stanza)
        what = f"slot {si} type {typ:#x}"
        if typ in (0x11, 0x13):
            if plen != 61 or slen != 80:
                malformed(f"{what}: lengths {plen}/{slen}")
        elif typ == 0x12:
            if plen != 109 or slen != 80:
                malformed(f"{what}: lengths {plen}/{slen}")
        elif typ == 0x14:
            if plen != 48 or slen != 80:
                malformed(f"{what}: lengths {plen}/{slen}")
        elif typ in (1, 2, 3):
            if plen != 101 or slen != 0:
                malformed(f"{what}: lengths {plen}/{slen}")
        elif typ == 4:
            if plen != 88 or slen != 0:
                malformed(f"{what}: lengths {plen}/{slen}")
        elif typ in (0x15, 0x16):
            if not (40 <= plen <= 295) or slen != 80:
                malformed(f"{what}: lengths {plen}/{slen}")
            label = utf8(pub[40:], f"{what} label")
            if has_control(label):
                malformed(f"{what}: label control character")
            if typ == 0x16 and ed_pk_to_x(pub[:32]) is None:
                malformed(f"{what}: invalid Ed25519 key")
        if typ in KDF_SLOTS:
            check_kdf(pub, what)
        slots.append((typ, pub, stanza))
    need(2, "extension count")
    next_ = struct.unpack_from("<H", body, pos)[0]
    pos += 2
    if next_ > 64:
        malformed(f"extension count {next_}")
    exts = []
    seen = set()
    for ei in range(next_):
        need(2, "extension type")
        et = struct.unpack_from("<H", body, pos)[0]
        pos += 2
        val = prefixed("<I", 262144, f"extension {et:#x}")
        if et in (0x8010, 0x8011, 0x8012):
            if et in seen:
                malformed(f"extension {et:#x} repeated")
            seen.add(et)
            if et == 0x8010:
                parse_vault_clock(val)
            elif et == 0x8011:
                parse_removed(val)
            else:
                parse_key_history(val, epoch_id)
        elif et & 0x8000:
            malformed(f"unknown critical extension {et:#x}")
        exts.append((et, val))
    if pos != end:
        malformed(f"{end - pos} bytes after the last extension")
    return dict(vault_id=vault_id, epoch_id=epoch_id, epoch_start=(es_rep, es_time),
                slots=slots, exts=exts)


def parse_vault_clock(v):
    if len(v) % 16 or not (1 <= len(v) // 16 <= 16384):
        malformed(f"vault clock length {len(v)}")
    prev = 0
    for k in range(len(v) // 16):
        r, t = u64(v, 16 * k), u64(v, 16 * k + 8)
        if r == 0 or t == 0 or r <= prev:
            malformed("vault clock entry")
        prev = r


def parse_removed(v):
    if len(v) % 24 or not (1 <= len(v) // 24 <= 10922):
        malformed(f"removed slots length {len(v)}")
    prev = None
    for k in range(len(v) // 24):
        ident, t = v[24 * k:24 * k + 16], u64(v, 24 * k + 16)
        cur = (t, ident)
        if prev is not None and not (cur > prev):
            malformed("removed slots not strictly ascending")
        prev = cur


def parse_key_history(v, current):
    if len(v) < 1:
        malformed("key history empty")
    n = v[0]
    if not (1 <= n <= 64):
        malformed(f"key history count {n}")
    if len(v) != 41 + 64 * n:
        malformed(f"key history length {len(v)} for count {n}")
    prev = None
    ids = set()
    for k in range(n):
        o = 1 + 32 * k
        eid, r, t = v[o:o + 16], u64(v, o + 16), u64(v, o + 24)
        if eid in ids or eid == current:
            malformed("key history id repeated or current")
        ids.add(eid)
        if r == 0 or t == 0:
            malformed("key history zero stamp")
        if prev is not None:
            pt, pr, pid = prev
            # newest first: descending (time, replica); equal stamps ascending id
            if (t, r) > (pt, pr) or ((t, r) == (pt, pr) and eid <= pid):
                malformed("key history out of order")
        prev = (t, r, eid)


# ---------------------------------------------------------------- keys
def subkey(K, ctx):
    return b2b(ctx.encode() + b"\x00", key=K)


def epoch_id_of(K):
    return subkey(K, "coffer.v2.epoch")[:16]


def slot_identity(typ, pub):
    return b2b(bytes([typ]) + pub)[:16]


def open_stanza(hdr, typ, pub, stanza, seeds, pks):
    E, wrapped = stanza[:32], stanza[32:]
    ad = b"coffer.v2.stanza\x00" + hdr["vault_id"] + hdr["epoch_id"] + slot_identity(typ, pub)
    shareds = []
    for seed, pk in zip(seeds, pks):
        sk = b2b(b"coffer.v2.slot.x25519\x00", key=seed)
        if x25519_base(sk) != pk:
            return None
        sh = x25519(sk, E)
        if sh is None:
            return None
        shareds.append(sh)
    wk = b2b(ad + E + b"".join(pks) + b"".join(shareds))
    return xchacha_open(wk, bytes(24), ad, wrapped)


def open_legacy(hdr, typ, pub, kek):
    params = pub[:-72]
    nonce, wrapped = pub[-72:-48], pub[-48:]
    ad = b"coffer.v1.slot\x00" + hdr["vault_id"] + bytes([typ]) + params
    return xchacha_open(kek, nonce, ad, wrapped)


def open_recipient(hdr, typ, pub, stanza, s):
    key = pub[:32]
    if typ == 0x15:
        R = key
        label = b"age-encryption.org/v1/X25519"
    else:
        R = ed_pk_to_x(key)
        label = b"age-encryption.org/v1/ssh-ed25519"
        if R is None:
            return None
    if x25519_base(s) != R:
        return None
    E, body = stanza[:32], stanza[32:]
    if len(body) != 48:
        return None
    shared = x25519(s, E)
    if shared is None:
        return None
    if typ == 0x16:
        sshkey = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + key
        tweak = hkdf_sha256(b"", sshkey, b"age-encryption.org/v1/ssh-ed25519")
        shared = x25519(tweak, shared)
        if shared is None:
            return None
    wk = hkdf_sha256(shared, E + R, label)
    return chacha_open(wk, bytes(12), b"", body)


def keyfile_material(contents):
    return b2b(b"coffer.v1.keyfile\x00" + contents)


def unlock(hdr, cred):
    """§4.10.  Returns the epoch key or raises."""
    kinds = {"password": (0x11, 1), "key-file": (0x13, 3), "password+key-file": (0x12, 2),
             "raw-key": (0x14, 4), "age": (0x15,), "ssh": (0x16,)}[cred["kind"]]
    wrong = "wrong password" if cred["kind"] == "password" else "wrong key"
    seen_expensive = {}
    for typ, pub, stanza in hdr["slots"]:
        if typ not in kinds:
            continue
        K = None
        if typ in (0x11, 0x13, 1, 3):
            m, t, p = struct.unpack_from("<III", pub, 1)
            salt = pub[13:29]
            pwd = cred["password"] if typ in (0x11, 1) else keyfile_material(cred["key-file"])
            seed = argon2id(pwd, salt, t, m, p)
            if seed is None:
                continue
            if typ in (0x11, 0x13):
                K = open_stanza(hdr, typ, pub, stanza, [seed], [pub[29:61]])
            else:
                K = open_legacy(hdr, typ, pub, seed)
        elif typ == 0x12:
            m, t, p = struct.unpack_from("<III", pub, 1)
            seed1 = argon2id(cred["password"], pub[13:29], t, m, p)
            if seed1 is None:
                continue
            mat = keyfile_material(cred["key-file"])
            seed2 = b2b(b"coffer.v2.slot.key-file\x00" + pub[61:77], key=mat)
            K = open_stanza(hdr, typ, pub, stanza, [seed1, seed2], [pub[29:61], pub[77:109]])
        elif typ == 2:
            continue  # needs Argon2's secret input: libsodium cannot (§4.5)
        elif typ == 0x14:
            rk = cred["raw-key"]
            if len(rk) != 32:
                continue
            seed = b2b(b"coffer.v2.slot.raw-key\x00" + pub[:16], key=rk)
            K = open_stanza(hdr, typ, pub, stanza, [seed], [pub[16:48]])
        elif typ == 4:
            rk = cred["raw-key"]
            if len(rk) != 32:
                continue
            kek = b2b(b"coffer.v1.slot.raw-key\x00" + pub[:16], key=rk)
            K = open_legacy(hdr, typ, pub, kek)
        elif typ in (0x15, 0x16):
            K = open_recipient(hdr, typ, pub, stanza, cred["scalar"])
        if K is not None:
            if len(K) != 32 or epoch_id_of(K) != hdr["epoch_id"]:
                raise Fail("header failure", f"slot type {typ:#x} opens to a key of another epoch")
            return K
    raise Fail(wrong, "no slot opens")


# ---------------------------------------------------------------- manifest
def parse_manifest(mb):
    M = len(mb)
    gen = u64(mb, 0)
    n = struct.unpack_from("<I", mb, 8)[0]
    if n > 10_000_000:
        malformed(f"entry count {n}")
    pos = 12
    rows = []
    prev = None
    for k in range(n):
        if pos + 49 > M:
            truncated(f"row {k} cut")
        eid = mb[pos:pos + 16]
        nonce = mb[pos + 16:pos + 40]
        tag = mb[pos + 40:pos + 48]
        flags = mb[pos + 48]
        pos += 49
        if prev is not None and not (eid > prev):
            malformed(f"row {k}: ids not strictly ascending")
        prev = eid
        if flags not in (0, 1):
            malformed(f"row {k}: flags {flags}")
        rev, pos = read_varint(mb, pos, M, 0xFFFFFFFF, f"row {k} revision")
        if rev == 0:
            malformed(f"row {k}: revision 0")
        A, pos = read_varint(mb, pos, M, 1048592, f"row {k} A")
        if A < 16 or not is_padded_len(A - 16):
            malformed(f"row {k}: A={A}")
        B, pos = read_varint(mb, pos, M, 67108880, f"row {k} B")
        tomb = flags == 1
        if tomb:
            if B != 0:
                malformed(f"row {k}: tombstone with B={B}")
            if tag != bytes(8):
                malformed(f"row {k}: tombstone with lookup tag")
        else:
            if B < 16 or not is_padded_len(B - 16):
                malformed(f"row {k}: B={B}")
        rows.append(dict(id=eid, nonce=nonce, tag=tag, tomb=tomb, rev=rev, A=A, B=B))
    if pos != M:
        malformed(f"{M - pos} bytes after the last row")
    return gen, rows


# ---------------------------------------------------------------- field lists
OV_NESTED = {15}
SEC_NESTED = {3, 4, 5, 0x8010}
CODES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 0x7F, 0x81, 0x82, 0x83, 0x85, 0xFF]
KEYED = {15, 0x83, 0x85}
UNKEYED = [c for c in CODES if c not in KEYED]
OV_CODES = set(range(1, 13)) | {15, 0x7F}


class FieldList(list):
    pass


def frame(buf, start, end, nested, conflict=False):
    """Framing pass (§7.1): returns [(tag, value_bytes, nested_framed_or_None)]."""
    out = FieldList()
    pos = start
    while pos < end:
        tag, pos = read_varint(buf, pos, end, 65535, "field tag")
        n, pos = read_varint(buf, pos, end, 0xFFFFFFFF, "field length")
        if n > end - pos:
            truncated(f"field {tag}: length {n} past the end of its list")
        sub = None
        if tag in nested:
            if tag == 0x8010 and nested is SEC_NESTED:
                sub = frame(buf, pos, pos + n, set(), conflict=True)
            else:
                sub = frame(buf, pos, pos + n, set())
        elif conflict and tag == 5:
            # value of a conflict field: the register's fields, framed as where they belong
            code = None
            for t_, v_, _ in out:
                if t_ == 1 and len(v_) == 1:
                    code = v_[0]
            if code is not None and code in OV_CODES:
                sub = frame(buf, pos, pos + n, OV_NESTED)
            elif code is not None:
                sub = frame(buf, pos, pos + n, {3, 4, 5})
            else:
                sub = frame(buf, pos, pos + n, set())
        out.append((tag, bytes(buf[pos:pos + n]), sub))
        pos += n
    return out


def check_pair(sub, what, value_is_string):
    if len(sub) != 2 or sub[0][0] != 1 or sub[1][0] != 2:
        malformed(f"{what}: pair is not exactly tag 1 then tag 2: {[t for t, _, _ in sub]}")
    name = utf8(sub[0][1], f"{what} name")
    val = utf8(sub[1][1], f"{what} value") if value_is_string else sub[1][1]
    return name, val


def check_history(sub, what):
    if len(sub) != 2 or sub[0][0] != 1 or sub[1][0] != 2:
        malformed(f"{what}: history is not exactly tag 1 then tag 2")
    return sub[0][1], check_date(sub[1][1], f"{what} replaced")


OV_STRING = {2: "label", 3: "service", 4: "account", 5: "server", 6: "protocol", 8: "path",
             9: "comment"}
OV_KNOWN = set(range(1, 16)) | {17} | set(range(0x8010, 0x8016))
OV_REPEAT = {10, 11, 15}
SEC_KNOWN = {1, 2, 3, 4, 5, 0x8010, 0x8011, 0x8012}
SEC_REPEAT = {3, 4, 5, 0x8010}


def ov_repeatable(tag):
    return tag in OV_REPEAT or (16 <= tag <= 0x7FFF and tag != 17)


def sec_repeatable(tag):
    return tag in SEC_REPEAT or (6 <= tag <= 0x7FFF)


def order_check(fields, repeatable, what):
    """The fields of a list, each checked for its place in tag order first (7.1)."""
    prev = -1
    for tag, v, sub in fields:
        if tag < prev:
            malformed(f"{what}: tag {tag} after {prev}")
        if tag == prev and not repeatable(tag):
            malformed(f"{what}: tag {tag} repeated")
        prev = tag
        yield tag, v, sub


def decode_ov_value(tag, v, sub, o, what):
    """Check and store one overview field's value (shared with conflict values)."""
    if tag == 1:
        if len(v) != 1:
            malformed(f"{what}: kind of {len(v)} bytes")
        if v[0] not in (1, 2, 3):
            malformed(f"{what}: kind {v[0]}")
        o["kind"] = v[0]
    elif tag in OV_STRING:
        o[OV_STRING[tag]] = utf8(v, f"{what} {OV_STRING[tag]}")
    elif tag == 7:
        if len(v) != 2:
            malformed(f"{what}: port of {len(v)} bytes")
        o["port"] = struct.unpack("<H", v)[0]
    elif tag == 10:
        o.setdefault("urls", []).append(utf8(v, f"{what} url"))
    elif tag == 11:
        o.setdefault("tags", []).append(utf8(v, f"{what} tag"))
    elif tag == 12:
        if v != b"\x01":
            malformed(f"{what}: favorite {v.hex()}")
        o["favorite"] = True
    elif tag == 13:
        o["created"] = check_date(v, f"{what} created")
    elif tag == 14:
        o["modified"] = check_date(v, f"{what} modified")
    elif tag == 15:
        o.setdefault("fields", []).append(check_pair(sub, f"{what} field", True))
    elif tag == 17:
        o["expires"] = check_date(v, f"{what} expires")
    elif tag >= 0x8000:
        malformed(f"{what}: unknown critical tag {tag:#x}")
    else:
        o.setdefault("unknown", []).append((tag, v))


def decode_sec_value(tag, v, sub, s, what):
    if tag == 1:
        s["password"] = v
    elif tag == 2:
        s["notes"] = v
    elif tag == 3:
        s.setdefault("fields", []).append(check_pair(sub, f"{what} field", False))
    elif tag == 4:
        s.setdefault("history", []).append(check_history(sub, f"{what} history"))
    elif tag == 5:
        s.setdefault("attachments", []).append(check_pair(sub, f"{what} attachment", False))
    elif tag >= 0x8000:
        malformed(f"{what}: unknown critical tag {tag:#x}")
    else:
        s.setdefault("unknown", []).append((tag, v))


# ---------------------------------------------------------------- merge fields (§17.3)
class MF:
    """Cursor over a merge field's value: every failure is "malformed"."""

    def __init__(self, v, what):
        self.v, self.p, self.what = v, 0, what

    def more(self):
        return self.p < len(self.v)

    def varint(self, bound=(1 << 64) - 1):
        try:
            x, self.p = read_varint(self.v, self.p, len(self.v), bound, self.what)
        except Fail as f:
            malformed(f"{self.what}: {f.why}")
        return x

    def fixed(self, n):
        if self.p + n > len(self.v):
            malformed(f"{self.what}: ends inside a value")
        b = self.v[self.p:self.p + n]
        self.p += n
        return b


def read_stamp(c, V):
    i = c.varint()
    if i >= len(V):
        malformed(f"{c.what}: index {i} of {len(V)}")
    back = c.varint()
    r, vt = V[i]
    t = vt - back
    if back >= vt or t < 1:
        malformed(f"{c.what}: time {t}")
    return (t, r)  # ordered by time, then replica


def read_register(c):
    code = c.fixed(1)[0]
    if code not in CODES:
        malformed(f"{c.what}: register code {code:#x}")
    key = 0
    if code in KEYED:
        key = u64(c.fixed(8))
        if key == 0:
            malformed(f"{c.what}: key 0")
    return (code, key)


def enc_stamp(st, V):
    t, r = st
    for i, (vr, vt) in enumerate(V):
        if vr == r:
            return enc_varint(i) + enc_varint(vt - t)
    raise AssertionError


def enc_register(reg):
    code, key = reg
    return bytes([code]) + (struct.pack("<Q", key) if code in KEYED else b"")


def field_key(name_bytes, occurrence):
    h = b2b(b"coffer.v1.field\x00" + name_bytes + b"\x00" + struct.pack("<I", occurrence))
    k = u64(h[:8])
    return k or 1


def parse_versions(v):
    if len(v) % 16 or not (1 <= len(v) // 16 <= 16384):
        malformed(f"versions: length {len(v)}")
    V = []
    prev = 0
    for k in range(len(v) // 16):
        r, t = u64(v, 16 * k), u64(v, 16 * k + 8)
        if r == 0 or t == 0 or r <= prev:
            malformed("versions: replica zero/unordered or time zero")
        prev = r
        V.append((r, t))
    return V


def largest_stamp(V):
    r, t = max(V, key=lambda e: (e[1], e[0]))
    return (t, r)


def encode_stamps(stamps, V):
    unk = {reg: st for reg, st in stamps.items() if reg[0] not in KEYED}
    if unk:
        counts = {}
        for st in unk.values():
            counts[st] = counts.get(st, 0) + 1
        default = min(counts, key=lambda st: (-counts[st], st))
    else:
        default = largest_stamp(V)
    mask = 0
    explicit = []
    for reg, st in stamps.items():
        if reg[0] not in KEYED and st == default:
            mask |= 1 << CODES.index(reg[0])
        else:
            explicit.append((reg, st))
    explicit.sort()
    out = enc_stamp(default, V) + enc_varint(mask)
    for reg, st in explicit:
        out += enc_register(reg) + enc_stamp(st, V)
    return out


def parse_merge_fields(o, tomb):
    """§17.3 / §7.6 on a decoded overview: returns the clock."""
    mf = o["mf"]
    if 0x8010 not in mf:
        malformed("overview without versions")
    V = parse_versions(mf[0x8010])
    Vd = dict(V)
    star = largest_stamp(V)
    istar = [r for r, _ in V].index(star[1])
    clock = dict(V=V, star=star)

    # stamps
    if 0x8011 in mf:
        raw = mf[0x8011]
        c = MF(raw, "stamps")
        default = read_stamp(c, V)
        mask = c.varint()
        if mask >> 19:
            malformed("stamps: mask bit 19 or above")
        for b in range(19):
            if mask >> b & 1 and CODES[b] in KEYED:
                malformed(f"stamps: mask bit {b} of a keyed code")
        stamps = {}
        for b in range(19):
            if mask >> b & 1:
                stamps[(CODES[b], 0)] = default
        prev = None
        nexp = 0
        while c.more():
            reg = read_register(c)
            st = read_stamp(c, V)
            if prev is not None and not (reg > prev):
                malformed("stamps: explicit stamps not strictly ascending")
            prev = reg
            if reg in stamps:
                malformed(f"stamps: register {reg[0]:#x} in the mask and explicit")
            stamps[reg] = st
            nexp += 1
        if mask == 0 and nexp == 0:
            malformed("stamps: stamps nothing")
        if raw == enc_varint(istar) + b"\x00\xff\xdf\x13":
            malformed("stamps: written out though implied")
        if encode_stamps(stamps, V) != raw:
            malformed("stamps: not canonical")
    else:
        stamps = {(code, 0): star for code in UNKEYED}
    clock["stamps"] = stamps

    def stamp_list(tag, name):
        if tag not in mf:
            return []
        c = MF(mf[tag], name)
        if not c.more():
            malformed(f"{name}: empty")
        out = []
        prev = None
        while c.more():
            reg = read_register(c)
            st = read_stamp(c, V)
            i = [r for r, _ in V].index(st[1])
            k = (reg[0], reg[1], i, st[0])
            if prev is not None and not (k > prev):
                malformed(f"{name}: not strictly ascending")
            prev = k
            out.append((reg, st))
        return out

    siblings = stamp_list(0x8012, "siblings")

    # deleted
    D = {}
    if 0x8013 in mf:
        c = MF(mf[0x8013], "deleted")
        if not c.more():
            malformed("deleted: empty")
        previ = -1
        while c.more():
            i = c.varint()
            if i >= len(V) or i <= previ:
                malformed(f"deleted: index {i}")
            previ = i
            back = c.varint()
            t = V[i][1] - back
            if back >= V[i][1]:
                malformed("deleted: time below 1")
            D[V[i][0]] = t
    if tomb:
        D = dict(V)
    elif D and all(D.get(r, 0) >= t for r, t in V):
        # 7.6: a live row's deletion vector does not dominate its version vector.
        malformed("deleted: a live record whose deletion vector dominates its version vector")

    # confirmations
    confs = {}
    if 0x8014 in mf:
        c = MF(mf[0x8014], "confirmations")
        if not c.more():
            malformed("confirmations: empty")
        prev = None
        while c.more():
            reg = read_register(c)
            st = read_stamp(c, V)
            i = [r for r, _ in V].index(st[1])
            k = (reg[0], reg[1], i, st[0])
            if prev is not None and not (k > prev):
                malformed("confirmations: not strictly ascending")
            prev = k
            m = c.varint()
            if m < 1:
                malformed("confirmations: empty vector")
            C = {}
            previ = -1
            for _ in range(m):
                ci = c.varint()
                if ci >= len(V) or ci <= previ:
                    malformed(f"confirmations: vector index {ci}")
                previ = ci
                back = c.varint()
                if back >= V[ci][1]:
                    malformed("confirmations: time below 1")
                C[V[ci][0]] = V[ci][1] - back
            confs[(reg, st)] = C

    erased_l = stamp_list(0x8015, "erased")
    clock.update(siblings=siblings, D=D, confs=confs)

    # §7.6: tombstone restrictions are checked by the caller on tags; implied dates here
    imp = star[0] >> 16
    for dk, tg in (("created", 13), ("modified", 14)):
        if dk in o:
            if o[dk] == imp:
                malformed(f"{dk} written out though it equals the implied date")
        else:
            if imp < DATE_MIN or imp > DATE_MAX:
                malformed(f"implied {dk} {imp} out of range")
            o[dk] = imp

    # consistency of the overview's clock (the parts that need the overview only)
    values = {}  # reg -> list of stamps (winner first)
    for reg, st in stamps.items():
        values[reg] = [st]
    for reg, st in siblings:
        if reg not in values:
            malformed(f"sibling of register {reg[0]:#x} that has no stamp")
        if st == values[reg][0]:
            malformed(f"sibling equal to the winner of register {reg[0]:#x}")
        values[reg].append(st)
    if tomb:
        erased = {(reg, st) for reg, sts in values.items() for st in sts}
    else:
        erased = set(erased_l)
    for (reg, st) in erased_l:
        if reg not in values or st not in values[reg]:
            malformed(f"erased entry names no value of register {reg[0]:#x}")
    default_C = {r: t for r, t in V if t > D.get(r, 0)}
    for (reg, st), C in confs.items():
        if reg not in values or st not in values[reg]:
            malformed(f"confirmation names no value of register {reg[0]:#x}")
        if (reg, st) in erased:
            malformed("confirmation of an erased value")
        for r, t in C.items():
            if t > Vd[r]:
                malformed("confirmation not dominated")
            if t <= D.get(r, 0):
                malformed("confirmation not reduced")
        if C == default_C:
            malformed("confirmation equals the default")
    for reg, sts in values.items():
        ne = [st for st in sts if (reg, st) not in erased]
        want = max(ne) if ne else max(sts)
        if sts[0] != want:
            malformed(f"winner of register {reg[0]:#x} is not its largest value")
    clock.update(values=values, erased=erased, default_C=default_C)
    return clock


def ov_registers_with_values(o_fields):
    """Registers of §17.2 that hold a value in an overview list."""
    regs = set()
    occ = {}
    for tag, v, sub in o_fields:
        if 1 <= tag <= 12:
            regs.add((tag, 0))
        elif tag == 15:
            name = sub[0][1]
            k = occ.get(name, 0)
            occ[name] = k + 1
            regs.add((15, field_key(name, k)))
        elif tag == 0 or 16 <= tag <= 0x7FFF:
            regs.add((0x7F, 0))
    return regs


def sec_registers_with_values(s_fields):
    regs = set()
    occ = {}
    for tag, v, sub in s_fields:
        if tag == 1:
            regs.add((0x81, 0))
        elif tag == 2:
            regs.add((0x82, 0))
        elif tag in (3, 5):
            code = 0x83 if tag == 3 else 0x85
            name = sub[0][1]
            k = occ.get((code, name), 0)
            occ[(code, name)] = k + 1
            regs.add((code, field_key(name, k)))
        elif tag == 0 or 6 <= tag <= 0x7FFF:
            regs.add((0xFF, 0))
    return regs


# ---------------------------------------------------------------- overview / secret
def decode_overview(plain, tomb):
    fields = frame(plain, 0, len(plain), OV_NESTED)
    o = {"mf": {}}
    for tag, v, sub in order_check(fields, ov_repeatable, "overview"):
        if 0x8010 <= tag <= 0x8015:
            o["mf"][tag] = v
        else:
            decode_ov_value(tag, v, sub, o, "overview")
    clock = parse_merge_fields(o, tomb)
    if tomb:
        for tag, _, _ in fields:
            if tag not in (13, 14, 0x8010, 0x8011, 0x8012, 0x8014):
                malformed(f"tombstone with field {tag:#x}")
    else:
        regs = ov_registers_with_values(fields)
        for reg in regs:
            if reg not in clock["stamps"]:
                malformed(f"overview register {reg[0]:#x} has a value and no stamp")
            if (reg, clock["stamps"][reg]) in clock["erased"]:
                malformed(f"erased winner of register {reg[0]:#x} has a value")
        if "kind" not in o:
            kr = (1, 0)
            if kr in clock["stamps"] and (kr, clock["stamps"][kr]) in clock["erased"]:
                o["kind"] = 1
                o["kind_erased"] = True
            else:
                malformed("live overview without a kind")
    o["clock"] = clock
    o["fields_raw"] = fields
    return o


def check_conflict(sub, clock, what):
    tags = [t for t, _, _ in sub]
    idx = 0

    def take(tag):
        nonlocal idx
        if idx < len(sub) and sub[idx][0] == tag:
            idx += 1
            return sub[idx - 1]
        return None

    f1 = take(1)
    if f1 is None:
        malformed(f"{what}: no register code (tags {tags})")
    if len(f1[1]) != 1:
        malformed(f"{what}: register code width")
    code = f1[1][0]
    if code not in CODES:
        malformed(f"{what}: register code {code:#x}")
    f2 = take(2)
    key = 0
    if code in KEYED:
        if f2 is None:
            malformed(f"{what}: keyed register without key")
        if len(f2[1]) != 8:
            malformed(f"{what}: key width")
        key = u64(f2[1])
        if key == 0:
            malformed(f"{what}: key 0")
    elif f2 is not None:
        malformed(f"{what}: unkeyed register with a key")
    f3 = take(3)
    if f3 is None or len(f3[1]) != 8 or u64(f3[1]) == 0:
        malformed(f"{what}: replica")
    f4 = take(4)
    if f4 is None or len(f4[1]) != 8 or u64(f4[1]) == 0:
        malformed(f"{what}: time")
    f5 = take(5)
    if f5 is None:
        malformed(f"{what}: no value")
    if idx != len(sub):
        malformed(f"{what}: extra field {sub[idx][0]}")
    val = f5[2]
    # the value's fields: those of the register, checked as where they belong
    prev = -1
    dummy = {}
    for tag, v, s2 in val:
        if code in OV_CODES:
            if code == 0x7F:
                ok = tag == 0 or (16 <= tag <= 0x7FFF)
            else:
                ok = tag == code
            rep = ov_repeatable
        else:
            ok = {0x81: tag == 1, 0x82: tag == 2, 0x83: tag == 3, 0x85: tag == 5,
                  0xFF: tag == 0 or 6 <= tag <= 0x7FFF}[code]
            rep = sec_repeatable
        if not ok:
            malformed(f"{what}: field {tag} does not belong to register {code:#x}")
        if tag < prev or (tag == prev and (code in KEYED or not rep(tag))):
            malformed(f"{what}: value field order/repeat")
        prev = tag
        if code in OV_CODES:
            decode_ov_value(tag, v, s2, dummy, what)
        else:
            decode_sec_value(tag, v, s2, dummy, what)
    if code == 1 and len(val) != 1:
        malformed(f"{what}: a losing kind is exactly one kind field ({len(val)})")
    st = (u64(f4[1]), u64(f3[1]))
    return (code, key), st, val


def decode_secret(plain, ov):
    fields = frame(plain, 0, len(plain), SEC_NESTED)
    s = {}
    conflicts = []
    last_conflict = None
    hconf = None
    hcleared = None
    for tag, v, sub in order_check(fields, sec_repeatable, "secret"):
        if tag == 0x8010:
            conflicts.append(check_conflict(sub, ov["clock"], "conflict"))
            # 17.3: conflict fields strictly ascending by (register code, key, replica, time).
            (code, key), (t, r), _ = conflicts[-1]
            order = (code, key or 0, r, t)
            if last_conflict is not None and not (order > last_conflict):
                malformed("secret: conflict fields not in ascending order")
            last_conflict = order
        elif tag == 0x8011:
            hconf = v
        elif tag == 0x8012:
            hcleared = check_date(v, "history cleared")
        else:
            decode_sec_value(tag, v, sub, s, "secret")
    clock = ov["clock"]
    V, D = clock["V"], clock["D"]
    Vd = dict(V)
    nhist = len(s.get("history", []))
    if hconf is not None:
        c = MF(hconf, "history confirmations")
        previdx = -1
        while c.more():
            idx = c.varint()
            if idx <= previdx or idx >= nhist:
                malformed(f"history confirmations: index {idx}")
            previdx = idx
            m = c.varint()
            if m < 1:
                malformed("history confirmations: empty vector")
            C = {}
            prevr = 0
            for _ in range(m):
                r = u64(c.fixed(8))
                t = u64(c.fixed(8))
                if r == 0 or t == 0 or r <= prevr:
                    malformed("history confirmations: replica/time")
                prevr = r
                C[r] = t
            for r, t in C.items():
                if r not in Vd or t > Vd[r]:
                    malformed("history confirmation not dominated by the version vector")
                if t <= D.get(r, 0):
                    malformed("history confirmation not reduced")
            if C == clock["default_C"]:
                malformed("history confirmation equals the default")
    # both-part rules (§7.6, §17.3)
    regs = sec_registers_with_values(fields)
    for reg in regs:
        if reg not in clock["stamps"]:
            malformed(f"secret register {reg[0]:#x} has a value and no stamp")
        if (reg, clock["stamps"][reg]) in clock["erased"]:
            malformed(f"erased winner of register {reg[0]:#x} has a value")
    want = {(reg, st) for reg, st in clock["siblings"] if (reg, st) not in clock["erased"]}
    got = [(reg, st) for reg, st, _ in conflicts]
    if len(set(got)) != len(got):
        malformed("two conflict fields for one sibling")
    if set(got) != want:
        malformed(f"conflict fields {sorted(set(got) ^ want)} do not match the siblings")
    if hcleared is not None:
        for _, d in s.get("history", []):
            if d <= hcleared:
                malformed("history entry at or before the history-cleared date")
    s["conflicts"] = conflicts
    return s


def lookup_tag(lk, o):
    kind = o["kind"]
    name = {1: o.get("service"), 2: o.get("server"), 3: o.get("label")}[kind] or ""
    nb = name.encode()
    if any(b >= 0x80 for b in nb):
        f = b"\xff"
    else:
        f = bytes(b + 0x20 if 0x41 <= b <= 0x5a else b for b in nb)
    return b2b(bytes([kind]) + f, key=lk)[:8]


# ---------------------------------------------------------------- open (§10)
def open_vault(data, cred, lazy_order="overviews-first"):
    if data[:min(8, len(data))] != MAGIC[:min(8, len(data))]:
        raise Fail("not a coffer file")
    if len(data) < 10:
        truncated("preamble")
    ver = struct.unpack_from("<H", data, 8)[0]
    if ver == 1:
        raise Fail("format 1 (out of scope)")
    if ver != 2:
        raise Fail("unsupported version", str(ver))
    if len(data) < 14:
        truncated("header length")
    H = struct.unpack_from("<I", data, 10)[0]
    if H > 1048576:
        malformed(f"H={H}")
    if len(data) < 14 + H + 64:
        truncated("header, checksum or MAC")
    if b2b(data[:14 + H]) != data[14 + H:46 + H]:
        raise Fail("header failure", "checksum")
    hdr = parse_header(data[14:14 + H])
    if len(data) < 82 + H:
        truncated("manifest length")
    M = struct.unpack_from("<I", data, 78 + H)[0]
    if M < 12 or M > 610000012:
        malformed(f"M={M}")
    if len(data) < 82 + H + M:
        truncated("manifest")
    gen, rows = parse_manifest(data[82 + H:82 + H + M])
    if len(data) < 114 + H + M:
        truncated("manifest MAC")
    total = sum(r["A"] + r["B"] for r in rows)
    rest = len(data) - (114 + H + M)
    if rest < total:
        truncated("records")
    if rest > total:
        malformed("bytes after the records")
    K = unlock(hdr, cred)
    hk = subkey(K, "coffer.v2.header")
    if b2b(data[:14 + H], key=hk) != data[46 + H:78 + H]:
        raise Fail("header failure", "header MAC")
    for et, val in hdr["exts"]:
        if et == 0x8012:
            n = val[0]
            lst = val[1:1 + 32 * n]
            nonce = val[1 + 32 * n:25 + 32 * n]
            ct = val[25 + 32 * n:]
            ad = (b"coffer.v2.key-history\x00" + hdr["vault_id"] + hdr["epoch_id"] +
                  bytes([n]) + lst)
            pt = xchacha_open(subkey(K, "coffer.v2.key-history"), nonce, ad, ct)
            if pt is None:
                raise Fail("header failure", "key history AEAD")
            for k in range(n):
                if epoch_id_of(pt[32 * k:32 * k + 32]) != lst[32 * k:32 * k + 16]:
                    raise Fail("header failure", "key history key of another epoch")
    mk = subkey(K, "coffer.v2.manifest")
    if b2b(data[:82 + H + M], key=mk) != data[82 + H + M:114 + H + M]:
        raise Fail("manifest failure")
    ovk = subkey(K, "coffer.v2.entry-overview")
    sck = subkey(K, "coffer.v2.entry-secret")
    lk = subkey(K, "coffer.v2.lookup")
    pos = 114 + H + M
    recs = []
    for r in rows:
        r["oct"] = data[pos:pos + r["A"]]
        r["sct"] = data[pos + r["A"]:pos + r["A"] + r["B"]]
        pos += r["A"] + r["B"]
    vid = hdr["vault_id"]

    def do_overview(r):
        ad = b"coffer.v2.entry\x00" + vid + r["id"] + b"\x01"
        pt = xchacha_open(ovk, r["nonce"], ad, r["oct"])
        if pt is None:
            raise Fail("entry failure", f"overview of {r['id'].hex()}")
        o = decode_overview(unpad(pt), r["tomb"])
        if not r["tomb"] and lookup_tag(lk, o) != r["tag"]:
            malformed(f"lookup tag of {r['id'].hex()}")
        r["ov"] = o

    def do_secret(r):
        if r["tomb"]:
            r["sec"] = None
            return
        ad = b"coffer.v2.entry\x00" + vid + r["id"] + b"\x02"
        pt = xchacha_open(sck, r["nonce"], ad, r["sct"])
        if pt is None:
            raise Fail("entry failure", f"secret of {r['id'].hex()}")
        r["sec"] = decode_secret(unpad(pt), r["ov"])

    if lazy_order == "overviews-first":
        for r in rows:
            do_overview(r)
        for r in rows:
            do_secret(r)
    else:
        for r in rows:
            do_overview(r)
            do_secret(r)
    return gen, rows, hdr


# ---------------------------------------------------------------- JSON (§15.1)
KIND_NAMES = {1: "generic-password", 2: "internet-password", 3: "secure-note"}


def secret_value(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


def entry_json(r):
    o = r["ov"]
    e = {"id": r["id"].hex(), "revision": r["rev"], "created": o["created"],
         "modified": o["modified"]}
    if r["tomb"]:
        e["deleted"] = True
        return e
    e["kind"] = KIND_NAMES[o["kind"]]
    for k in ("label", "service", "account", "server", "protocol", "path", "comment", "port",
              "expires"):
        if k in o:
            e[k] = o[k]
    e["urls"] = o.get("urls", [])
    e["tags"] = o.get("tags", [])
    e["favorite"] = bool(o.get("favorite"))
    e["fields"] = [{"name": n, "value": v} for n, v in o.get("fields", [])]
    if o.get("unknown"):
        e["unknown"] = [{"tag": t, "value": v.hex()} for t, v in o["unknown"]]
    s = r["sec"]
    sj = {}
    if "password" in s:
        sj["password"] = secret_value(s["password"])
    if "notes" in s:
        sj["notes"] = secret_value(s["notes"])
    sj["fields"] = [{"name": n, "value": secret_value(v)} for n, v in s.get("fields", [])]
    sj["history"] = [{"password": secret_value(p), "replaced": d} for p, d in s.get("history", [])]
    sj["attachments"] = [{"name": n, "data": d.hex()} for n, d in s.get("attachments", [])]
    if s.get("unknown"):
        sj["unknown"] = [{"tag": t, "value": v.hex()} for t, v in s["unknown"]]
    e["secrets"] = sj
    return e


# ---------------------------------------------------------------- vectors (§15.1)
def parse_vector(path):
    d = open(path, "rb").read()
    i = d.index(b"\n\n")
    hdr = {}
    for line in d[:i].decode("utf-8").split("\n"):
        name, _, val = line.partition(": ")
        hdr[name] = val
    return hdr, d[i + 2:]


def credential(h):
    if "identity" in h:
        hrp, s = bech32_decode(h["identity"])
        assert hrp == "age-secret-key-", hrp
        return {"kind": "age", "scalar": s}
    if "ssh-ed25519-seed" in h:
        pk, sk = ed_seed_keypair(bytes.fromhex(h["ssh-ed25519-seed"]))
        return {"kind": "ssh", "scalar": ed_sk_to_x(sk)}
    if "password" in h and "key-file" in h:
        return {"kind": "password+key-file", "password": h["password"].encode(),
                "key-file": bytes.fromhex(h["key-file"])}
    if "password" in h:
        return {"kind": "password", "password": h["password"].encode()}
    if "key-file" in h:
        return {"kind": "key-file", "key-file": bytes.fromhex(h["key-file"])}
    if "raw-key" in h:
        return {"kind": "raw-key", "raw-key": bytes.fromhex(h["raw-key"])}
    raise ValueError("no credential")


def run_vector(path, order="overviews-first"):
    h, vault = parse_vector(path)
    cred = credential(h)
    try:
        gen, rows, hdr = open_vault(vault, cred, order)
    except Fail as f:
        return h, f.cls, f.why, None, None
    return h, "success", "", [entry_json(r) for r in rows], gen


def canon(x):
    return json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        h, cls, why, ents, gen = run_vector(p)
        print(p, cls, why)
        if ents is not None:
            print(gen, canon(ents))
