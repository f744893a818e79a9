//! TairString, Alibaba Cloud Tair's versioned string, and its `CAS`/`CAD`
//! for plain strings: the commands Tair's own distributed-lock recipe uses
//! (`SET NX PX` or `EXSET NX PX` to lock, `CAS`/`EXSET ... VER` to renew,
//! `CAD`/`EXCAD` to release, `EXCAS` to write only at the expected version).
//!
//! Sources: the module's C source, alibaba/TairString `src/tairstring.c`
//! (`TairStringTypeSet_RedisCommand`, `TairStringTypeExCas_RedisCommand`,
//! `TairStringTypeExCad_RedisCommand`, `StringTypeCad_RedisCommand`,
//! `StringTypeCas_RedisCommand`, `TairStringTypeIncrBy_RedisCommand`,
//! `parseAndGetExFlags`), its README, and Alibaba Cloud's command pages
//! <https://www.alibabacloud.com/help/en/redis/developer-reference/exstring>
//! and <https://www.alibabacloud.com/help/en/redis/developer-reference/cas-cad-command>.
//! Checked against the module built from that source and loaded into
//! redis-server 7.0.15 (`tests/fixtures/monitor/tair/README.md`).
//!
//! Rules that matter to a replay:
//! - A TairString is its own type ([`Value::ExStr`]): `GET`, `CAD` and `CAS`
//!   on it are `WRONGTYPE`, and `EXSET`/`EXCAS`/`EXCAD` on a plain string
//!   are too. `DEL`, `EXPIRE` and `SET` work on both.
//! - Every write adds 1 to the version (a new key starts at 1); `ABS v` sets
//!   it to v instead. `VER v` on a live key with another version is refused
//!   (`ERR update version is stale`) and writes nothing; `VER 0`, or `VER`
//!   on an absent key, checks nothing.
//! - `EXSET`, `EXINCRBY`, `EXCAS` and `CAS` without an expiry option drop
//!   the key's TTL; `KEEPTTL` keeps it for the `EX*` commands. For `CAS` the
//!   TTL is lost even with `KEEPTTL` (the module's `RedisModule_StringSet`
//!   clears it first; seen on redis-server 7.0.15).
//! - An absolute expiry in the past (`EXAT`/`PXAT`) expires the key now.

use super::{Entry, Keyspace, Outcome, Value, parse_i64, syntax, wrong_args, wrongtype};

/// An expiry option, as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expire {
    /// `EX s`.
    Ex,
    /// `PX ms`.
    Px,
    /// `EXAT unix-s`.
    ExAt,
    /// `PXAT unix-ms`.
    PxAt,
}

/// Which option groups a command accepts (the module's `allow_flags`).
#[derive(Clone, Copy, Debug, Default)]
struct Allow {
    nx_xx: bool,
    version: bool,
    flags: bool,
    incr: bool,
}

