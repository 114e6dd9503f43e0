#!/usr/bin/env python3
"""Fails on an import circle in the engine or the editor: two files that import
each other, a group of files that import each other round a loop, or two
top-level modules that do (the graph is `imports.py`'s).

Usage: scripts/import-circles.py [REPO_ROOT]
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imports  # noqa: E402


def strongly_connected(edges):
    """Tarjan's components of more than one file."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return groups


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    _, edges = imports.import_graph(root)
    pairs = [(a, b) for a in edges for b in edges[a] if a in edges.get(b, ()) and a < b]
    print('mutual pairs', len(pairs))
    for a, b in pairs:
        print('  ', imports.name(a), '<->', imports.name(b))
    groups = strongly_connected(edges)
    print('circle groups', len(groups))
    for group in groups:
        print('  ', ' '.join(sorted(map(imports.name, group))))
    top = imports.top_level_edges(edges)
    modules = sorted({tuple(sorted([a, b])) for a in top for b in top[a] if a in top.get(b, ())})
    print('module circles', len(modules))
    for a, b in modules:
        print('  ', imports.name(a), '<->', imports.name(b))
    if pairs or groups or modules:
        print('import circles: cut them (two files that import each other are one concept '
              'or a wrong cut)', file=sys.stderr)
        sys.exit(1)


main()
