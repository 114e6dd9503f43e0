//! What the benches' agreement checks share: how far a naive twin's matrix
//! may be from the engine's.

/// Fails unless `twin` is `engine` (the numbers of one matrix, in the same
/// order) within 1e-4 of the largest magnitude among `engine`'s, at least
/// 1: the same products, rounded in another order. `what` names the
/// matrix in the failure.
pub fn assert_close(engine: &[f32], twin: &[f32], what: &dyn std::fmt::Display) {
    let size = engine.iter().fold(1.0_f32, |m, v| m.max(v.abs()));
    let off = (engine.iter().zip(twin)).fold(0.0_f32, |m, (x, y)| m.max((x - y).abs()));
    assert!(
        off <= 1e-4 * size,
        "{what}: the engine {engine:?}, the twin {twin:?}"
    );
}