/// The options after a TairString command's fixed arguments, as
/// `parseAndGetExFlags` reads them: each group at most once, `NX` with `XX`
/// or an expiry with `KEEPTTL` is a syntax error, and so is an option the
/// command does not take.
#[derive(Clone, Debug, Default)]
struct ExOptions<'a> {
    nx: bool,
    xx: bool,
    keepttl: bool,
    expire: Option<(Expire, &'a [u8])>,
    /// `VER` (false) or `ABS` (true), with its argument.
    version: Option<(bool, &'a [u8])>,
    default: Option<&'a [u8]>,
    min: Option<&'a [u8]>,
    max: Option<&'a [u8]>,
    nonegative: bool,
    withversion: bool,
}

/// The expiry options by name.
const EXPIRES: [(&[u8], Expire); 4] = [
    (b"EX", Expire::Ex),
    (b"EXAT", Expire::ExAt),
    (b"PX", Expire::Px),
    (b"PXAT", Expire::PxAt),
];

fn parse_options<'a>(opts: &[&'a [u8]], allow: Allow) -> Result<ExOptions<'a>, Outcome> {
    let mut o = ExOptions::default();
    let mut i = 0;
    while i < opts.len() {
        let is = |name: &[u8]| opts[i].eq_ignore_ascii_case(name);
        let next = opts.get(i + 1).copied();
        let expire = EXPIRES
            .into_iter()
            .find(|(name, _)| is(name))
            .map(|(_, e)| e);
        match (expire, next) {
            (Some(e), Some(n)) => {
                if o.expire.is_some() || o.keepttl {
                    return Err(syntax());
                }
                o.expire = Some((e, n));
                i += 2;
                continue;
            }
            (Some(_), None) => return Err(syntax()),
            (None, _) => {}
        }
        if is(b"NX") && allow.nx_xx && !o.xx {
            o.nx = true;
        } else if is(b"XX") && allow.nx_xx && !o.nx {
            o.xx = true;
        } else if (is(b"VER") || is(b"ABS")) && allow.version && o.version.is_none() {
            let Some(n) = next else {
                return Err(syntax());
            };
            o.version = Some((is(b"ABS"), n));
            i += 1;
        } else if is(b"FLAGS") && allow.flags && next.is_some() {
            i += 1; // flags are memcached metadata: not modelled
        } else if is(b"DEF") && allow.incr && o.default.is_none() && next.is_some() {
            o.default = next;
            i += 1;
        } else if is(b"MIN") && allow.incr && o.min.is_none() && next.is_some() {
            o.min = next;
            i += 1;
        } else if is(b"MAX") && allow.incr && o.max.is_none() && next.is_some() {
            o.max = next;
            i += 1;
        } else if is(b"NONEGATIVE") && allow.incr {
            o.nonegative = true;
        } else if is(b"WITHVERSION") && (allow.version || allow.incr) {
            o.withversion = true;
        } else if is(b"KEEPTTL") && o.expire.is_none() {
            o.keepttl = true;
        } else {
            return Err(syntax());
        }
        i += 1;
    }
    Ok(o)
}

/// The deadline an expiry option gives at `now_ms`: relative ones from now,
/// absolute ones no earlier than now (the module turns them into a relative
/// time, 0 when already past). `Err` for a non-integer or non-positive time.
fn deadline(now_ms: i64, expire: Option<(Expire, &[u8])>) -> Result<Option<i64>, Outcome> {
    let Some((e, n)) = expire else {
        return Ok(None);
    };
    let Some(n) = parse_i64(n).filter(|&n| n > 0) else {
        return Err(syntax());
    };
    Ok(Some(match e {
        Expire::Ex => now_ms.saturating_add(n.saturating_mul(1000)),
        Expire::Px => now_ms.saturating_add(n),
        Expire::ExAt => n.saturating_mul(1000).max(now_ms),
        Expire::PxAt => n.max(now_ms),
    }))
}

/// A non-negative version argument.
fn version_arg(v: &[u8]) -> Result<i64, Outcome> {
    parse_i64(v).filter(|&v| v >= 0).ok_or_else(syntax)
}

/// The wire reply of a successful `EXCAS`: `OK`, an empty string, the new
/// version.
fn excas_ok(version: i64) -> Outcome {
    Outcome::Array(vec![
        Outcome::Ok,
        Outcome::Bulk(Vec::new()),
        Outcome::Int(version),
    ])
}

/// What a key holds, for the TairString commands.
enum Held {
    Absent,
    Str(Vec<u8>),
    ExStr(Vec<u8>, i64),
    Other,
}

impl Keyspace {
    /// Runs one TairString or `CAS`/`CAD` command (`c` upper-cased). See the
    /// module docs for the rules and their sources.
    pub(super) fn apply_tair(
        &mut self,
        now_ms: i64,
        db: u32,
        c: &[u8],
        args: &[&[u8]],
        want_old: bool,
    ) -> Outcome {
        let r = match c {
            b"EXSET" => self.cmd_exset(now_ms, db, args, want_old),
            b"EXGET" => self.cmd_exget(now_ms, db, args),
            b"EXSETVER" => self.cmd_exsetver(now_ms, db, args),
            b"EXINCRBY" => self.cmd_exincrby(now_ms, db, args),
            b"EXCAS" => self.cmd_excas(now_ms, db, args),
            b"EXCAD" => self.cmd_excad(now_ms, db, args),
            b"CAS" => self.cmd_cas(now_ms, db, args),
            b"CAD" => self.cmd_cad(now_ms, db, args),
            _ => Ok(Outcome::Unknown),
        };
        r.unwrap_or_else(|e| e)
    }

