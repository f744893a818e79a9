//! The JSON Lines fast path's memory of the lines before: the text between
//! one value and the next key's value (a "gap": `, "lock_key": `), learned
//! once and then matched as bytes. A logger writes each kind of line from
//! one template, so the gap after a given key is nearly always one of the
//! few it was before; comparing the line's next bytes with it steps over
//! the separator, the key's quotes, its name and the colon in one
//! comparison and gives the field's slot without a search of the names.
//!
//! A gap is learned only from text the scanner has just read as exactly
//! that (white space, `{` or `,`, a plain key, white space, `:`, white
//! space), so the same bytes at the same kind of place are the same
//! syntax again. Gaps that open a line (`{"ts": `) and gaps that follow a
//! value (`, "ts": `) are told apart by their first non-blank byte and
//! only ever followed from their own kind of place.

/// Where a line's scan stands, as the gap table knows it: at the line's
/// start, right after the value of the key whose gap is `After(id)`, or
/// after a key the table could not keep (nothing is followed from there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Before the first key: the gap to find opens the object.
    Start,
    /// After the value of the key whose gap is entry `id`.
    After(u32),
    /// After a key the table did not keep: no gap is followed.
    Lost,
}

/// At most this many gaps are kept; one more clears the table (a file whose
/// keys never repeat, a map of ids written as keys, learns nothing and
/// keeps no more than this).
const CAP: usize = 64;

/// One gap: its bytes, the slot of its key among the wanted names (`None`:
/// not wanted), and the two gaps seen after its value most recently (the
/// most recent first; `u32::MAX`: none).
#[derive(Debug)]
struct Entry<T> {
    text: T,
    slot: Option<usize>,
    next: [u32; 2],
}

/// The gaps of a file's lines and which follows which. `T` holds a gap's
/// bytes: `&'a [u8]` borrowed from a text that outlives every line scanned
/// with it (a chunk of the file), `Box<[u8]>` copied from one that lives a
/// line (an envelope's unescaped record). One table serves one list of
/// wanted names.
#[derive(Debug)]
pub(crate) struct Gaps<T> {
    entries: Vec<Entry<T>>,
    /// The gaps seen at the start of a line, most recent first.
    start: [u32; 2],
}

impl<T> Default for Gaps<T> {
    fn default() -> Self {
        Gaps {
            entries: Vec::new(),
            start: [NONE; 2],
        }
    }
}

const NONE: u32 = u32::MAX;

/// What a gap table needs of the text that holds a gap's bytes.
pub(crate) trait GapText<'a>: AsRef<[u8]> + From<&'a [u8]> {}

impl<'a, T: AsRef<[u8]> + From<&'a [u8]>> GapText<'a> for T {}

impl<'a, T: GapText<'a>> Gaps<T> {
    /// The gap learned for `place` that `rest` (the line from here on)
    /// starts with: its entry, length and slot. `None` when neither of the
    /// two gaps last seen there is next in the line.
    #[inline(always)]
    pub(crate) fn follow(
        &mut self,
        place: Place,
        rest: &[u8],
    ) -> Option<(u32, usize, Option<usize>)> {
        let next = match place {
            Place::Start => self.start,
            Place::After(id) => self.entries.get(id as usize)?.next,
            Place::Lost => return None,
        };
        for (k, id) in next.into_iter().enumerate() {
            let e = self.entries.get(id as usize)?;
            let gap = e.text.as_ref();
            if rest.get(..gap.len()).is_some_and(|r| same(r, gap)) {
                let (len, slot) = (gap.len(), e.slot);
                if k == 1
                    && let Some(next) = self.successors(place)
                {
                    next.swap(0, 1);
                }
                return Some((id, len, slot));
            }
        }
        None
    }

    /// The gaps seen after `place`, to reorder or add to; `None` after a
    /// key the table does not keep.
    fn successors(&mut self, place: Place) -> Option<&mut [u32; 2]> {
        match place {
            Place::Start => Some(&mut self.start),
            Place::After(id) => self.entries.get_mut(id as usize).map(|e| &mut e.next),
            Place::Lost => None,
        }
    }

