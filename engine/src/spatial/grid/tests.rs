//! Tests of the row grid.

use super::*;
use glam::Vec2;

fn grid() -> RowGrid<u32> {
    RowGrid::new(Rect::new(Vec2::ZERO, Vec2::splat(100.0)), 10.0).unwrap()
}

/// Every stored element appears exactly in the cells its range covers.
fn check(grid: &RowGrid<u32>) {
    let mut per_cell_total = 0usize;
    for (y, row) in grid.lines.iter().enumerate() {
        for (x, &head) in row.heads.iter().enumerate() {
            let mut current = head;
            while current != NONE {
                let node = row.nodes[current as usize];
                let c = grid.elements[node.element as usize].cells;
                assert!(
                    (c.x0..=c.x1).contains(&(x as u32)) && (c.y0..=c.y1).contains(&(y as u32)),
                    "element {} filed in cell ({x}, {y}) outside its range {c:?}",
                    node.element
                );
                per_cell_total += 1;
                current = node.next;
            }
        }
    }
    assert_eq!(per_cell_total, grid.entries());
}

#[test]
fn spanning_element_is_filed_in_every_covered_cell_once() {
    let mut g = grid();
    g.insert(1, Rect::new(Vec2::new(5.0, 15.0), Vec2::new(34.0, 21.0)))
        .unwrap();
    assert_eq!(g.entries(), 4 * 2, "x cells 0..=3, y cells 1..=2");
    check(&g);
    let mut out = Vec::new();
    g.query_rect(&Rect::new(Vec2::ZERO, Vec2::splat(100.0)), &mut out);
    assert_eq!(out, [1], "deduplicated across the 8 cells");
}

#[test]
fn outside_elements_clamp_to_the_border() {
    let mut g = grid();
    g.insert(
        1,
        Rect::new(Vec2::new(-500.0, 50.0), Vec2::new(-400.0, 51.0)),
    )
    .unwrap();
    g.insert(2, Rect::new(Vec2::splat(1e30), Vec2::splat(2e30)))
        .unwrap();
    check(&g);
    let mut out = Vec::new();
    g.query_rect(
        &Rect::new(Vec2::new(-450.0, 50.5), Vec2::new(-449.0, 50.6)),
        &mut out,
    );
    assert_eq!(out, [1]);
    g.query_rect(
        &Rect::new(Vec2::splat(1.5e30), Vec2::splat(1.6e30)),
        &mut out,
    );
    assert_eq!(out, [2]);
    g.query_rect(
        &Rect::new(Vec2::new(0.0, 50.0), Vec2::new(5.0, 51.0)),
        &mut out,
    );
    assert!(
        out.is_empty(),
        "border cell candidates must still be tested: {out:?}"
    );
}

#[test]
fn update_relinks_and_remove_recycles_nodes() {
    let mut g = grid();
    g.insert(1, Rect::new(Vec2::splat(1.0), Vec2::splat(2.0)))
        .unwrap();
    g.insert(2, Rect::new(Vec2::splat(1.5), Vec2::splat(25.0)))
        .unwrap();
    g.update(1, Rect::new(Vec2::splat(1.2), Vec2::splat(2.2)))
        .unwrap();
    check(&g);
    g.update(2, Rect::new(Vec2::splat(50.0), Vec2::splat(55.0)))
        .unwrap();
    check(&g);
    let nodes_before: usize = g.lines.iter().map(|r| r.nodes.len()).sum();
    assert!(g.remove(2));
    assert!(!g.remove(2));
    g.insert(3, Rect::new(Vec2::splat(51.0), Vec2::splat(52.0)))
        .unwrap();
    let nodes_after: usize = g.lines.iter().map(|r| r.nodes.len()).sum();
    assert_eq!(nodes_before, nodes_after, "freed node not reused");
    check(&g);
    let mut out = Vec::new();
    g.query_rect(&Rect::new(Vec2::splat(50.0), Vec2::splat(60.0)), &mut out);
    assert_eq!(out, [3]);
    assert_eq!(g.len(), 2);
}

