//! GPU copies of registry assets, by handle index, made the first time a frame
//! draws with them.
//!
//! Pattern: flyweight (the GPU side of the asset registry): one copy per
//! asset however many instances use it, and none for assets never drawn.

/// A sparse table of GPU objects indexed like the registry's handles.
#[derive(Debug)]
pub(crate) struct Uploaded<T>(Vec<Option<T>>);

impl<T> Default for Uploaded<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> Uploaded<T> {
    /// The copy for `index`, if made.
    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        self.0.get(index).and_then(Option::as_ref)
    }

    /// Drops the copies whose index `keep` refuses.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        for (index, slot) in self.0.iter_mut().enumerate() {
            if slot.is_some() && !keep(index) {
                *slot = None;
            }
        }
    }

    /// How many copies are held.
    pub(crate) fn len(&self) -> usize {
        self.0.iter().filter(|s| s.is_some()).count()
    }

    /// Makes the copy for `index` unless there is one; `make` gives `None`
    /// when the registry has no such asset (nothing is stored then).
    pub(crate) fn ensure(&mut self, index: usize, make: impl FnOnce() -> Option<T>) {
        if self.get(index).is_some() {
            return;
        }
        let Some(value) = make() else {
            return;
        };
        if self.0.len() <= index {
            self.0.resize_with(index + 1, || None);
        }
        self.0[index] = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::Uploaded;

    #[test]
    fn copies_are_made_once_and_missing_assets_leave_no_slot() {
        let mut table = Uploaded::default();
        let mut made = 0;
        for _ in 0..3 {
            table.ensure(4, || {
                made += 1;
                Some("texture 4")
            });
        }
        assert_eq!(made, 1);
        assert_eq!(table.get(4), Some(&"texture 4"));
        table.ensure(9, || None);
        assert_eq!(table.get(9), None);
        assert_eq!(table.get(2), None);
    }
}
