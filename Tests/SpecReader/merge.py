#!/usr/bin/env python3
"""Clean-room merge of Coffer vault files (format 2), from SPEC.md §17.4-17.8 only.

Builds on reader.py (the reader beside it, written the same way): every file is opened and
checked by it; this module turns its decoded rows into item states (§17.5), merges them,
merges headers (§17.4, §17.8) and renders the `merged:` JSON of §15.1.  Nothing is
re-encrypted or written.
"""
import copy
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reader  # noqa: E402
from reader import Fail, malformed, KEYED  # noqa: E402

MAX_REMOVED = 10922
MUT = set()  # mutation switches for coverage experiments (empty: the rules as written)
MAX_SLOTS = 32

# ---------------------------------------------------------------- keep raw secret fields
_orig_decode_secret = reader.decode_secret


def _decode_secret(plain, ov):
    s = _orig_decode_secret(plain, ov)
    s["fields_raw"] = reader.frame(plain, 0, len(plain), reader.SEC_NESTED)
    return s


reader.decode_secret = _decode_secret


# ---------------------------------------------------------------- vectors
def join(a, b):
    out = dict(a)
    for r, t in b.items():
        if t > out.get(r, 0):
            out[r] = t
    return out


def covers(V, st):
    t, r = st
    return V.get(r, 0) >= t


def dominates(A, B):
    return all(A.get(r, 0) >= t for r, t in B.items())


# ---------------------------------------------------------------- item state
class Val:
    __slots__ = ("contents", "C")

    def __init__(self, contents, C):
        self.contents = contents  # list of (tag, v, sub), or None when erased
        self.C = C

    def ckey(self):
        return None if self.contents is None else tuple((t, v) for t, v, _ in self.contents)

    def __eq__(self, o):
        return self.ckey() == o.ckey() and self.C == o.C

    def __repr__(self):
        return f"Val({self.ckey()!r}, {self.C})"


class Item:
    def __init__(self):
        self.id = None
        self.tomb = False
        self.V = {}
        self.D = {}
        self.created = self.modified = None
        self.vals = {}      # reg -> {stamp (t, r): Val}
        self.hist = {}      # (password bytes, date) -> C
        self.H = None
        self.rec = None     # (nonce, rev, tag, tomb, oct, sct) of a record as it is
        self.rev = 0
        self.order = None   # keyed registers in list order (a record taken as it is)

    def state(self):
        return (self.tomb, self.V, self.D, self.created, self.modified,
                {reg: {st: (v.ckey(), v.C) for st, v in vs.items()} for reg, vs in self.vals.items()},
                self.hist, self.H)

    def winner(self, reg):
        vs = self.vals.get(reg)
        if not vs:
            return None, None
        ne = [st for st, v in vs.items() if v.contents is not None]
        st = max(ne) if ne else max(vs)
        return st, vs[st]


def ov_register(tag, sub, occ):
    if 1 <= tag <= 12:
        return (tag, 0)
    if tag == 15:
        name = sub[0][1]
        k = occ.get((15, name), 0)
        occ[(15, name)] = k + 1
        return (15, reader.field_key(name, k))
    if tag == 0 or (16 <= tag <= 0x7FFF):
        return (0x7F, 0)
    return None  # dates, merge fields


def sec_register(tag, sub, occ):
    if tag == 1:
        return (0x81, 0)
    if tag == 2:
        return (0x82, 0)
    if tag in (3, 5):
        code = 0x83 if tag == 3 else 0x85
        name = sub[0][1]
        k = occ.get((code, name), 0)
        occ[(code, name)] = k + 1
        return (code, reader.field_key(name, k))
    if tag == 0 or (6 <= tag <= 0x7FFF):
        return (0xFF, 0)
    return None  # history (4), merge fields


