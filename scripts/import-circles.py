#!/usr/bin/env python3
"""Counts import circles between the engine's and editor's source files (an edge a -> b
when a names a path crate::/super::/keel_engine:: resolving to b; comments and
test modules left out). Usage: scripts/import-circles.py [REPO_ROOT]."""
import os,re,sys,itertools
root=sys.argv[1] if len(sys.argv)>1 else '.'
files={}
for crate,base in [('engine','engine/src'),('editor','editor/src')]:
    for d,_,fs in os.walk(os.path.join(root,base)):
        for f in fs:
            if f.endswith('.rs'):
                p=os.path.join(d,f); rel=os.path.relpath(p,os.path.join(root,base))
                if '/tests' in '/'+rel or rel.endswith('tests.rs'): continue
                mod=rel[:-3].split('/')
                if mod[-1]=='mod': mod=mod[:-1]
                if mod==['lib'] or mod==['main']: mod=[]
                files[(crate,tuple(mod))]=p
def resolve(crate,path):
    # longest prefix of path that is a file module
    for n in range(len(path),0,-1):
        if (crate,tuple(path[:n])) in files: return (crate,tuple(path[:n]))
    return None
edges={k:set() for k in files}
for (crate,mod),p in files.items():
    src=open(p).read()
    src='\n'.join(l for l in src.split('\n') if not l.lstrip().startswith('//'))
    src=re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*','',src,flags=re.S)
    isdir=p.endswith('mod.rs') or p.endswith('lib.rs')
    for m in re.finditer(r'\b(crate|super|keel_engine)((?:::\w+)+)',src):
        head=m.group(1); parts=m.group(2).split('::')[1:]
        if head=='crate': c,base=crate,[]
        elif head=='keel_engine': c,base='engine',[]
        else:
            c=crate; base=list(mod) if isdir else list(mod[:-1])
            base=base[:-1] if False else base
            # super from file a/b.rs -> a ; from a/b/mod.rs -> a
            base=list(mod[:-1]) if not isdir else list(mod[:-1])
        t=resolve(c,base+parts)
        if t and t!=(crate,mod): edges[(crate,mod)].add(t)
    # use super::{a, b}
    for m in re.finditer(r'use (crate|super)::\{([^}]*)\}',src):
        c=crate; base=[] if m.group(1)=='crate' else list(mod[:-1])
        for name in re.findall(r'\b(\w+)',m.group(2)):
            t=resolve(c,base+[name])
            if t and t!=(crate,mod): edges[(crate,mod)].add(t)
# strongly connected components -> count 2-cycles and SCCs
pairs=[(a,b) for a in edges for b in edges[a] if a in edges.get(b,()) and a<b]
import sys; sys.setrecursionlimit(10000)
idx={};low={};st=[];on=set();sccs=[];i=[0]
def sc(v):
    idx[v]=low[v]=i[0];i[0]+=1;st.append(v);on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v:break
        if len(comp)>1: sccs.append(comp)
for v in edges:
    if v not in idx: sc(v)
name=lambda k: k[0]+':'+('/'.join(k[1]) or 'lib')
print('mutual pairs',len(pairs))
for a,b in pairs: print('  ',name(a),'<->',name(b))
print('circle groups',len(sccs))
for c in sccs: print('  ',' '.join(sorted(map(name,c))))
# top-level module graph
top=lambda k:(k[0],k[1][:1])
te={}
for a in edges:
    for b in edges[a]:
        if top(a)!=top(b): te.setdefault(top(a),set()).add(top(b))
tp=sorted({tuple(sorted([a,b])) for a in te for b in te[a] if a in te.get(b,())})
print('module circles',len(tp))
for a,b in tp: print('  ',name(a),'<->',name(b))
# CI runs this: any circle fails it.
if pairs or sccs or tp:
    print('import circles: cut them (two files that import each other are one concept or a wrong cut)', file=sys.stderr)
    sys.exit(1)