    /// Keeps `gap` (just read at `place`, its key's slot `slot`) as the
    /// most recent gap seen there, and returns the place after its value.
    pub(crate) fn learn(&mut self, place: Place, gap: &'a [u8], slot: Option<usize>) -> Place {
        let found = self.entries.iter().position(|e| same(e.text.as_ref(), gap));
        let id = match found {
            Some(id) => id as u32,
            None => {
                if self.entries.len() >= CAP {
                    // Full: start again; the place before is gone with it.
                    *self = Gaps::default();
                    self.push(gap, slot);
                    if place == Place::Start {
                        self.start[0] = 0;
                    }
                    return Place::After(0);
                }
                self.push(gap, slot)
            }
        };
        if let Some(next) = self.successors(place)
            && next[0] != id
        {
            next[1] = next[0];
            next[0] = id;
        }
        Place::After(id)
    }

    fn push(&mut self, gap: &'a [u8], slot: Option<usize>) -> u32 {
        self.entries.push(Entry {
            text: T::from(gap),
            slot,
            next: [NONE; 2],
        });
        (self.entries.len() - 1) as u32
    }

    /// The number of gaps kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// `a == b` for two slices of one length, eight bytes at a time without a
/// call: a gap is 5 to 30 bytes, where `memcmp`'s call and set-up cost
/// more than the comparison.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| {
        s.get(i..i + 8)
            .and_then(|w| w.first_chunk::<8>())
            .map(|w| u64::from_le_bytes(*w))
    };
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word(a, i) != word(b, i) {
                return false;
            }
            i += 8;
        }
        // The last eight bytes, overlapping the words before.
        return word(a, n - 8) == word(b, n - 8);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_compares_every_byte_of_every_length() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).collect();
            assert!(same(&a, &a.clone()));
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same(&a, &b), "length {n}, byte {at}");
            }
            assert!(!same(&a, &[a.as_slice(), b"x"].concat()));
        }
    }

    #[test]
    fn the_two_most_recent_gaps_after_a_key_are_followed() {
        let mut g: Gaps<&[u8]> = Gaps::default();
        let p = g.learn(Place::Start, b"{\"ts\": ", Some(0));
        let a = g.learn(p, b", \"a\": ", None);
        let b = g.learn(p, b", \"b\": ", Some(1));
        assert_eq!(g.len(), 3);
        // Both are followed from the place after "ts", the latest first.
        assert_eq!(g.follow(p, b", \"a\": 1}"), Some((1, 7, None)));
        assert_eq!(g.follow(p, b", \"b\": 1}"), Some((2, 7, Some(1))));
        assert_eq!(g.follow(Place::Start, b"{\"ts\": 1"), Some((0, 7, Some(0))));
        // A start gap is never followed after a value, nor anything from Lost.
        assert_eq!(g.follow(a, b"{\"ts\": 1"), None);
        assert_eq!(g.follow(Place::Lost, b", \"a\": 1"), None);
        assert_ne!(a, b);
        // A third gap after "ts" pushes out the oldest.
        g.learn(p, b", \"c\": ", None);
        assert_eq!(g.follow(p, b", \"b\": 1}").map(|f| f.0), Some(2));
        assert_eq!(g.follow(p, b", \"a\": 1}"), None);
    }

    #[test]
    fn a_full_table_starts_again() {
        let mut g: Gaps<Box<[u8]>> = Gaps::default();
        let mut place = Place::Start;
        let texts: Vec<String> = (0..CAP + 1).map(|i| format!(", \"k{i}\": ")).collect();
        for t in &texts {
            place = g.learn(place, t.as_bytes(), None);
        }
        assert_eq!(g.len(), 1);
        assert_eq!(place, Place::After(0));
        assert_eq!(g.follow(Place::Start, b"{\"k0\": "), None);
    }
}