def build_item(iid, tomb, V, D, created, modified, rev, rec, ov_fields, sec_fields, stamps,
               siblings, confs, erased, conflicts, history, hconf, H):
    it = Item()
    it.id, it.tomb, it.V, it.D = iid, tomb, dict(V), dict(D)
    it.created, it.modified, it.rev, it.rec, it.H = created, modified, rev, rec, H
    groups = {}
    order = []
    for fields, register in ((ov_fields, ov_register), (sec_fields, sec_register)):
        occ = {}  # occurrences of a name count within one part (17.2)
        for tag, v, sub in fields:
            reg = register(tag, sub, occ)
            if reg is not None:
                groups.setdefault(reg, []).append((tag, v, sub))
                if reg[0] in KEYED:
                    order.append(reg)
    it.order = order
    default_C = {r: t for r, t in it.V.items() if t > it.D.get(r, 0)}
    values = {reg: [st] for reg, st in stamps.items()}
    for reg, st in siblings:
        values.setdefault(reg, []).append(st)
    for reg, sts in values.items():
        vs = {}
        for k, st in enumerate(sts):
            if (reg, st) in erased or not default_C and (reg, st) not in confs:
                vs[st] = Val(None, {})
                continue
            contents = groups.get(reg, []) if k == 0 else conflicts[(reg, st)]
            vs[st] = Val(contents, dict(default_C if "noconf" in MUT else confs.get((reg, st), default_C)))
        it.vals[reg] = vs
    for idx, e in enumerate(history):
        C = dict(hconf.get(idx, default_C))
        if C:
            it.hist[e] = C
    return it


def item_from_row(r):
    o = r["ov"]
    ck = o["clock"]
    s = r["sec"]
    hconf, H, sec_fields, conflicts, history = {}, None, [], {}, []
    if s is not None:
        sec_fields = s["fields_raw"]
        history = list(s.get("history", []))
        for tag, v, sub in sec_fields:
            if tag == 0x8011:
                c = reader.MF(v, "history confirmations")
                while c.more():
                    idx = c.varint()
                    m = c.varint()
                    C = {}
                    for _ in range(m):
                        rr = reader.u64(c.fixed(8))
                        tt = reader.u64(c.fixed(8))
                        C[rr] = tt
                    hconf[idx] = C
            elif tag == 0x8012:
                H = reader.check_date(v, "history cleared")
        for reg, st, val in s["conflicts"]:
            conflicts[(reg, st)] = list(val)
    rec = (r["nonce"], r["rev"], r["tag"], r["tomb"], bytes(r["oct"]), bytes(r["sct"]))
    return build_item(r["id"], r["tomb"], dict(ck["V"]), ck["D"], o["created"], o["modified"],
                      r["rev"], rec, o["fields_raw"], sec_fields, ck["stamps"], ck["siblings"],
                      ck["confs"], ck["erased"], conflicts, history, hconf, H)


def item_from_v1_row(row):
    import v1
    V, D, stamps, siblings, conflicts = v1.item_clock(row)
    tomb = bool(D) and dominates(D, V)
    o, s = {}, {}
    for tag, v, sub in row["ovf"]:
        if not (0x8010 <= tag <= 0x8013):
            reader.decode_ov_value(tag, v, sub, o, "v1 overview")
    history = []
    for tag, v, sub in row["sef"]:
        if tag == 4:
            history.append(reader.check_history(sub, "v1 history"))
    rec = (row["nonce"], row["rev"], row["body"])
    return build_item(row["id"], tomb, V, D, o["created"], o["modified"], row["rev"], rec,
                      row["ovf"], row["sef"], stamps, siblings, {}, set(), conflicts, history,
                      {}, None)


