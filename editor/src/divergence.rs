//! What the new build of a game made of the old build's recorded inputs
//! in live mode: the steps it caught up, and the first step where its run
//! diverged from the old one (the status line and the timeline show it).

/// What the new code made of the recorded inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// Steps re-simulated.
    pub steps: u64,
    /// The first step after which the new run's state differs from the old
    /// one's (the world's step counter then), if any.
    pub diverged_at: Option<u64>,
    /// Which parts of the state differ there.
    pub parts: Vec<&'static str>,
    /// Seconds the re-simulation took.
    pub seconds: f64,
    /// A system's panic that stopped it.
    pub panic: Option<String>,
}

impl Divergence {
    /// What the status line and the timeline say.
    pub fn summary(&self) -> String {
        if let Some(panic) = &self.panic {
            return format!("The new code panicked while catching up: {panic}");
        }
        match self.diverged_at {
            Some(step) => format!(
                "New code diverges at step {} ({} differ)",
                thousands(step),
                self.parts.join(", ")
            ),
            None => format!(
                "New code runs the {} recorded steps as the old did",
                thousands(self.steps)
            ),
        }
    }
}

/// `1214` as `1,214`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
