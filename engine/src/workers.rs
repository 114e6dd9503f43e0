//! Worker threads for the updates that split across cores: rayon's global pool.
//!
//! A large particle update is cut into spans that rayon's workers step at the same time
//! ([`crate::particles::ParticlePool::update`]). [`join_pool`] makes the thread that runs the
//! fixed update one of those workers, which matters twice: it keeps a share of the work on the
//! core whose caches hold what it wrote a moment before (the particles it just spawned), and it
//! hands the rest over through its own work queue, which never allocates. A thread outside the
//! pool gets the same results, but hands the whole update to the pool's threads through rayon's
//! shared queue, which allocates a block every few dozen hand-overs.

/// Builds rayon's global pool with the calling thread as one of its workers, plus one thread
/// per other core (or `RAYON_NUM_THREADS` in all). Call it once, early, from the thread that will
/// run the fixed updates. Returns false if the pool already existed: built by an earlier call,
/// or by the first use of rayon.
pub fn join_pool() -> bool {
    rayon::ThreadPoolBuilder::new()
        .thread_name(|index| format!("keel-worker-{index}"))
        .use_current_thread()
        .build_global()
        .is_ok()
}