    fn held(&mut self, now_ms: i64, db: u32, key: &[u8]) -> (Held, Option<i64>) {
        match self.get_live(now_ms, db, key) {
            None => (Held::Absent, None),
            Some(Entry {
                value: Value::Str(s),
                deadline_ms,
            }) => (Held::Str(s.clone()), *deadline_ms),
            Some(Entry {
                value: Value::ExStr { value, version },
                deadline_ms,
            }) => (Held::ExStr(value.clone(), *version), *deadline_ms),
            Some(e) => (Held::Other, e.deadline_ms),
        }
    }

    /// `EXSET key value [EX|PX|EXAT|PXAT t] [NX|XX] [VER|ABS v] [FLAGS f]
    /// [WITHVERSION] [KEEPTTL]`: [`Outcome::Set`] as `SET` gives it
    /// (`written: false` when `NX`/`XX` refused), [`Outcome::Stale`] when
    /// `VER` names another version.
    fn cmd_exset(
        &mut self,
        now_ms: i64,
        db: u32,
        args: &[&[u8]],
        want_old: bool,
    ) -> Result<Outcome, Outcome> {
        let [key, value, opts @ ..] = args else {
            return Err(wrong_args(b"exset"));
        };
        let allow = Allow {
            nx_xx: true,
            version: true,
            flags: true,
            incr: false,
        };
        let o = parse_options(opts, allow)?;
        let d = deadline(now_ms, o.expire)?;
        let ver = o
            .version
            .map(|(abs, v)| version_arg(v).map(|v| (abs, v)))
            .transpose()?;
        let (held, prev_deadline) = self.held(now_ms, db, key);
        let (old, cur) = match held {
            Held::Absent if o.xx => {
                return Ok(Outcome::Set {
                    written: false,
                    old: None,
                });
            }
            Held::Absent => (None, 0),
            Held::ExStr(v, n) => (Some(v), n),
            Held::Str(_) | Held::Other => return Err(wrongtype()),
        };
        if old.is_some() && o.nx {
            return Ok(Outcome::Set {
                written: false,
                old: old.filter(|_| want_old),
            });
        }
        let version = match ver {
            Some((false, v)) if old.is_some() && v != 0 && v != cur => {
                return Ok(Outcome::Stale { version: cur });
            }
            Some((true, v)) => v,
            _ => cur.saturating_add(1),
        };
        let keep = if o.keepttl { prev_deadline } else { d };
        let new = Value::ExStr {
            value: value.to_vec(),
            version,
        };
        self.put(db, key, new, keep);
        Ok(Outcome::Set {
            written: true,
            old: old.filter(|_| want_old),
        })
    }

    /// `EXGET key [WITHFLAGS]`: the value and version (flags, not modelled,
    /// read 0), nil when absent.
    fn cmd_exget(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let (key, with_flags) = match args {
            [key] => (key, false),
            [key, f] if f.eq_ignore_ascii_case(b"WITHFLAGS") => (key, true),
            [_, _] => return Err(syntax()),
            _ => return Err(wrong_args(b"exget")),
        };
        match self.held(now_ms, db, key).0 {
            Held::Absent => Ok(Outcome::Nil),
            Held::ExStr(v, n) => {
                let mut out = vec![Outcome::Bulk(v), Outcome::Int(n)];
                if with_flags {
                    out.push(Outcome::Int(0));
                }
                Ok(Outcome::Array(out))
            }
            Held::Str(_) | Held::Other => Err(wrongtype()),
        }
    }

    /// `EXSETVER key version`: 1 when set, 0 when the key is absent.
    fn cmd_exsetver(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let [key, v] = args else {
            return Err(wrong_args(b"exsetver"));
        };
        match self.held(now_ms, db, key).0 {
            Held::Absent => return Ok(Outcome::Int(0)),
            Held::ExStr(..) => {}
            Held::Str(_) | Held::Other => return Err(wrongtype()),
        }
        let v = parse_i64(v).filter(|&v| v > 0).ok_or_else(syntax)?;
        if let Some(Entry {
            value: Value::ExStr { version, .. },
            ..
        }) = self.db_mut(db).get_mut(*key)
        {
            *version = v;
        }
        Ok(Outcome::Int(1))
    }

