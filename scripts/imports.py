"""The import graph of the engine's and the editor's source files, shared by
`import-circles.py` and `check-layers.py`.

A file is a module path per crate (`engine/src/scene/file.rs` is
`('engine', ('scene', 'file'))`). There is an edge a -> b when a names a path
`crate::`, `super::` or `keel_engine::` that resolves to b (the longest prefix
that is a file). Comments and `#[cfg(test)] mod tests` are left out, and so
are test files.
"""
import os
import re

CRATES = [('engine', 'engine/src'), ('editor', 'editor/src')]


def source_files(root):
    """{(crate, module path): file path} for every non-test source file."""
    files = {}
    for crate, base in CRATES:
        for folder, _, names in os.walk(os.path.join(root, base)):
            for name in names:
                if not name.endswith('.rs'):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.join(root, base))
                if '/tests' in '/' + rel or rel.endswith('tests.rs'):
                    continue
                module = rel[:-3].split('/')
                if module[-1] == 'mod':
                    module = module[:-1]
                if module in (['lib'], ['main']):
                    module = []
                files[(crate, tuple(module))] = path
    return files


def code_of(path):
    """The file's text without comment lines and without its test module."""
    text = open(path, encoding='utf-8').read()
    text = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('//'))
    return re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', text, flags=re.S)


def import_graph(root):
    """({(crate, module): file}, {(crate, module): set of modules it imports})."""
    files = source_files(root)

    def resolve(crate, path):
        for n in range(len(path), 0, -1):
            if (crate, tuple(path[:n])) in files:
                return (crate, tuple(path[:n]))
        return None

    edges = {key: set() for key in files}
    for (crate, module), path in files.items():
        text = code_of(path)
        # `super` from a/b.rs and from a/b/mod.rs both name a.
        parent = list(module[:-1])

        def add(target):
            if target and target != (crate, module):
                edges[(crate, module)].add(target)

        for m in re.finditer(r'\b(crate|super|keel_engine)((?:::\w+)+)', text):
            head, parts = m.group(1), m.group(2).split('::')[1:]
            if head == 'crate':
                add(resolve(crate, parts))
            elif head == 'keel_engine':
                add(resolve('engine', parts))
            else:
                add(resolve(crate, parent + parts))
        for m in re.finditer(r'use (crate|super)::\{([^}]*)\}', text):
            base = [] if m.group(1) == 'crate' else parent
            for name in re.findall(r'\b(\w+)', m.group(2)):
                add(resolve(crate, base + [name]))
    return files, edges


def name(key):
    """`crate:a/b` for a module key (`crate:lib` for the root)."""
    return key[0] + ':' + ('/'.join(key[1]) or 'lib')


def top(key):
    """The top-level module a file belongs to (the root for lib.rs)."""
    return (key[0], key[1][:1])


def top_level_edges(edges):
    """{top-level module: set of other top-level modules it imports}."""
    out = {}
    for a, targets in edges.items():
        for b in targets:
            if top(a) != top(b):
                out.setdefault(top(a), set()).add(top(b))
    return out
