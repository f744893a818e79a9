//! Which keys are lock keys, stock counters and order lists: the glob
//! patterns of [`super::MonitorOptions`] (`*` any run, `?` one byte),
//! compiled once for the shapes those patterns usually have.

/// Glob match with `*` (any run) and `?` (one byte).
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// A glob compiled for the shapes lock, stock and order patterns have
/// (`*lock*`, `lock:*`, `*:lock`, a literal), matching exactly as
/// [`glob_match`] does; other patterns, and keys holding a `*` (which
/// [`glob_match`] may take literally), go through [`glob_match`].
#[derive(Debug)]
pub(super) struct Glob {
    pattern: Vec<u8>,
    shape: Shape,
}

#[derive(Debug)]
enum Shape {
    Contains(Vec<u8>),
    Prefix(Vec<u8>),
    Suffix(Vec<u8>),
    Exact,
    General,
}

impl Glob {
    pub(super) fn new(pattern: &[u8]) -> Glob {
        let literal = |p: &[u8]| !p.is_empty() && !p.iter().any(|&c| c == b'*' || c == b'?');
        let shape = match pattern {
            [b'*', mid @ .., b'*'] if literal(mid) => Shape::Contains(mid.to_vec()),
            [b'*', tail @ ..] if literal(tail) => Shape::Suffix(tail.to_vec()),
            [head @ .., b'*'] if literal(head) => Shape::Prefix(head.to_vec()),
            p if literal(p) => Shape::Exact,
            _ => Shape::General,
        };
        Glob {
            pattern: pattern.to_vec(),
            shape,
        }
    }

    pub(super) fn matches(&self, text: &[u8]) -> bool {
        if matches!(self.shape, Shape::General) || text.contains(&b'*') {
            return glob_match(&self.pattern, text);
        }
        match &self.shape {
            Shape::Contains(needle) => contains(text, needle),
            Shape::Prefix(p) => text.starts_with(p),
            Shape::Suffix(p) => text.ends_with(p),
            Shape::Exact => text == self.pattern.as_slice(),
            Shape::General => glob_match(&self.pattern, text),
        }
    }
}

/// True when `needle` (not empty) occurs in `hay`. Keys are short, so this
/// looks for the needle's first byte rather than setting up a searcher.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some(last_start) = hay.len().checked_sub(needle.len()) else {
        return false;
    };
    let first = needle[0];
    hay[..=last_start]
        .iter()
        .enumerate()
        .any(|(i, &c)| c == first && hay[i..].starts_with(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_globs_match_as_glob_match_does() {
        // Every pattern and key over a small alphabet that includes the
        // wildcards themselves (a key holding `*` or `?`).
        let alphabet = [b'a', b'b', b'*', b'?'];
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        for len in 1..=4 {
            let mut n = 0usize;
            while n < alphabet.len().pow(len) {
                let mut w = Vec::new();
                let mut x = n;
                for _ in 0..len {
                    w.push(alphabet[x % alphabet.len()]);
                    x /= alphabet.len();
                }
                words.push(w);
                n += 1;
            }
        }
        for p in &words {
            let g = Glob::new(p);
            for t in &words {
                assert_eq!(
                    g.matches(t),
                    glob_match(p, t),
                    "pattern {:?} key {:?}",
                    String::from_utf8_lossy(p),
                    String::from_utf8_lossy(t)
                );
            }
        }
        assert!(matches!(Glob::new(b"*lock*").shape, Shape::Contains(_)));
        assert!(matches!(Glob::new(b"lock:*").shape, Shape::Prefix(_)));
        assert!(matches!(Glob::new(b"*:lock").shape, Shape::Suffix(_)));
        assert!(matches!(Glob::new(b"lock").shape, Shape::Exact));
        assert!(matches!(Glob::new(b"l?ck*").shape, Shape::General));
    }
}