#[test]
fn refuses_bad_input_without_changes() {
    assert!(matches!(
        RowGrid::<u32>::new(Rect::new(Vec2::ZERO, Vec2::ONE), 0.0),
        Err(SpatialError::InvalidCellSize { .. })
    ));
    assert!(matches!(
        RowGrid::<u32>::new(Rect::new(Vec2::ZERO, Vec2::splat(1e6)), 0.01),
        Err(SpatialError::GridTooLarge { .. })
    ));
    let mut g = grid();
    g.insert(1, Rect::new(Vec2::ONE, Vec2::splat(2.0))).unwrap();
    assert!(g.insert(2, Rect::new(Vec2::NAN, Vec2::ONE)).is_err());
    assert!(
        g.update(1, Rect::new(Vec2::ONE, Vec2::splat(f32::INFINITY)))
            .is_err()
    );
    assert!(g.insert(1, Rect::new(Vec2::ONE, Vec2::splat(2.0))).is_err());
    assert!(g.update(7, Rect::new(Vec2::ONE, Vec2::splat(2.0))).is_err());
    assert_eq!(g.len(), 1);
    assert_eq!(g.get(1), Some(Rect::new(Vec2::ONE, Vec2::splat(2.0))));
    check(&g);
}

/// Keys of each cell's list, in list order, row by row.
fn lists(grid: &RowGrid<u32>) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for row in &grid.lines {
        for &head in &row.heads {
            let mut keys = Vec::new();
            let mut current = head;
            while current != NONE {
                let node = row.nodes[current as usize];
                keys.push(grid.elements[node.element as usize].key);
                current = node.next;
            }
            out.push(keys);
        }
    }
    out
}

#[test]
fn batch_insert_builds_what_one_by_one_inserts_build() {
    // Enough elements to take the multi-threaded path.
    let count = PARALLEL_BATCH as u32 + 3000;
    let rect = |i: u32| {
        let x = (i.wrapping_mul(2_654_435_761) % 9_700) as f32 / 100.0;
        let y = (i.wrapping_mul(40_503) % 9_100) as f32 / 100.0;
        let size = 0.5 + (i % 7) as f32 * 2.5;
        Rect::new(Vec2::new(x - 2.0, y), Vec2::new(x + size, y + size))
    };
    let mut one = grid();
    let mut bulk = grid();
    // Free ids and free nodes must be reused identically.
    for i in 0..60 {
        one.insert(1_000_000 + i, rect(i * 31)).unwrap();
        bulk.insert(1_000_000 + i, rect(i * 31)).unwrap();
    }
    for i in (0..60).step_by(3) {
        assert!(one.remove(1_000_000 + i) && bulk.remove(1_000_000 + i));
    }
    for i in 0..count {
        one.insert(i, rect(i)).unwrap();
    }
    bulk.insert_batch((0..count).map(|i| (i, rect(i)))).unwrap();
    check(&bulk);
    assert_eq!(bulk.len(), one.len());
    assert!(
        lists(&bulk) == lists(&one),
        "cell lists differ between batch and one-by-one"
    );
    for i in (0..count).step_by(97) {
        assert_eq!(bulk.get(i), Some(rect(i)));
    }
}

#[test]
fn batch_insert_is_all_or_nothing() {
    let mut g = grid();
    g.insert(5, Rect::new(Vec2::ONE, Vec2::splat(2.0))).unwrap();
    let fine = Rect::new(Vec2::splat(3.0), Vec2::splat(4.0));
    let nan = Rect::new(Vec2::NAN, Vec2::ONE);
    assert!(matches!(
        g.insert_batch([(7, fine), (8, nan)]),
        Err(SpatialError::NonFiniteRect { .. })
    ));
    assert!(matches!(
        g.insert_batch([(7, fine), (7, fine)]),
        Err(SpatialError::DuplicateKey { .. })
    ));
    assert!(matches!(
        g.insert_batch([(7, fine), (5, fine)]),
        Err(SpatialError::DuplicateKey { .. })
    ));
    assert_eq!(g.len(), 1);
    assert!(!g.contains_key(7));
    check(&g);
    g.insert_batch([(7, fine), (8, fine)]).unwrap();
    let mut pairs = Vec::new();
    g.pairs(&mut pairs);
    assert_eq!(pairs.len(), 1);
    check(&g);
}

#[test]
fn touching_rectangles_on_a_cell_border_pair_up() {
    let mut g = grid();
    g.insert(1, Rect::new(Vec2::new(5.0, 5.0), Vec2::new(10.0, 8.0)))
        .unwrap();
    g.insert(2, Rect::new(Vec2::new(10.0, 5.0), Vec2::new(15.0, 8.0)))
        .unwrap();
    g.insert(3, Rect::new(Vec2::new(10.5, 5.0), Vec2::new(15.0, 8.0)))
        .unwrap();
    let mut pairs = Vec::new();
    g.pairs(&mut pairs);
    let mut normalised: Vec<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    normalised.sort_unstable();
    assert_eq!(normalised, [(1, 2), (2, 3)]);
}
