#!/usr/bin/env python3
"""Makes the hostile files of scripts/hostile-inputs (plain Python 3: zipfile, struct, zlib).

    craft.py KIND OUT [ARGS...]
"""
import io, os, struct, sys, zipfile, zlib


def npy(descr, shape, data=b"", version=1, header=None):
    if header is None:
        shp = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
        header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shp)
    h = header.encode("latin1")
    pre = 10 if version == 1 else 12
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(h)) + h + data


def valid_arrays(num_labels=2, edge_type=None, labels=None):
    f4 = lambda vals: struct.pack("<%df" % len(vals), *vals)
    i4 = lambda vals: struct.pack("<%di" % len(vals), *vals)
    a = {
        "unary": npy("<f4", (4, 2), f4([1, .1, 1, .2, 1, .3, 1, .4])),
        "edges": npy("<i4", (4, 2), i4([0, 1, 2, 3, 0, 2, 1, 3])),
        "pairwise": npy("<f4", (4, 1), f4([.5, .6, .7, .8])),
        "labels": npy("<i4", (4,), i4(labels or [0, 1, 1, 0])),
        "num_labels": npy("<i4", (), i4([num_labels])),
        "shape": npy("<i4", (2,), i4([2, 2])),
    }
    if edge_type is not None:
        a["edge_type"] = npy("<i4", (4,), i4(edge_type))
    return a


def write_zip(path, arrays, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", method) as z:
        for k, v in arrays.items():
            z.writestr(k + ".npy", v)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "npz-header-bomb":          # declares 10^9 x 10^9 float64 in a few bytes
        a = valid_arrays(); a["unary"] = npy("<f8", (10**9, 10**9)); write_zip(out, a)
    elif kind == "npz-shape-bomb":         # declares 30000 x 30000 float64 (7.2 GB), holds none
        a = valid_arrays(); a["unary"] = npy("<f8", (30000, 30000)); write_zip(out, a)
    elif kind == "npz-zip-bomb":           # 1.6 GiB of zeros declared honestly, deflated to a few MB
        n = 400 * 1024 * 1024
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            with z.open("unary.npy", "w", force_zip64=True) as f:
                f.write(npy("<f4", (n // 2, 2)))
                chunk = bytes(1 << 24)
                for _ in range(4 * n // len(chunk)):
                    f.write(chunk)
            for k, v in valid_arrays().items():
                if k != "unary":
                    z.writestr(k + ".npy", v)
    elif kind == "npz-lying-size":         # an entry that inflates far past the size it declares
        a = valid_arrays(); a["unary"] = npy("<f4", (1 << 20, 2), bytes(8 << 20))
        buf = io.BytesIO(); write_zip(buf, a, zipfile.ZIP_DEFLATED); b = bytearray(buf.getvalue())
        i = b.find(b"PK\x01\x02")                           # the first central-directory entry (unary)
        while i >= 0:
            name_len = struct.unpack_from("<H", b, i + 28)[0]
            if b[i + 46:i + 46 + name_len] == b"unary.npy":
                struct.pack_into("<I", b, i + 24, 4096)       # uncompressed size: 4 KiB
            i = b.find(b"PK\x01\x02", i + 4)
        open(out, "wb").write(b)
    elif kind == "npz-crc":                # one bit of a stored array flipped (numpy refuses it)
        buf = io.BytesIO(); write_zip(buf, valid_arrays()); b = bytearray(buf.getvalue())
        i = b.find(struct.pack("<f", 0.3)); b[i] ^= 1; open(out, "wb").write(b)
    elif kind == "npz-deep":               # a header nested 100,000 deep
        a = valid_arrays()
        a["unary"] = npy("<f4", None, version=2, header="{'descr': '<f4', 'fortran_order': False, 'shape': " + "(" * 100000 + "}")
        write_zip(out, a)
    elif kind == "npz-truncated":
        buf = io.BytesIO(); write_zip(buf, valid_arrays()); open(out, "wb").write(buf.getvalue()[:300])
    elif kind == "npz-many-entries":
        a = valid_arrays()
        for k in range(200):
            a["extra%d" % k] = npy("<i4", (1,), struct.pack("<i", k))
        write_zip(out, a)
    elif kind == "npz-num-labels":         # L = 46341: L*L overflows an int
        write_zip(out, valid_arrays(num_labels=46341))
    elif kind == "npz-edge-type":          # 10^6 edge types = 10^6 oracles
        write_zip(out, valid_arrays(edge_type=[0, 0, 1, 999999]))
    elif kind == "npz-label":              # no num_labels, a label of 2e9
        a = valid_arrays(labels=[0, 1, 2000000000, 0]); del a["num_labels"]; write_zip(out, a)
    elif kind == "png-header-bomb":        # 100000 x 100000 pixels declared in 33 bytes
        ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
        chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
        open(out, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk)
    elif kind == "jpeg-header-bomb":       # SOF0 declaring 60000 x 60000
        sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 60000, 60000, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
        sos = b"\xff\xda" + struct.pack(">HB", 12, 3) + b"\x01\x00\x02\x11\x03\x11\x00\x3f\x00"
        open(out, "wb").write(b"\xff\xd8" + sof + sos + b"\xff\xd9")
    elif kind == "webp-as-jpg":            # a WebP header named .jpg (the CVE-2023-4863 format)
        open(out, "wb").write(b"RIFF\x24\x00\x00\x00WEBPVP8L\x18\x00\x00\x00\x2f\x00\x00\x00" + bytes(24))
    elif kind == "tiff-as-jpg":
        open(out, "wb").write(b"II*\x00\x08\x00\x00\x00" + bytes(64))
    elif kind == "png-small":              # a valid 8x6 RGB PNG (a gradient)
        w, h = 8, 6
        raw = b"".join(b"\x00" + bytes(v for x in range(w) for v in (x * 30, y * 40, 128)) for y in range(h))
        def chunk(t, d):
            return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
        open(out, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    elif kind == "text":
        open(out, "w").write(sys.argv[3] if len(sys.argv) > 3 else "not an image\n")
    elif kind == "uai-header-bomb":        # 22 bytes asking for ~10^9 variables of 10^9 labels
        open(out, "w").write("MARKOV\n1000000000\n1000000000\n")
    elif kind == "uai-long-token":
        open(out, "w").write("MARKOV\n2\n2 " + "2" * 5000 + "\n0\n")
    elif kind == "json-deep":              # model.json nested 100,000 deep
        open(out, "w").write("[" * 100000 + "]" * 100000)
    else:
        sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    main()