    /// `EXINCRBY key n [DEF d] [EX|PX|EXAT|PXAT t] [NX|XX] [VER|ABS v]
    /// [MIN m] [MAX m] [NONEGATIVE] [WITHVERSION] [KEEPTTL]`: the new value
    /// (with `WITHVERSION`, the value and the version). A result outside
    /// `MIN`/`MAX` is an error and writes nothing.
    fn cmd_exincrby(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let [key, n, opts @ ..] = args else {
            return Err(wrong_args(b"exincrby"));
        };
        let allow = Allow {
            nx_xx: true,
            version: true,
            flags: false,
            incr: true,
        };
        let o = parse_options(opts, allow)?;
        let (held, prev_deadline) = self.held(now_ms, db, key);
        let (cur, cur_version) = match held {
            Held::Absent => (None, 0),
            Held::ExStr(v, n) => (Some(v), n),
            Held::Str(_) | Held::Other => return Err(wrongtype()),
        };
        let no_int = || Outcome::Error("ERR value is not an integer".into());
        let incr = parse_i64(n).ok_or_else(no_int)?;
        let default = o
            .default
            .map(|d| parse_i64(d).ok_or_else(no_int))
            .transpose()?;
        let d = deadline(now_ms, o.expire)?;
        let ver = o
            .version
            .map(|(abs, v)| version_arg(v).map(|v| (abs, v)))
            .transpose()?;
        let bound_err = || Outcome::Error("ERR min or max is specified, but not valid".into());
        let min = o
            .min
            .map(|m| parse_i64(m).ok_or_else(bound_err))
            .transpose()?;
        let max = o
            .max
            .map(|m| parse_i64(m).ok_or_else(bound_err))
            .transpose()?;
        if let (Some(lo), Some(hi)) = (min, max)
            && hi < lo
        {
            return Err(bound_err());
        }
        let value = match &cur {
            None if o.xx => return Ok(Outcome::Nil),
            None => default.unwrap_or(0),
            Some(_) if o.nx => return Ok(Outcome::Nil),
            Some(v) => parse_i64(v).ok_or_else(no_int)?,
        };
        if let Some((false, v)) = ver
            && cur.is_some()
            && v != 0
            && v != cur_version
        {
            return Ok(Outcome::Stale {
                version: cur_version,
            });
        }
        let mut value = if o.default.is_some() && cur.is_none() {
            value
        } else {
            let overflow = || Outcome::Error("ERR increment or decrement would overflow".into());
            let new = value.checked_add(incr).ok_or_else(overflow)?;
            if max.is_some_and(|m| new > m) || min.is_some_and(|m| new < m) {
                return Err(overflow());
            }
            new
        };
        if o.nonegative {
            value = value.max(0);
        }
        let version = match ver {
            Some((true, v)) => v,
            _ => cur_version.saturating_add(1),
        };
        let keep = if o.keepttl { prev_deadline } else { d };
        let new = Value::ExStr {
            value: value.to_string().into_bytes(),
            version,
        };
        self.put(db, key, new, keep);
        Ok(if o.withversion {
            Outcome::Array(vec![Outcome::Int(value), Outcome::Int(version)])
        } else {
            Outcome::Int(value)
        })
    }

    /// `EXCAS key newvalue version [EX|PX|EXAT|PXAT t] [KEEPTTL]`: writes
    /// and adds 1 to the version when `version` is the key's; -1 when the
    /// key is absent; [`Outcome::Stale`] otherwise.
    fn cmd_excas(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let [key, value, v, opts @ ..] = args else {
            return Err(wrong_args(b"excas"));
        };
        let o = parse_options(opts, Allow::default())?;
        let d = deadline(now_ms, o.expire)?;
        let v =
            parse_i64(v).ok_or_else(|| Outcome::Error("ERR version should be integer".into()))?;
        if v < 0 {
            return Err(syntax());
        }
        let (held, prev_deadline) = self.held(now_ms, db, key);
        let cur = match held {
            Held::Absent => return Ok(Outcome::Int(-1)),
            Held::ExStr(_, n) => n,
            Held::Str(_) | Held::Other => return Err(wrongtype()),
        };
        if cur != v {
            return Ok(Outcome::Stale { version: cur });
        }
        let version = cur.saturating_add(1);
        let keep = if o.keepttl { prev_deadline } else { d };
        let new = Value::ExStr {
            value: value.to_vec(),
            version,
        };
        self.put(db, key, new, keep);
        Ok(excas_ok(version))
    }

