//! Copy and paste of a 10,000-node subtree whose components name each
//! other (each node its parent and its previous sibling) and a node outside
//! it: `copy_text` (records, references as indices and paths, RON text)
//! and `paste_text` (parse, check, spawn, references pointed at the new
//! nodes), as the editor's Ctrl+C and Ctrl+V run them. Checked first: every
//! pasted reference names the pasted node it should.

use criterion::{Criterion, criterion_group, criterion_main};
use keel_editor::Document;
use keel_engine::{NodeId, NodeRef, Scene, Transform, component};

const NODES: usize = 10_000;

#[component(name = "rope")]
#[derive(Default, PartialEq)]
struct Rope {
    up: NodeRef,
    before: NodeRef,
    anchor: NodeRef,
}

/// A root with 100 strands of 99 nodes under it, each tied to the one above
/// and the one before, and all to an anchor outside the subtree.
fn harbour() -> (Document, NodeId, NodeId) {
    let mut scene = Scene::new();
    scene.register::<Rope>().unwrap();
    let anchor = scene.spawn(None, "anchor", Transform::IDENTITY).unwrap();
    let root = scene.spawn(None, "root", Transform::IDENTITY).unwrap();
    let mut before = root;
    for s in 0..100 {
        let mut up = scene
            .spawn(Some(root), format!("strand{s}"), Transform::IDENTITY)
            .unwrap();
        for k in 0..(NODES / 100 - 1) {
            let node = scene
                .spawn(Some(up), format!("knot{k}"), Transform::IDENTITY)
                .unwrap();
            let rope = Rope {
                up: NodeRef::to(up),
                before: NodeRef::to(before),
                anchor: NodeRef::to(anchor),
            };
            scene.insert(node, rope).unwrap();
            before = node;
            up = node;
        }
    }
    (Document::new(scene, None), root, anchor)
}

fn bench(c: &mut Criterion) {
    let (mut doc, root, anchor) = harbour();
    let text = doc.copy_text(&[root]).unwrap();
    let pasted = doc.paste_text(&text).unwrap()[0];
    // Checked: the pasted nodes name pasted nodes, in the same places.
    let scene = doc.scene();
    let originals: Vec<NodeId> = scene.subtree(root).collect();
    let copies: Vec<NodeId> = scene.subtree(pasted).collect();
    assert_eq!(originals.len(), copies.len());
    let index: std::collections::HashMap<NodeId, usize> =
        copies.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let place: std::collections::HashMap<NodeId, usize> =
        originals.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut checked = 0;
    for (original, copy) in originals.iter().zip(&copies) {
        let (Some(a), Some(b)) = (scene.get::<Rope>(*original), scene.get::<Rope>(*copy)) else {
            continue;
        };
        for (x, y) in [(&a.up, &b.up), (&a.before, &b.before)] {
            let (x, y) = (x.get(scene).unwrap(), y.get(scene).unwrap());
            assert_eq!(place[&x], index[&y], "a reference inside follows the copy");
        }
        assert_eq!(b.anchor.get(scene), Some(anchor), "outside: the same node");
        checked += 1;
    }
    assert_eq!(checked, NODES - 100);
    let mut group = c.benchmark_group("clipboard/refs/10000");
    group.sample_size(10);
    group.bench_function("copy_text", |b| b.iter(|| doc.copy_text(&[root]).unwrap()));
    group.bench_function("paste_text", |b| {
        b.iter(|| {
            let pasted = doc.paste_text(&text).unwrap();
            // Keep the scene's size steady: the paste is undone.
            doc.undo().unwrap();
            pasted
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