# ---------------------------------------------------------------- §17.5 merging one item
def merge_items(a, b):
    # step 1
    if a.rec is not None and b.rec is not None and a.rec[0] == b.rec[0]:
        if a.rec == b.rec:
            return a
        malformed(f"item {a.id.hex()}: two different records under one nonce (§17.5 step 1)")
    m = Item()
    m.id = a.id
    m.V = join(a.V, b.V)
    m.D = join(a.D, b.D)
    D = m.D

    def red(C):
        return {r: t for r, t in C.items() if t > D.get(r, 0)}

    m.created = min(a.created, b.created)
    m.modified = max(a.modified, b.modified)
    for reg in set(a.vals) | set(b.vals):
        va, vb = a.vals.get(reg, {}), b.vals.get(reg, {})
        kept = {}
        for st in set(va) | set(vb):
            x, y = va.get(st), vb.get(st)
            if x is not None and y is not None:
                if x.contents is not None and y.contents is not None and x.ckey() != y.ckey():
                    malformed(f"item {a.id.hex()}: register {reg[0]:#x} stamp {st}: two contents")
                contents = x.contents if x.contents is not None else y.contents
                C = red(join(x.C, y.C))
            elif x is not None:
                if covers(b.V, st) and "nocover" not in MUT:
                    continue
                contents, C = x.contents, red(x.C)
            else:
                if covers(a.V, st) and "nocover" not in MUT:
                    continue
                contents, C = y.contents, red(y.C)
            if not C and "noerase" not in MUT:
                contents = None
            kept[st] = Val(contents, C if contents is not None else {})
        if kept:
            m.vals[reg] = kept
    # history
    Hs = [h for h in (a.H, b.H) if h is not None]
    m.H = max(Hs) if Hs else None
    for e in set(a.hist) | set(b.hist):
        C = red(join(a.hist.get(e, {}), b.hist.get(e, {})))
        if not C:
            continue
        if m.H is not None and e[1] <= m.H and "noH" not in MUT:
            continue
        m.hist[e] = C
    # step 4
    if dominates(D, m.V):
        m.tomb = True
        for reg, vs in m.vals.items():
            for st in vs:
                vs[st] = Val(None, {})
        m.hist = {}
        m.H = None
    # step 2: keep a record as it is when its contents are exactly the result
    same = [x for x in (a, b) if x.state() == m.state()]
    if same:
        same.sort(key=lambda x: (-x.rev, repr(x.rec[0]) if x.rec else ""))
        return same[0]
    m.rev = max(a.rev, b.rev) + 1
    m.rec = None
    m.order = None
    return m


# ---------------------------------------------------------------- vault state
class Vault:
    pass


def slot_ident(slot):
    typ, pub, _ = slot
    return reader.slot_identity(typ, pub)


def opening_slot(hdr, cred):
    for k, slot in enumerate(hdr["slots"]):
        h2 = dict(hdr)
        h2["slots"] = [slot]
        try:
            reader.unlock(h2, cred)
            return k
        except Fail:
            continue
    return None