    /// `EXCAD key version`: 1 when the version matched and the key was
    /// deleted, 0 when it did not match, -1 when the key is absent.
    fn cmd_excad(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let [key, v] = args else {
            return Err(wrong_args(b"excad"));
        };
        let held = self.held(now_ms, db, key).0;
        if matches!(held, Held::Str(_) | Held::Other) {
            return Err(wrongtype());
        }
        let v = parse_i64(v).ok_or_else(syntax)?;
        match held {
            Held::ExStr(_, n) if n == v => {
                self.remove(now_ms, db, key);
                Ok(Outcome::Int(1))
            }
            Held::ExStr(..) => Ok(Outcome::Int(0)),
            _ => Ok(Outcome::Int(-1)),
        }
    }

    /// `CAD key value` (plain strings): 1 when the value matched and the key
    /// was deleted, 0 when it did not, -1 when the key is absent.
    fn cmd_cad(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let [key, value] = args else {
            return Err(wrong_args(b"cad"));
        };
        match self.held(now_ms, db, key).0 {
            Held::Absent => Ok(Outcome::Int(-1)),
            Held::Str(s) if s.as_slice() == *value => {
                self.remove(now_ms, db, key);
                Ok(Outcome::Int(1))
            }
            Held::Str(_) => Ok(Outcome::Int(0)),
            Held::ExStr(..) | Held::Other => Err(wrongtype()),
        }
    }

