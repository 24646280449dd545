#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Regenerate tests/fuzz/corpus/script/: the trigger scripts of the docs,
examples and tests (code blocks of docs/script-language.md and README.md that
hold a `record` line, examples/*.trig, the scripts of the unit tests and of
tests/integration/script.sh), one file per script, named by its SHA-1 as
libFuzzer does.

    tests/fuzz/mkcorpus-script.py      # from the top of the tree
"""
import ast, glob, hashlib, os, re

texts = set()

# Docs: fenced blocks that are scripts.
for f in ['docs/script-language.md', 'README.md', 'docs/triggers.md']:
    if os.path.exists(f):
        for block in re.findall(r'```\n(.*?)```', open(f).read(), re.S):
            if re.search(r'^(record|trigger) ', block, re.M):
                texts.add(block.encode())

for f in glob.glob('examples/*.trig'):
    texts.add(open(f, 'rb').read())

# Unit tests: the first argument of parse(), PARSE_OK(), ERRS(), HOST() (adjacent literals joined).
lit = r'"(?:[^"\\\n]|\\.)*"'
call = re.compile(r'\b(?:parse|PARSE_OK|ERRS|HOST|parse_ok)\(\s*((?:' + lit + r'\s*)+)[,)]')
for f in glob.glob('tests/unit/test_script.c'):
    src = open(f, encoding='utf-8', errors='surrogateescape').read()
    for m in call.finditer(src):
        parts = re.findall(lit, m.group(1))
        try:
            texts.add(b''.join(ast.literal_eval('b' + p) for p in parts))
        except (ValueError, SyntaxError):
            pass

# Integration tests: heredocs into *.trig files (shell variables left as written).
for f in glob.glob('tests/integration/*.sh'):
    for m in re.finditer(r"cat >[^\n]*\.trig\"? <<'?EOF'?\n(.*?)\nEOF\n", open(f).read(), re.S):
        texts.add((m.group(1) + '\n').encode())

out = 'tests/fuzz/corpus/script'
os.makedirs(out, exist_ok=True)
for t in texts:
    if t and len(t) <= 8192:
        with open(os.path.join(out, hashlib.sha1(t).hexdigest()), 'wb') as fh:
            fh.write(t)
print(f'{out}: {len(os.listdir(out))} files')
