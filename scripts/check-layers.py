#!/usr/bin/env python3
"""Checks the layer tables of ARCHITECTURE.md against the imports.

Each table is the indented block after a `<!-- layers CRATE -->` line: one
layer per line, top to bottom, its modules separated by commas (what a
parenthesis says is description). A top-level module may import only modules
on lower lines; modules on one line do not import each other. Fails on an
import that breaks that, and on a top-level module a table leaves out or
names twice (the graph is `imports.py`'s).

Usage: scripts/check-layers.py [REPO_ROOT]
"""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imports  # noqa: E402


def layer_tables(text):
    """{crate: {module: line number from the bottom}}, from ARCHITECTURE.md."""
    tables = {}
    lines = text.split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'<!-- layers (\w+) -->', line.strip())
        if not m:
            continue
        block = []
        for row in lines[i + 1:]:
            if not row.strip() and not block:
                continue
            if not row.startswith('    '):
                break
            block.append(row)
        layers = []
        for row in block:
            row = row.strip()
            if row.startswith('['):
                continue  # a note on what sits above, not a layer
            row = re.sub(r'\([^)]*\)', '', row)
            layers.append([n.strip() for n in row.split(',') if n.strip()])
        table = tables.setdefault(m.group(1), {})
        for height, layer in enumerate(reversed(layers)):
            for module in layer:
                if module in table:
                    sys.exit(f'ARCHITECTURE.md: {m.group(1)} layer table names `{module}` twice')
                table[module] = height
    return tables


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    tables = layer_tables(open(os.path.join(root, 'ARCHITECTURE.md'), encoding='utf-8').read())
    files, edges = imports.import_graph(root)
    problems = []
    for crate, _ in imports.CRATES:
        table = tables.get(crate)
        if table is None:
            problems.append(f'no `<!-- layers {crate} -->` table')
            continue
        modules = {key[1][0] for key in files if key[0] == crate and key[1]}
        for module in sorted(modules - table.keys()):
            problems.append(f'{crate}: `{module}` is in no layer')
        for module in sorted(table.keys() - modules):
            problems.append(f'{crate}: the table names `{module}`, which is no module')
    for a, targets in sorted(edges.items()):
        crate = a[0]
        table = tables.get(crate, {})
        for b in sorted(targets):
            if b[0] != crate or not a[1] or not b[1] or a[1][0] == b[1][0]:
                continue
            upper, lower = a[1][0], b[1][0]
            if upper in table and lower in table and table[upper] <= table[lower]:
                problems.append(f'{files[a]} imports {imports.name(b)}: `{upper}` is not above `{lower}`')
    for problem in problems:
        print(problem)
    print('layer breaches', len(problems))
    if problems:
        print('layers: move the import down, or the table, if the design changed', file=sys.stderr)
        sys.exit(1)


main()