    /// `CAS key oldvalue newvalue [EX|PX|EXAT|PXAT t] [KEEPTTL]` (plain
    /// strings): 1 when the value matched and was replaced, 0 when it did
    /// not, -1 when the key is absent. The TTL is the option's, else none.
    fn cmd_cas(&mut self, now_ms: i64, db: u32, args: &[&[u8]]) -> Result<Outcome, Outcome> {
        let [key, old, new, opts @ ..] = args else {
            return Err(wrong_args(b"cas"));
        };
        let o = parse_options(opts, Allow::default())?;
        let d = deadline(now_ms, o.expire)?;
        match self.held(now_ms, db, key).0 {
            Held::Absent => Ok(Outcome::Int(-1)),
            Held::Str(s) if s.as_slice() == *old => {
                self.put(db, key, Value::Str(new.to_vec()), d);
                Ok(Outcome::Int(1))
            }
            Held::Str(_) => Ok(Outcome::Int(0)),
            Held::ExStr(..) | Held::Other => Err(wrongtype()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `line`; a `SET`-like outcome without its old value (the tests
    /// check what was written).
    fn run(ks: &mut Keyspace, now: i64, line: &str) -> Outcome {
        let parts: Vec<&str> = line.split(' ').collect();
        match ks.apply(now, 0, parts[0].as_bytes(), &parts[1..]) {
            Outcome::Set { written, .. } => Outcome::Set { written, old: None },
            o => o,
        }
    }

    fn exget(ks: &mut Keyspace, now: i64, key: &str) -> Outcome {
        run(ks, now, &format!("EXGET {key}"))
    }

    fn pair(v: &str, n: i64) -> Outcome {
        Outcome::Array(vec![Outcome::Bulk(v.into()), Outcome::Int(n)])
    }

    const WRITTEN: Outcome = Outcome::Set {
        written: true,
        old: None,
    };
    const REFUSED: Outcome = Outcome::Set {
        written: false,
        old: None,
    };

    #[test]
    fn exset_nx_xx_versions_and_abs() {
        // The module README's EXSET example, reply for reply.
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "EXSET foo bar XX"), REFUSED);
        assert_eq!(run(&mut ks, 0, "EXSET foo bar NX"), WRITTEN);
        assert_eq!(run(&mut ks, 0, "EXSET foo bar NX"), REFUSED);
        assert_eq!(exget(&mut ks, 0, "foo"), pair("bar", 1));
        assert_eq!(
            run(&mut ks, 0, "EXSET foo bar1 VER 10"),
            Outcome::Stale { version: 1 }
        );
        assert_eq!(exget(&mut ks, 0, "foo"), pair("bar", 1));
        assert_eq!(run(&mut ks, 0, "EXSET foo bar1 VER 1"), WRITTEN);
        assert_eq!(exget(&mut ks, 0, "foo"), pair("bar1", 2));
        assert_eq!(run(&mut ks, 0, "EXSET foo bar2 ABS 100"), WRITTEN);
        assert_eq!(exget(&mut ks, 0, "foo"), pair("bar2", 100));
        // VER 0 checks nothing; VER on an absent key neither.
        assert_eq!(run(&mut ks, 0, "EXSET foo bar3 VER 0"), WRITTEN);
        assert_eq!(run(&mut ks, 0, "EXSET q v VER 5"), WRITTEN);
        assert_eq!(exget(&mut ks, 0, "q"), pair("v", 1));
        // The wrong-type rules both ways, and the syntax errors.
        assert_eq!(run(&mut ks, 0, "SET plain 1"), WRITTEN);
        assert_eq!(run(&mut ks, 0, "EXSET plain 2"), wrongtype());
        assert_eq!(run(&mut ks, 0, "EXGET plain"), wrongtype());
        assert_eq!(run(&mut ks, 0, "GET q"), wrongtype());
        for bad in [
            "EXSET q v NX XX",
            "EXSET q v PX 0",
            "EXSET q v PX",
            "EXSET q v PX 5 EX 1",
            "EXSET q v PX 5 KEEPTTL",
            "EXSET q v VER -1",
            "EXSET q v VER 1 ABS 2",
            "EXSET q v FROB",
        ] {
            assert_eq!(run(&mut ks, 0, bad), syntax(), "{bad}");
        }
    }

    #[test]
    fn exset_expiry_keepttl_and_absolute_times() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 1000, "EXSET k a NX PX 300"), WRITTEN);
        assert_eq!(run(&mut ks, 1100, "PTTL k"), Outcome::Int(200));
        assert_eq!(run(&mut ks, 1100, "EXSET k a XX KEEPTTL"), WRITTEN);
        assert_eq!(run(&mut ks, 1100, "PTTL k"), Outcome::Int(200));
        assert_eq!(run(&mut ks, 1100, "EXSET k a XX"), WRITTEN);
        assert_eq!(run(&mut ks, 1100, "PTTL k"), Outcome::Int(-1));
        assert_eq!(run(&mut ks, 1100, "EXSET k a EX 2"), WRITTEN);
        assert_eq!(run(&mut ks, 1100, "PTTL k"), Outcome::Int(2000));
        assert_eq!(run(&mut ks, 1100, "EXSET k a PXAT 5000"), WRITTEN);
        assert_eq!(run(&mut ks, 1100, "PTTL k"), Outcome::Int(3900));
        // An absolute time in the past expires the key now.
        assert_eq!(run(&mut ks, 1100, "EXSET k a EXAT 1"), WRITTEN);
        assert_eq!(run(&mut ks, 1101, "EXISTS k"), Outcome::Int(0));
    }

    #[test]
    fn excas_and_excad_compare_the_version() {
        // The README's EXCAS/EXCAD examples.
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "EXSET foo bar"), WRITTEN);
        assert_eq!(run(&mut ks, 0, "EXCAS foo bzz 1"), excas_ok(2));
        assert_eq!(exget(&mut ks, 0, "foo"), pair("bzz", 2));
        assert_eq!(
            run(&mut ks, 0, "EXCAS foo bee 1"),
            Outcome::Stale { version: 2 }
        );
        assert_eq!(run(&mut ks, 0, "EXCAS nokey v 1"), Outcome::Int(-1));
        assert_eq!(run(&mut ks, 0, "EXCAD nokey 1"), Outcome::Int(-1));
        assert_eq!(run(&mut ks, 0, "EXCAD nokey abc"), syntax());
        assert_eq!(run(&mut ks, 0, "EXCAD foo 0"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "EXCAD foo 2"), Outcome::Int(1));
        assert_eq!(exget(&mut ks, 0, "foo"), Outcome::Nil);
        // EXCAS keeps the TTL only with KEEPTTL.
        assert_eq!(run(&mut ks, 0, "EXSET e v PX 1000"), WRITTEN);
        assert_eq!(run(&mut ks, 10, "EXCAS e w 1 KEEPTTL"), excas_ok(2));
        assert_eq!(run(&mut ks, 10, "PTTL e"), Outcome::Int(990));
        assert_eq!(run(&mut ks, 10, "EXCAS e w 2"), excas_ok(3));
        assert_eq!(run(&mut ks, 10, "PTTL e"), Outcome::Int(-1));
        assert_eq!(
            run(&mut ks, 10, "EXCAS e w x"),
            Outcome::Error("ERR version should be integer".into())
        );
        assert_eq!(run(&mut ks, 10, "EXSETVER e 100"), Outcome::Int(1));
        assert_eq!(exget(&mut ks, 10, "e"), pair("w", 100));
        assert_eq!(run(&mut ks, 10, "EXSETVER nokey x"), Outcome::Int(0));
    }

    #[test]
    fn cas_and_cad_on_plain_strings() {
        // The module README's CAS/CAD examples; CAD on a TairString is a
        // wrong type (seen on the real module).
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "SET foo bar PX 500"), WRITTEN);
        assert_eq!(run(&mut ks, 0, "CAS foo baa bzz"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "CAS foo bar bzz PX 200"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "PTTL foo"), Outcome::Int(200));
        assert_eq!(run(&mut ks, 0, "CAS foo bzz bzz KEEPTTL"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "PTTL foo"), Outcome::Int(-1));
        assert_eq!(run(&mut ks, 0, "CAD foo bar"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "CAD not-exists xxx"), Outcome::Int(-1));
        assert_eq!(run(&mut ks, 0, "CAD foo bzz"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "GET foo"), Outcome::Nil);
        assert_eq!(run(&mut ks, 0, "EXSET t v"), WRITTEN);
        assert_eq!(run(&mut ks, 0, "CAD t v"), wrongtype());
        assert_eq!(run(&mut ks, 0, "CAS t v w"), wrongtype());
        assert_eq!(run(&mut ks, 0, "CAD t"), wrong_args(b"cad"));
    }

    #[test]
    fn exincrby_bounds_default_and_versions() {
        // The README's EXINCRBY examples, then the real module's replies.
        let mut ks = Keyspace::new();
        let overflow = Outcome::Error("ERR increment or decrement would overflow".into());
        assert_eq!(run(&mut ks, 0, "EXINCRBY foo 100"), Outcome::Int(100));
        assert_eq!(run(&mut ks, 0, "EXINCRBY foo 100 MAX 150"), overflow);
        assert_eq!(
            run(&mut ks, 0, "EXINCRBY foo 100 MAX 300"),
            Outcome::Int(200)
        );
        assert_eq!(run(&mut ks, 0, "EXINCRBY foo 100 MIN 500"), overflow);
        assert_eq!(
            run(&mut ks, 0, "EXINCRBY foo 100 MIN 500 MAX 100"),
            Outcome::Error("ERR min or max is specified, but not valid".into())
        );
        assert_eq!(
            run(&mut ks, 0, "EXINCRBY foo 100 MIN 50"),
            Outcome::Int(300)
        );
        assert_eq!(exget(&mut ks, 0, "foo"), pair("300", 3));
        assert_eq!(run(&mut ks, 0, "EXINCRBY s 5 DEF 7"), Outcome::Int(7));
        assert_eq!(
            run(&mut ks, 0, "EXINCRBY s -30 NONEGATIVE WITHVERSION"),
            Outcome::Array(vec![Outcome::Int(0), Outcome::Int(2)])
        );
        assert_eq!(
            run(&mut ks, 0, "EXINCRBY s 1 VER 1"),
            Outcome::Stale { version: 2 }
        );
        assert_eq!(run(&mut ks, 0, "EXINCRBY s x"), not_int_tair());
        assert_eq!(run(&mut ks, 0, "EXINCRBY n 1 XX"), Outcome::Nil);
    }

    fn not_int_tair() -> Outcome {
        Outcome::Error("ERR value is not an integer".into())
    }
}