def open_file(path):
    h, data = reader.parse_vector(path)
    cred = reader.credential(h)
    if data[8:10] == b"\x01\x00":
        return open_v1_file(path, h, data, cred)
    keyholder = {}
    orig_unlock = reader.unlock

    def unlock(hdr, c):
        K = orig_unlock(hdr, c)
        keyholder["K"] = K
        return K

    reader.unlock = unlock
    try:
        gen, rows, hdr = reader.open_vault(data, cred)
    finally:
        reader.unlock = orig_unlock
    K = keyholder["K"]
    v = Vault()
    v.name = os.path.basename(path)
    v.version = 2
    v.vault_id = hdr["vault_id"]
    v.epoch_id = hdr["epoch_id"]
    es_r, es_t = hdr["epoch_start"]
    v.epoch_start = (es_t, es_r)
    v.slots = list(hdr["slots"])
    v.removed = set()
    v.clock = {}
    v.khist = {}  # epoch id -> (end stamp (t, r), key)
    v.exts = []
    for et, val in hdr["exts"]:
        if et == 0x8010:
            for k in range(len(val) // 16):
                v.clock[reader.u64(val, 16 * k)] = reader.u64(val, 16 * k + 8)
        elif et == 0x8011:
            for k in range(len(val) // 24):
                v.removed.add((val[24 * k:24 * k + 16], reader.u64(val, 24 * k + 16)))
        elif et == 0x8012:
            n = val[0]
            lst = val[1:1 + 32 * n]
            nonce = val[1 + 32 * n:25 + 32 * n]
            ct = val[25 + 32 * n:]
            ad = (b"coffer.v2.key-history\x00" + hdr["vault_id"] + hdr["epoch_id"] + bytes([n]) + lst)
            pt = reader.xchacha_open(reader.subkey(K, "coffer.v2.key-history"), nonce, ad, ct)
            for k in range(n):
                eid = lst[32 * k:32 * k + 16]
                r, t = reader.u64(lst, 32 * k + 16), reader.u64(lst, 32 * k + 24)
                v.khist[eid] = ((t, r), pt[32 * k:32 * k + 32])
        else:
            v.exts.append((et, val))
    v.K = K
    k = opening_slot(hdr, cred)
    v.opened = slot_ident(v.slots[k]) if k is not None else None
    v.items = {}
    for r in rows:
        v.items[r["id"]] = item_from_row(r)
    v.header = h
    v.cred = cred
    return v


def open_v1_file(path, h, data, cred):
    import v1
    gen, rows, hd = v1.open_v1(data, cred)
    v = Vault()
    v.name = os.path.basename(path)
    v.version = 1
    v.vault_id = hd["vault_id"]
    v.K = hd["K"]
    v.epoch_id = reader.epoch_id_of(v.K)  # §11.1: the vault key becomes the epoch key
    v.epoch_start = None
    v.slots = list(hd["slots"])
    v.removed, v.clock, v.khist, v.exts = set(), {}, {}, []
    for et, val in hd["exts"]:
        if et == 0x8010:
            for k in range(len(val) // 16):
                v.clock[reader.u64(val, 16 * k)] = reader.u64(val, 16 * k + 8)
        elif et == 0x8011:
            for k in range(len(val) // 24):
                v.removed.add((val[24 * k:24 * k + 16], reader.u64(val, 24 * k + 16)))
        else:
            v.exts.append((et, val))
    v.opened = slot_ident(v.slots[hd["opened"]])
    v.items = {r["id"]: item_from_v1_row(r) for r in rows}
    v.header = h
    v.cred = cred
    return v


def convert_opening_slot(res, O):
    """§11.1 / §11 step 1: the legacy slot that opened the vault becomes a new-style slot."""
    for k, s in enumerate(res.slots):
        if slot_ident(s) != O.opened or s[0] not in (1, 3, 4):
            continue
        typ, pub, _ = s
        cred = O.cred
        if typ == 4:
            salt = pub[:16]
            seed = reader.b2b(b"coffer.v2.slot.raw-key\x00" + salt, key=cred["raw-key"])
            ntyp, prefix = 0x14, salt
        else:
            m, t, p = struct.unpack_from("<III", pub, 1)
            secret = cred["password"] if typ == 1 else reader.keyfile_material(cred["key-file"])
            seed = reader.argon2id(secret, pub[13:29], t, m, p)  # the legacy KEK
            ntyp, prefix = (0x11 if typ == 1 else 0x13), pub[:29]
        pk = reader.x25519_base(reader.b2b(b"coffer.v2.slot.x25519\x00", key=seed))
        npub = prefix + pk
        new = (ntyp, npub, b"(new stanza)")
        res.slots = res.slots[:k] + [new] + res.slots[k + 1:]
        ts = res.epoch_start[0] if res.epoch_start else 0
        res.removed = res.removed | {(slot_ident(s), ts)}
        res.opened = slot_ident(new)
        return


def merge_header_same(O, C, res):
    """§17.4 header merge (slots, removed, clock, extensions); res gets the fields."""
    removed = O.removed | C.removed
    if len(removed) > MAX_REMOVED:
        raise Fail("slot limit", f"{len(removed)} removed slots")
    gone = set() if "noremoved" in MUT else {ident for ident, _ in removed}
    slots = [s for s in O.slots if slot_ident(s) not in gone]
    have = {slot_ident(s) for s in O.slots}
    slots += [s for s in C.slots if slot_ident(s) not in gone and slot_ident(s) not in have]
    if not slots or len(slots) > MAX_SLOTS:
        raise Fail("slot limit", f"{len(slots)} slots")
    if O.opened is not None and O.opened not in {slot_ident(s) for s in slots}:
        # §17.8, last paragraph: a header merge that would drop the slot that opened O is
        # refused.  The class is not named (SPEC problem); "slot limit" is this reader's guess.
        raise Fail("slot limit", "the merge would drop the slot that opened this vault")
    res.removed = removed
    res.slots = slots
    res.clock = join(O.clock, C.clock)
    types = {et for et, _ in O.exts}
    res.exts = list(O.exts) + [(et, v) for et, v in C.exts if et not in types]


def unite_khist(a, b, drop):
    out = {}
    for h in (a, b):
        for eid, (st, key) in h.items():
            if eid == drop:
                continue
            if eid not in out or st > out[eid][0]:
                out[eid] = (st, key)
    newest = sorted(out.items(), key=lambda kv: (kv[1][0][0], kv[1][0][1]), reverse=True)[:64]
    return dict(newest)


def merge_vaults(O, C, log=None):
    """Merge copy C into vault O (§17.8); returns a new Vault."""
    if O.vault_id != C.vault_id:
        raise Fail("other vault")
    res = copy.copy(O)
    res.items = dict(O.items)
    res.version = 2
    convert_opening_slot(res, O)
    O = res
    held = []
    if C.epoch_id == O.epoch_id:
        case = 1
    elif O.epoch_id in C.khist:
        case = 2
    elif C.epoch_id in O.khist:
        case = 3
    else:
        case = 4
    if log is not None:
        log.append(f"case {case}")
    if case == 1:
        merge_header_same(O, C, res)
        if O.epoch_start is None:
            res.epoch_start = C.epoch_start
        elif C.epoch_start is not None:
            res.epoch_start = max(O.epoch_start, C.epoch_start)
        res.khist = unite_khist(O.khist, C.khist, O.epoch_id)
    elif case == 2:
        if O.opened not in {slot_ident(s) for s in C.slots}:
            raise Fail("other epoch", "successor without the slot that opened this vault")
        if C.epoch_id in O.khist:
            # each a successor of the other: the larger epoch start, then the larger id
            keep_c = (C.epoch_start, C.epoch_id) > (O.epoch_start, O.epoch_id)
        else:
            keep_c = True
        E, other = (C, O) if keep_c else (O, C)
        merge_header_same(O, C, res)
        # slots only the other file has get a new stanza; legacy / unknown are removed
        eslots = {slot_ident(s) for s in E.slots}
        newslots = []
        for s in res.slots:
            if slot_ident(s) not in eslots and not (0x11 <= s[0] <= 0x16):
                res.removed = res.removed | {(slot_ident(s), E.epoch_start[0])}
                continue
            newslots.append(s)
        if not newslots:
            raise Fail("slot limit", "no slot left")
        res.slots = newslots
        if len(res.removed) > MAX_REMOVED:
            raise Fail("slot limit", "removed slots")
        res.epoch_id, res.epoch_start, res.K = E.epoch_id, E.epoch_start, E.K
        kh = unite_khist(O.khist, C.khist, E.epoch_id)
        if other.epoch_id not in kh or kh[other.epoch_id][0] < E.epoch_start:
            kh[other.epoch_id] = (E.epoch_start, other.K)
        res.khist = unite_khist(kh, {}, E.epoch_id)
    else:
        if case == 4:
            if O.opened not in {slot_ident(s) for s in C.slots}:
                raise Fail("other epoch", "no slot of the identity that opened this vault")
            if not (set(C.khist) & set(O.khist)):
                raise Fail("other epoch", "shares no epoch of the vault's lineage")
            res.khist = dict(O.khist)
            res.khist[C.epoch_id] = (O.epoch_start, C.K)
            res.khist = unite_khist(res.khist, {}, O.epoch_id)
            threshold = O.epoch_start
        else:
            threshold = O.khist[C.epoch_id][0]
        # nothing of C's header; clock joined with the versions of the items taken
        res.clock = dict(O.clock)
    for iid in sorted(set(O.items) | set(C.items)):
        a, b = O.items.get(iid), C.items.get(iid)
        if b is None:
            continue
        if case in (3, 4):
            if a is not None and dominates(a.V, b.V):
                continue
            base = a.V if a is not None else {}
            if "nohold" not in MUT and any(t > base.get(r, 0) and (t, r) > threshold for r, t in b.V.items()):
                held.append(iid)
                continue
        if a is None:
            res.items[iid] = b
        else:
            res.items[iid] = merge_items(a, b)
        if case in (3, 4):
            res.clock = join(res.clock, b.V)
    res.held = held
    if log is not None and held:
        log.append("held " + " ".join(h.hex() for h in held))
    return res


# ---------------------------------------------------------------- rendering (§15.1)
# The register names of §15.1's `conflicts` (one name for all keyed registers of a code).
REG_NAMES = {1: "kind", 2: "label", 3: "service", 4: "account", 5: "server", 6: "protocol",
             7: "port", 8: "path", 9: "comment", 10: "urls", 11: "tags", 12: "favorite",
             15: "fields", 0x7F: "unknown-attributes", 0x81: "password", 0x82: "notes",
             0x83: "secret-fields", 0x85: "attachments", 0xFF: "unknown-secrets"}


def keyed_name(it, reg):
    _, v = it.winner(reg)
    for vv in ([v] if v else []) + list(it.vals[reg].values()):
        if vv is not None and vv.contents:
            return vv.contents[0][2][0][1]
    return b""


def ordered_regs(it, codes):
    regs = [reg for reg in it.vals if reg[0] in codes]
    unk = sorted([r for r in regs if r[0] not in KEYED])
    keyed = [r for r in regs if r[0] in KEYED]
    if it.order is not None:
        pos = {r: k for k, r in enumerate(it.order)}
        keyed.sort(key=lambda r: (pos.get(r, 1 << 30), keyed_name(it, r), r[1]))
    else:
        keyed.sort(key=lambda r: (keyed_name(it, r), r[1]))
    return unk, keyed


def text_of(code, contents):
    if not contents:
        return ""
    d = {}
    for tag, v, sub in contents:
        if code < 0x80:
            reader.decode_ov_value(tag, v, sub, d, "conflict")
        else:
            reader.decode_sec_value(tag, v, sub, d, "conflict")

    def utf8(b):
        """The text of a secret's bytes, or None when they are not UTF-8 (15.1)."""
        if not isinstance(b, bytes):
            return b
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError:
            return None

    if code >= 0x80:
        # 15.1: the password, else the notes (each only when UTF-8), else the first
        # secret field as name=value, its value "?" when not UTF-8.
        for k in ("password", "notes"):
            if k in d and utf8(d[k]) is not None:
                return utf8(d[k])
        if d.get("fields"):
            n, v = d["fields"][0]
            t = utf8(v)
            return f"{n}={'?' if t is None else t}"
        return ""
    for k in ("label", "service", "account", "server", "comment"):
        if k in d:
            return d[k]
    if d.get("fields"):
        n, v = d["fields"][0]
        return f"{n}={v}"
    if d.get("tags"):
        return ",".join(d["tags"])
    return ""


def item_view(it):
    """A live item as an application sees it: (entries-style JSON, conflicts)."""
    o, s = {}, {}
    unk, keyed = ordered_regs(it, set(reader.CODES))
    ov_fields, sec_fields = [], []
    # overview: registers by tag; 0x7F's fields after the last known; keyed 15 in place
    for reg in unk + keyed:
        st, v = it.winner(reg)
        if v is None or v.contents is None:
            continue
        (ov_fields if reg[0] < 0x80 else sec_fields).extend(v.contents)
    # order: tag order (stable, so keyed registers keep their order, 0x7F its own)
    def tagkey(f):
        return -1 if f[0] == 0 else f[0]
    for tag, v, sub in sorted(ov_fields, key=tagkey):
        reader.decode_ov_value(tag, v, sub, o, "merged overview")
    for tag, v, sub in sorted(sec_fields, key=tagkey):
        reader.decode_sec_value(tag, v, sub, s, "merged secret")
    if "kind" not in o:
        o["kind"] = 1
    o["created"], o["modified"] = it.created, it.modified
    conflicts = []
    hist = {}
    for (pw, d), _ in it.hist.items():
        hist[pw] = max(hist.get(pw, d), d)
    for reg, vs in it.vals.items():
        wst, _ = it.winner(reg)
        for st, v in vs.items():
            if st == wst or v.contents is None:
                continue
            conflicts.append({"id": it.id.hex(), "field": REG_NAMES[reg[0]],
                              "value": text_of(reg[0], v.contents)})
            if reg == (0x81, 0) and "nolosinghist" not in MUT:
                for tag, pv, _ in v.contents:
                    if tag == 1:
                        d = st[0] >> 16
                        hist[pv] = max(hist.get(pv, d), d)
    s["history"] = sorted(hist.items(), key=lambda e: (-e[1], e[0]))
    row = {"id": it.id, "rev": 0, "tomb": False, "ov": o, "sec": s}
    return reader.entry_json(row), conflicts


def render(v):
    items, deleted, conflicts = [], [], []
    for iid in sorted(v.items):
        it = v.items[iid]
        if it.tomb:
            deleted.append(iid.hex())
            continue
        e, c = item_view(it)
        items.append(e)
        conflicts += c
    conflicts.sort(key=lambda c: (c["id"], c["field"], c["value"]))
    return {"conflicts": conflicts, "deleted": deleted, "items": items,
            "slots": [s[0] for s in v.slots]}


if __name__ == "__main__":
    vs = [open_file(p) for p in sys.argv[1:]]
    acc = vs[0]
    for c in vs[1:]:
        acc = merge_vaults(acc, c)
    print(reader.canon(render(acc)))
