#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Regenerate tests/fuzz/corpus/trigger/: the trigger texts of the docs and
tests (docs/*.md and README code, unit-test strings, integration tests'
--trigger options), one file per text, named by its SHA-1 as libFuzzer does.

    tests/fuzz/mkcorpus-trigger.py      # from the top of the tree
"""
import ast, glob, hashlib, os, re, shlex

texts = set()

# Unit tests: the first argument of compile(), ERR(), ERR_AT(), trig_*().
lit = r'"(?:[^"\\\n]|\\.)*"'
call = re.compile(r'\b(?:compile|ERR|ERR_AT|trig_from_text|trig_parse)\(\s*((?:' + lit + r'\s*)+)[,)]')
for f in glob.glob('tests/unit/test_trigger_lang.c'):
    for m in call.finditer(open(f, encoding='utf-8', errors='surrogateescape').read()):
        parts = re.findall(lit, m.group(1))
        try:
            texts.add(b''.join(ast.literal_eval('b' + p) for p in parts))
        except (ValueError, SyntaxError):
            pass

# Integration tests: --trigger 'TEXT' or "TEXT" without shell expansions.
for f in glob.glob('tests/integration/*.sh'):
    for m in re.finditer(r"--trigger\s+('[^'\n]*'|\"[^\"$`\n]*\")", open(f).read()):
        try:
            texts.add(shlex.split(m.group(1))[0].encode())
        except ValueError:
            pass

# Docs: every line of the trigger examples block, and inline code that
# looks like a trigger (SYS:NAME, or a latency/rate).
for f in ['docs/triggers.md', 'README.md'] + glob.glob('docs/*.md'):
    if not os.path.exists(f):
        continue
    md = open(f).read()
    m = re.search(r'```\n(.*?)```', md, re.S)
    if f == 'docs/triggers.md' and m:
        texts.update(l.encode() for l in m.group(1).splitlines() if l.strip())
    for code in re.findall(r'`([^`\n]+)`', md):
        if re.match(r'(latency |rate |event )?[a-z_*?\[\]]+[:/][a-z_*?\[\]]', code) and \
                not re.search(r'\.(c|h|md|sh|py|data|json|1)$', code):
            texts.add(code.encode())

out = 'tests/fuzz/corpus/trigger'
os.makedirs(out, exist_ok=True)
for t in texts:
    if t and len(t) <= 4096:
        with open(os.path.join(out, hashlib.sha1(t).hexdigest()), 'wb') as fh:
            fh.write(t)
print(f'{out}: {len(os.listdir(out))} files')
