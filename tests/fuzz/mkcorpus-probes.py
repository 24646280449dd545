#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Regenerate the seeds of the probe, hook and metrics fuzz targets, one file
per input named by its SHA-1 as libFuzzer does:

  corpus/usdt/          small ELF images holding the .note.stapsdt of the
                        USDT helper the tests build (.output/tests/probework),
                        with its PT_LOAD headers, and variants (32-bit, no
                        semaphore, two notes)
  corpus/usdt_args/     USDT argument texts: the helper's, the unit tests'
  corpus/probe_spec/    probe names of the unit and integration tests, docs
  corpus/hook_argv/     on_snapshot commands of the docs, examples and tests
  corpus/metrics_addr/  --metrics addresses and Host headers of the tests

    make && tests/fuzz/mkcorpus-probes.py      # from the top of the tree
"""
import ast, glob, hashlib, os, re, shlex, struct, sys

lit = r'"(?:[^"\\\n]|\\.)*"'


def c_strings(path, funcs):
    """The first string-literal argument of calls to funcs in a C file."""
    out = set()
    call = re.compile(r'\b(?:' + '|'.join(funcs) + r')\(\s*((?:' + lit + r'\s*)+)[,)]')
    for m in call.finditer(open(path, encoding='utf-8', errors='surrogateescape').read()):
        try:
            out.add(b''.join(ast.literal_eval('b' + p) for p in re.findall(lit, m.group(1))))
        except (ValueError, SyntaxError):
            pass
    return out


def write(name, items):
    d = os.path.join('tests/fuzz/corpus', name)
    os.makedirs(d, exist_ok=True)
    for f in glob.glob(d + '/*'):
        os.unlink(f)
    for b in items:
        if 0 < len(b) <= 4096:
            open(os.path.join(d, hashlib.sha1(b).hexdigest()), 'wb').write(b)
    print('%s: %d seeds' % (d, len(os.listdir(d))))


# ---- usdt: the helper's notes in minimal images ----
def elf_notes(path):
    """(class64, phdrs of PT_LOAD, .note.stapsdt bytes, .stapsdt.base address)."""
    b = open(path, 'rb').read()
    assert b[:4] == b'\x7fELF' and b[4] == 2 and b[5] == 1, path
    (phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, shstrndx) = struct.unpack_from('<QQIHHHHHH', b, 32)
    phdrs = [struct.unpack_from('<IIQQQQQQ', b, phoff + i * phentsize) for i in range(phnum)]
    shdrs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
    stro = shdrs[shstrndx][4]
    name = lambda s: b[stro + s[0]:b.index(b'\0', stro + s[0])].decode()
    note = base = None
    for s in shdrs:
        if name(s) == '.note.stapsdt':
            note = b[s[4]:s[4] + s[5]]
        if name(s) == '.stapsdt.base':
            base = s[3]
    return [p for p in phdrs if p[0] == 1], note, base


def image64(loads, note, base):
    shstr = b'\0.shstrtab\0.note.stapsdt\0.stapsdt.base\0'
    nsh = 4 if base is not None else 3
    phoff = 64
    shoff = phoff + 56 * len(loads)
    stroff = shoff + 64 * nsh
    noteoff = (stroff + len(shstr) + 3) & ~3
    end = noteoff + len(note)
    eh = b'\x7fELF' + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack('<HHIQQQIHHHHHH', 3, 62, 1, 0, phoff, shoff, 0, 64, 56, len(loads), 64, nsh, 1)
    ph = b''.join(struct.pack('<IIQQQQQQ', *p) for p in loads)
    sh = bytes(64)
    sh += struct.pack('<IIQQQQIIQQ', 1, 3, 0, 0, stroff, len(shstr), 0, 0, 1, 0)
    sh += struct.pack('<IIQQQQIIQQ', 11, 7, 0, 0, noteoff, len(note), 0, 0, 4, 0)
    if base is not None:
        sh += struct.pack('<IIQQQQIIQQ', 25, 1, 2, base, end, 0, 0, 0, 1, 0)
    img = eh + ph + sh + shstr
    return img + bytes(noteoff - len(img)) + note


def image32(note32):
    shstr = b'\0.shstrtab\0.note.stapsdt\0'
    shoff = 52 + 32
    stroff = shoff + 40 * 3
    noteoff = (stroff + len(shstr) + 3) & ~3
    eh = b'\x7fELF' + bytes([1, 1, 1]) + bytes(9)
    eh += struct.pack('<HHIIIIIHHHHHH', 2, 3, 1, 0, 52, shoff, 0, 52, 32, 1, 40, 3, 1)
    ph = struct.pack('<IIIIIIII', 1, 0, 0x8048000, 0x8048000, 0x2000, 0x2000, 5, 0x1000)
    sh = bytes(40)
    sh += struct.pack('<IIIIIIIIII', 1, 3, 0, 0, stroff, len(shstr), 0, 0, 1, 0)
    sh += struct.pack('<IIIIIIIIII', 11, 7, 0, 0, noteoff, len(note32), 0, 0, 4, 0)
    img = eh + ph + sh + shstr
    return img + bytes(noteoff - len(img)) + note32


def note(desc, namesz=8):
    desc += bytes((-len(desc)) % 4)
    return struct.pack('<III', namesz, len(desc), 3) + b'stapsdt\0' + desc


usdt, args = set(), set()
helper = '.output/tests/probework'
if not os.path.exists(helper):
    sys.exit('%s: build it first (make, then make check-unit builds the helpers)' % helper)
loads, n, base = elf_notes(helper)
usdt.add(image64(loads, n, base))
usdt.add(image64(loads, n, None))
usdt.add(image64(loads, n + n, base))
# The helper's note, taken apart: each site's argument text, and variants.
off = 0
while off + 12 <= len(n):
    namesz, descsz, typ = struct.unpack_from('<III', n, off)
    d = n[off + 12 + ((namesz + 3) & ~3):][:descsz]
    pc, b_, sema = struct.unpack_from('<QQQ', d)
    prov, name, a = d[24:].split(b'\0')[:3]
    args.add(a)
    usdt.add(image64(loads, note(struct.pack('<QQQ', pc, b_, 0) + prov + b'\0' + name + b'\0' + a + b'\0'), base))
    usdt.add(image32(note(struct.pack('<III', pc & 0xffffffff, b_ & 0xffffffff, 0) + prov + b'\0' + name + b'\0' + a + b'\0')))
    off += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
args |= {a for a in c_strings('tests/unit/test_probes.c', ['usdt_arg_parse', 'usdt_args_parse'])}
write('usdt', usdt)
write('usdt_args', args)

# ---- probe_spec ----
specs = c_strings('tests/unit/test_probes.c', ['probe_spec_parse'])
for f in glob.glob('tests/integration/*.sh') + glob.glob('docs/*.md') + ['README.md'] + glob.glob('examples/*.trig'):
    for m in re.finditer(r"((?:k|u|kret|uret)probe:[^\s'\"`|]+|usdt:[^\s'\"`|]+)", open(f).read()):
        s = m.group(1).rstrip('.,;')
        while s.count(')') > s.count('('):
            s = s[:-1].rstrip('.,;')
        if '$' not in s:
            specs.add(s.encode())
write('probe_spec', specs)

# ---- hook_argv ----
cmds = set()
for f in glob.glob('docs/*.md') + glob.glob('examples/*.trig') + glob.glob('tests/integration/*.sh'):
    for m in re.finditer(r'^on_snapshot (.+)$', open(f).read(), re.M):
        cmds.add(m.group(1).split('  #')[0].strip().encode())
    for m in re.finditer(r"--on-snapshot\s+(\"[^\"$`\n]*\"|'[^'\n]*')", open(f).read()):
        try:
            cmds.add(shlex.split(m.group(1))[0].encode())
        except ValueError:
            pass
cmds |= c_strings('tests/unit/test_hooks.c', ['SPLIT_OK', 'SPLIT_ERR', 'hook_argv_split'])
cmds |= {c + b'\n/var/lib/trigrec/web/20261201-124651.044770-{name}.data' for c in list(cmds)[:8]}
write('hook_argv', cmds)

# ---- metrics_addr ----
addrs = c_strings('tests/unit/test_metrics.c', ['netaddr_parse', 'metrics_host_ok'])
for f in glob.glob('tests/integration/*.sh') + glob.glob('docs/*.md') + glob.glob('examples/*.trig'):
    t = open(f).read()
    for m in re.finditer(r'(?:--metrics|^metrics) +"?([0-9.:\[\]a-z]+)', t, re.M):
        addrs.add(m.group(1).encode())
    for m in re.finditer(r'Host: ([^"$\n]+)', t):
        addrs.add(m.group(1).encode())
write('metrics_addr', addrs)
