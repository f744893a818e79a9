//! A hash's fields in insertion order with an index by field, so that
//! `HSET`, `HGET`, `HINCRBY` and `HDEL` cost the same whatever the size of
//! the hash (a scan of every field before it would make 300 000 `HSET` on
//! one hash quadratic).

use hashbrown::HashMap;

/// The fields of a hash, in insertion order (a removed field leaves a gap
/// that is compacted once gaps outnumber fields), indexed by field.
#[derive(Clone, Debug, Default)]
pub struct HashFields {
    /// Field and value per insertion; `None` where a field was removed.
    slots: Vec<Option<(Vec<u8>, Vec<u8>)>>,
    /// Each live field's slot.
    index: HashMap<Vec<u8>, usize>,
    /// No live slot comes before this one.
    head: usize,
}

impl HashFields {
    /// An empty hash.
    pub fn new() -> HashFields {
        HashFields::default()
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the hash has no field.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The first field still present, with its value.
    pub fn first(&self) -> Option<&(Vec<u8>, Vec<u8>)> {
        self.slots.get(self.head..)?.iter().flatten().next()
    }

    /// The value of `field`.
    pub fn get(&self, field: &[u8]) -> Option<&Vec<u8>> {
        let i = *self.index.get(field)?;
        self.slots.get(i)?.as_ref().map(|(_, v)| v)
    }

    /// The value of `field`, to change in place.
    pub fn get_mut(&mut self, field: &[u8]) -> Option<&mut Vec<u8>> {
        let i = *self.index.get(field)?;
        self.slots.get_mut(i)?.as_mut().map(|(_, v)| v)
    }

    /// Sets `field` to `value`; true when the field is new (it goes last).
    pub fn insert(&mut self, field: &[u8], value: Vec<u8>) -> bool {
        if let Some(v) = self.get_mut(field) {
            *v = value;
            return false;
        }
        self.index.insert(field.to_vec(), self.slots.len());
        self.slots.push(Some((field.to_vec(), value)));
        true
    }

    /// Removes `field`; true when it was there.
    pub fn remove(&mut self, field: &[u8]) -> bool {
        let Some(i) = self.index.remove(field) else {
            return false;
        };
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = None;
        }
        if i == self.head {
            self.head = self.slots[i..]
                .iter()
                .position(Option::is_some)
                .map_or(self.slots.len(), |p| i + p);
        }
        if self.slots.len() > 32 && self.slots.len() > 2 * self.index.len() {
            self.compact();
        }
        true
    }

    /// The fields and values in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.slots
            .iter()
            .flatten()
            .map(|(f, v)| (f.as_slice(), v.as_slice()))
    }

    /// Drops the gaps (each field keeps its order): linear, and run only
    /// when gaps outnumber fields, so removals cost O(1) amortised.
    fn compact(&mut self) {
        self.slots.retain(Option::is_some);
        self.head = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            if let Some((f, _)) = slot
                && let Some(at) = self.index.get_mut(f.as_slice())
            {
                *at = i;
            }
        }
    }
}

impl PartialEq for HashFields {
    fn eq(&self, other: &HashFields) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for HashFields {}

impl<F: AsRef<[u8]>, V: AsRef<[u8]>> FromIterator<(F, V)> for HashFields {
    fn from_iter<I: IntoIterator<Item = (F, V)>>(iter: I) -> HashFields {
        let mut h = HashFields::new();
        for (f, v) in iter {
            h.insert(f.as_ref(), v.as_ref().to_vec());
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_first_and_removal_match_a_plain_list() {
        // A list of pairs is the obvious model: every step is compared to it.
        let mut h = HashFields::new();
        let mut model: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut x: u64 = 7;
        for step in 0..5_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = format!("f{}", x % 97).into_bytes();
            let v = step.to_string().into_bytes();
            if x.is_multiple_of(3) {
                let was = model.iter().position(|(k, _)| *k == f);
                if let Some(p) = was {
                    model.remove(p);
                }
                assert_eq!(h.remove(&f), was.is_some());
            } else {
                let new = match model.iter_mut().find(|(k, _)| *k == f) {
                    Some(slot) => {
                        slot.1 = v.clone();
                        false
                    }
                    None => {
                        model.push((f.clone(), v.clone()));
                        true
                    }
                };
                assert_eq!(h.insert(&f, v), new);
            }
            assert_eq!(h.len(), model.len());
            assert_eq!(h.first(), model.first());
            assert!(
                h.iter()
                    .eq(model.iter().map(|(f, v)| (f.as_slice(), v.as_slice())))
            );
        }
    }
}
