#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""btf-from-image.py IMAGE OUT: copy the kernel's BTF out of a boot image.

A distribution kernel (Debian's arm64 vmlinuz is a plain Image) carries its
.BTF section in the image as it is loaded; this finds the BTF header (magic
0xeB9F, version 1, 24-byte header) whose type and string sections fit and
whose string section starts with the empty string, and writes the blob, which
`bpftool btf dump file OUT format c` turns into vmlinux.h. Used by
`make vmlinux ARCH=...` for architectures this machine does not run."""
import gzip, struct, sys

data = open(sys.argv[1], "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
best = None
pos = data.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00")
while pos >= 0:
    type_off, type_len, str_off, str_len = struct.unpack_from("<4I", data, pos + 8)
    size = 24 + max(type_off + type_len, str_off + str_len)
    if (type_off == 0 and str_off >= type_len and type_len > 1 << 20 and
            pos + size <= len(data) and data[pos + 24 + str_off] == 0):
        if best is None or size > best[1]:
            best = (pos, size)
    pos = data.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00", pos + 1)
if best is None:
    sys.exit("btf-from-image: no BTF in %s (CONFIG_DEBUG_INFO_BTF=y?)" % sys.argv[1])
open(sys.argv[2], "wb").write(data[best[0]:best[0] + best[1]])
print("btf-from-image: %d bytes of BTF at offset %#x" % (best[1], best[0]))
