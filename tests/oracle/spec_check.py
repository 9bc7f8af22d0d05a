#!/usr/bin/python3
"""Independent check of the value rules of README.md ("Tensor block").

Re-implements, in plain Python with struct (no numpy, no to_array), the
element decoding, sums, crc32 and first-values rules, and compares them
with export_summary.py for every tensor of the given files:

    tests/oracle/spec_check.py FILE.onnx|FILE.pb ...
"""
import sys, os, struct, zlib, math, glob
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_summary as ES
import onnx
from onnx import TensorProto as T

SZ = {1:4,2:1,3:1,4:2,5:2,6:4,7:8,9:1,10:2,11:8,12:4,13:8,14:8,15:16,16:2}
RAWFMT = {1:'f',2:'B',3:'b',4:'H',5:'h',6:'i',7:'q',9:'B',10:'H',11:'d',12:'I',13:'Q',14:'f',15:'d',16:'H'}

def f16(b):
    return struct.unpack('<e', struct.pack('<H', b))[0]
def bf16(b):
    return struct.unpack('<f', struct.pack('<I', b << 16))[0]
def F(x, wide):
    if math.isnan(x): return 'nan'
    return ('%.17g' if wide else '%.9g') % x

def spec_lines(t, base):
    dt = t.data_type
    count = 1
    for d in t.dims: count *= d
    L = []
    if dt == 8:
        data = list(t.string_data)
        if len(data) != count: return ['error:']
        buf = b''.join(len(s).to_bytes(8,'little') + s for s in data)
        return ['bytes: %d' % sum(map(len, data)), 'crc32: %08x' % zlib.crc32(buf),
                'first: ' + ES.lst([ES.esc(s) for s in data[:8]])]
    if dt not in SZ: return ['error:']
    n_items = count * (2 if dt in (14, 15) else 1)
    # raw bytes
    raw = None
    if t.data_location == 1:
        info = {e.key: e.value for e in t.external_data}
        try:
            with open(os.path.join(base, info['location']), 'rb') as f:
                f.seek(int(info.get('offset') or 0)); ln = int(info.get('length') or 0)
                raw = f.read(ln) if ln else f.read()
        except Exception: return ['error:']
    elif t.HasField('raw_data'):
        raw = t.raw_data
    if raw is not None:
        if len(raw) != count * SZ[dt]: return ['error:']
        vals = list(struct.unpack('<%d%s' % (n_items, RAWFMT[dt]), raw))
    else:
        if dt == 1: vals = list(t.float_data)
        elif dt in (2,3,4,5,6,9,10,16):
            vals = list(t.int32_data)
            if dt == 2: vals = [v & 0xFF for v in vals]
            if dt == 3: vals = [((v & 0xFF) ^ 0x80) - 0x80 for v in vals]
            if dt == 4: vals = [v & 0xFFFF for v in vals]
            if dt == 5: vals = [((v & 0xFFFF) ^ 0x8000) - 0x8000 for v in vals]
            if dt in (10, 16): vals = [v & 0xFFFF for v in vals]
        elif dt == 7: vals = list(t.int64_data)
        elif dt == 11: vals = list(t.double_data)
        elif dt == 12: vals = [v & 0xFFFFFFFF for v in t.uint64_data]
        elif dt == 13: vals = list(t.uint64_data)
        elif dt == 14: vals = list(t.float_data)
        elif dt == 15: vals = list(t.double_data)
        if len(vals) != n_items: return ['error:']
    if dt == 9: vals = [1 if v else 0 for v in vals]
    # canonical bytes
    canon = bytearray()
    for v in vals:
        if dt in (1, 14):
            if math.isnan(v): canon += struct.pack('<I', 0x7fc00000)
            else: canon += struct.pack('<f', v)
        elif dt in (11, 15):
            if math.isnan(v): canon += struct.pack('<Q', 0x7ff8000000000000)
            else: canon += struct.pack('<d', v)
        elif dt == 10:
            canon += struct.pack('<H', 0x7e00 if math.isnan(f16(v)) else v)
        elif dt == 16:
            canon += struct.pack('<H', 0x7fc0 if math.isnan(bf16(v)) else v)
        else:
            canon += struct.pack('<' + RAWFMT[dt], v)
    crc = 'crc32: %08x' % zlib.crc32(bytes(canon))
    if dt in (1, 10, 11, 16, 14, 15):
        xs = [f16(v) if dt == 10 else bf16(v) if dt == 16 else float(v) for v in vals]
        wide = dt in (11, 15)
        def ssum(ys):
            s = 0.0
            for y in ys:
                if math.isfinite(y): s = s + y
            return s
        L += ['nan: %d' % sum(math.isnan(x) for x in xs),
              'pos_inf: %d' % sum(x == math.inf for x in xs),
              'neg_inf: %d' % sum(x == -math.inf for x in xs)]
        if dt in (14, 15):
            L += ['sum_re: ' + F(ssum(xs[0::2]), True), 'sum_im: ' + F(ssum(xs[1::2]), True), crc,
                  'first: ' + ES.lst(['(%s, %s)' % (F(a, wide), F(b, wide)) for a, b in zip(xs[0:16:2], xs[1:16:2])])]
        else:
            L += ['sum: ' + F(ssum(xs), True), crc, 'first: ' + ES.lst([F(x, wide) for x in xs[:8]])]
    else:
        L += ['sum: %d' % (sum(vals) % (1 << 64)), crc, 'first: ' + ES.lst([str(v) for v in vals[:8]])]
    return L

def oracle_lines(t, base):
    out = ES.Out(); ES.emit_tensor(out, 0, t, base)
    lines = out.lines
    i = [k for k, l in enumerate(lines) if l.startswith('  count: ')][0]
    rest = [l.strip() for l in lines[i+1:]]
    return ['error:' if r.startswith('error:') else r for r in rest]

def tensors_of_graph(g):
    for t in g.initializer: yield t
    for sp in g.sparse_initializer: yield sp.values; yield sp.indices
    for n in g.node:
        for a in n.attribute:
            if a.type == 4: yield a.t
            for t in a.tensors: yield t
            if a.type == 5: yield from tensors_of_graph(a.g)
            for sg in a.graphs: yield from tensors_of_graph(sg)
            if a.type == 11: yield a.sparse_tensor.values; yield a.sparse_tensor.indices

n = bad = 0
files = sys.argv[1:]
for p in files:
    base = os.path.dirname(os.path.abspath(p))
    if p.endswith('.onnx'):
        m = onnx.load(p, load_external_data=False); ts = list(tensors_of_graph(m.graph))
    elif ES.pb_kind(p) == 'tensor':
        t = T(); t.ParseFromString(open(p, 'rb').read()); ts = [t]
    else: continue
    for t in ts:
        n += 1
        a, b = spec_lines(t, base), oracle_lines(t, base)
        if a != b:
            bad += 1
            if bad < 10: print('MISMATCH', p, t.name, a, b)
print("checked %d tensors, %d mismatches" % (n, bad))
sys.exit(1 if bad else 0)
