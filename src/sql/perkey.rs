//! The rules (docs/semantics.md §1–§6) for ClickHouse as one per-key
//! program: `GROUP BY` lock key gathers each key's rows into arrays
//! (`groupArray`, sorted by time, `seq`, holder and lifecycle), and array
//! functions compute the key's holds, lock ends, overlap pairs and
//! near-misses from them; an outer `ARRAY JOIN` turns each key's result
//! arrays into rows.
//!
//! Every step is per key, so on a table sharded by the key's hash each
//! shard computes its own keys (`--cluster`: `cluster(...)` read with
//! `distributed_group_by_no_merge`), and nothing but the results crosses
//! the network. No window function and no join: the program runs on
//! ClickHouse 18.16 as on today's releases. The steps mirror `rules.sql`
//! (DuckDB's window-function version); docs/sql.md walks through both.

use super::arrays::{
    NONE, count_below, ffill, ffill_at, filter, gather, group_first, group_last, int64s, named,
    next, positions, prev, repeat,
};
use std::collections::HashMap;

use super::{QuerySpec, Select};

/// Kind codes of the program's `k` array (0: not a lock event).
const KIND_CODES: [(&str, u8); 6] = [
    ("acquired", 1),
    ("renewed", 2),
    ("released", 3),
    ("release_failed", 4),
    ("lock_lost", 5),
    ("acquire_failed", 6),
];

/// Code of every other known kind (a line of the holder's work).
const OTHER_KIND: u8 = 7;

/// Code of a business event (stock, order: `EventKind::is_business`), a
/// line of the holder's work too.
pub(super) const BUSINESS_KIND: u8 = 8;

/// A step that exactly one later step reads, at most this many times, is
/// written out in that step instead of being a column of its own level
/// ([`Program::merged`]): a subquery level fewer, for a little more text.
const MERGE_MAX_USES: usize = 3;

/// The longest step (bytes of text) [`Program::merged`] writes out in the
/// step that reads it.
const MERGE_MAX_LEN: usize = 2000;

/// The program's steps, in order. A step (`def`) is a column of a subquery
/// level; an inline step (`inline`) is written out where it is used (a
/// field, a filter, a shift: cheap to compute again, and a level saved).
/// [`Program::nest`] places the steps on levels ([`levels`]).
#[derive(Default)]
struct Program {
    /// `(name, expression with the inline steps written out, comment)`.
    steps: Vec<(String, String, Option<String>)>,
    /// Inline steps: name -> expression.
    inline: HashMap<String, String>,
    /// The comment for the next step.
    note: Option<String>,
}

impl Program {
    /// A comment for the next step.
    fn note(&mut self, text: &str) {
        self.note = Some(text.to_string());
    }

    /// `expr` with every inline step it names written out, in parentheses.
    fn expand(&self, expr: &str) -> String {
        let mut out = String::with_capacity(expr.len());
        let mut rest = expr;
        while let Some((at, name)) = next_name(rest) {
            out.push_str(&rest[..at]);
            match self.inline.get(name) {
                Some(e) => {
                    out.push('(');
                    out.push_str(e);
                    out.push(')');
                }
                None => out.push_str(name),
            }
            rest = &rest[at + name.len()..];
        }
        out.push_str(rest);
        out
    }

    /// A step: a column of the level after every step it uses.
    fn def(&mut self, name: &str, expr: impl AsRef<str>) {
        let e = self.expand(expr.as_ref());
        self.steps.push((name.to_string(), e, self.note.take()));
    }

    /// An inline step: written out wherever a later step names it.
    fn inline(&mut self, name: &str, expr: impl AsRef<str>) {
        let e = self.expand(expr.as_ref());
        self.inline.insert(name.to_string(), e);
    }

    /// The steps with each step that exactly one later step reads (at most
    /// [`MERGE_MAX_USES`] times, in at most [`MERGE_MAX_LEN`] bytes) and
    /// the outer query does not written out in that step, in parentheses.
    fn merged(&self, outer: &str) -> Vec<(String, String, Option<String>)> {
        let outer_names = names_in(outer);
        // Step name -> the index of the step reading it, once per reading.
        let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
        for (j, (_, expr, _)) in self.steps.iter().enumerate() {
            for u in names_in(expr) {
                users.entry(u).or_default().push(j);
            }
        }
        let mut merged: HashMap<&str, String> = HashMap::new();
        let mut out = Vec::new();
        for (name, expr, note) in &self.steps {
            let e = substitute(expr, &merged);
            let one_reader = users
                .get(name.as_str())
                .is_some_and(|u| u.len() <= MERGE_MAX_USES && u.iter().all(|&j| j == u[0]));
            if one_reader && e.len() <= MERGE_MAX_LEN && !outer_names.contains(&name.as_str()) {
                merged.insert(name, e);
            } else {
                out.push((name.clone(), e, note.clone()));
            }
        }
        out
    }

    /// The program as nested SELECTs over `base` (which gives `_lr_key`
    /// and `_lr_rows`), for an outer query whose text is `outer`: each
    /// level passes on only what a later level reads. ClickHouse writes an
    /// alias out at each use within one SELECT, so a chain of steps in one
    /// SELECT grows exponentially (18.16: "AST is too big"); a subquery's
    /// columns are plain columns, and so are the elements an `ARRAY JOIN`
    /// joins out: each SELECT holds two levels, the lower one in its
    /// `ARRAY JOIN` (21 levels in 11 SELECTs; 18.16 plans the query about
    /// a quarter faster, docs/scale.md). Returns the nested text and the
    /// outer text with its inline steps written out.
    fn nest(&self, base: &str, outer: &str) -> (String, String) {
        let outer = self.expand(outer);
        let steps = self.merged(&outer);
        let outer_names = names_in(&outer);
        let level = levels(&steps, &outer_names);
        let top = level.values().copied().max().unwrap_or(0);
        let mut last_use: HashMap<&str, usize> = HashMap::new();
        for (name, expr, _) in &steps {
            for u in names_in(expr) {
                let e = last_use.entry(u).or_insert(0);
                *e = (*e).max(level[name.as_str()]);
            }
        }
        for u in outer_names {
            last_use.insert(u, top + 1);
        }
        let step_cols = |l: usize, wrap: bool| -> Vec<String> {
            let mut cols = Vec::new();
            for (name, expr, note) in &steps {
                if level.get(name.as_str()) == Some(&l) && last_use.contains_key(name.as_str()) {
                    let comment = note
                        .as_ref()
                        .map_or(String::new(), |c| format!("-- {c}\n  "));
                    if wrap {
                        cols.push(format!("{comment}[{expr}] AS {name}"));
                    } else {
                        cols.push(format!("{comment}{expr} AS {name}"));
                    }
                }
            }
            cols
        };
        let passed_at = |l: usize| -> Vec<String> {
            let mut passed: Vec<&str> = level
                .iter()
                .filter(|&(n, &d)| d < l && last_use.get(n).is_some_and(|&u| u > l))
                .map(|(n, _)| *n)
                .collect();
            passed.sort_unstable();
            passed.iter().map(|n| n.to_string()).collect()
        };
        // Two levels a SELECT: the lower one's steps as one-element arrays
        // joined out (`ARRAY JOIN [expr] AS name`, one row in, one row out),
        // the upper one's as its columns; 18.16 analyses a SELECT again for
        // every SELECT above it, not its ARRAY JOIN apart.
        let mut text = base.to_string();
        let mut l = 1;
        while l <= top {
            let joined = if l < top {
                step_cols(l, true)
            } else {
                Vec::new()
            };
            let mut cols = passed_at(l);
            if !joined.is_empty() {
                cols = passed_at(l + 1);
                cols.extend(step_cols(l + 1, false));
                text = format!(
                    "SELECT\n  {}\nFROM (\n{text}\n)\nARRAY JOIN\n  {}",
                    cols.join(",\n  "),
                    joined.join(",\n  ")
                );
                l += 2;
            } else {
                cols.extend(step_cols(l, false));
                text = format!("SELECT\n  {}\nFROM (\n{text}\n)", cols.join(",\n  "));
                l += 1;
            }
        }
        (text, outer)
    }
}

/// Each step's subquery level (`_lr_key` and `_lr_rows` are level 0, the
/// outer query reads level `top`): as few levels as the steps' chain
/// allows (a step at least one level above every step it uses), and each
/// step as high as it can go, one level below the first level that reads
/// it. ClickHouse 18.16 analyses a level once more for every level above
/// it (each level's sample block is an analysis of the whole subquery
/// below), so a step's planning costs in proportion to the levels above
/// it: a step read only near the top is computed near the top.
fn levels<'a>(
    steps: &'a [(String, String, Option<String>)],
    outer: &[&str],
) -> HashMap<&'a str, usize> {
    let mut level: HashMap<&str, usize> = HashMap::from([("_lr_key", 0), ("_lr_rows", 0)]);
    for (name, expr, _) in steps {
        let l = 1 + names_in(expr)
            .iter()
            .filter_map(|u| level.get(u))
            .max()
            .copied()
            .unwrap_or(0);
        level.insert(name, l);
    }
    let top = level.values().copied().max().unwrap_or(0);
    for (name, _, _) in steps.iter().rev() {
        let readers = steps
            .iter()
            .filter(|(_, e, _)| names_in(e).contains(&name.as_str()))
            .filter_map(|(n, _, _)| level.get(n.as_str()).copied());
        let outer_reads = outer.contains(&name.as_str()).then_some(top + 1);
        if let Some(first) = readers.chain(outer_reads).min() {
            level.insert(name, first - 1);
        }
    }
    level
}

/// `expr` with every step `merged` holds written out, in parentheses.
fn substitute(expr: &str, merged: &HashMap<&str, String>) -> String {
    let mut out = String::with_capacity(expr.len());
    let mut rest = expr;
    while let Some((at, name)) = next_name(rest) {
        out.push_str(&rest[..at]);
        match merged.get(name) {
            Some(m) => {
                out.push('(');
                out.push_str(m);
                out.push(')');
            }
            None => out.push_str(name),
        }
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

/// The first step name (`_lr_...`) in `text`: its offset and the name.
fn next_name(text: &str) -> Option<(usize, &str)> {
    let at = text.find("_lr_")?;
    let tail = &text[at..];
    let end = tail[4..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(tail.len(), |e| e + 4);
    Some((at, &tail[..end]))
}

/// The step names an expression uses.
fn names_in(expr: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some((at, name)) = next_name(rest) {
        out.push(name);
        rest = &rest[at + name.len()..];
    }
    out
}

/// A tuple field over the array of tuples `rows`: `tupleElement`, which
/// 18.16 applies to each element, not a lambda (planned about three times
/// as fast).
fn field(rows: &str, i: usize) -> String {
    format!("tupleElement({rows}, {i})")
}

/// A zip of `arrays` through the lambda `params -> body`.
fn zip(params: &str, body: &str, arrays: &[&str]) -> String {
    format!("arrayMap(({params}) -> {body}, {})", arrays.join(", "))
}

/// The query for `spec` (ClickHouse).
pub(super) fn generate(spec: &QuerySpec) -> String {
    let mut p = Program::default();
    rows(&mut p);
    holds(&mut p);
    hold_lines(&mut p, spec);
    chain(&mut p);
    lock_end(
        &mut p,
        "1",
        &prev(
            &zip("x, y", "if(x, y.1, 0)", &["_lr_klag", "_lr_klc"]),
            "toInt64(0)",
        ),
    );
    lock_end(
        &mut p,
        "2",
        &prev(
            &zip(
                "x, y, z",
                "if(x AND y, z.1, 0)",
                &["_lr_klag", "_lr_kea1", "_lr_klc"],
            ),
            "toInt64(0)",
        ),
    );
    outcome(&mut p);
    pairs(&mut p);
    near_misses(&mut p, spec);
    outputs(&mut p, spec);
    let head = format!(
        "-- lockreplay {}: docs/semantics.md §1-§6 as a ClickHouse per-key program over {}.\n\
         -- Generated by `lockreplay sql`; the steps are in docs/sql.md.\n",
        env!("CARGO_PKG_VERSION"),
        spec.table
    );
    head + &outer(spec, &p)
}

/// The fields of the row each key gathers, sorted: time, seq, holder,
/// lifecycle rank, kind code, TTL ms or -1, TTL unknown, release time ns,
/// deleted -1/0/1.
fn row_fields(spec: &QuerySpec) -> [String; 9] {
    let s = super::substitutions(spec);
    let get = |k: &str| {
        s.iter()
            .find(|(name, _)| *name == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let code = "_lr_code";
    let (ttl, tu, el) = (get("{{TTL}}"), get("{{TTL_UNKNOWN}}"), get("{{ELAPSED}}"));
    [
        format!("CAST({} AS Int64)", get("{{TS}}")),
        format!("CAST({} AS Int64)", get("{{SEQ}}")),
        format!(
            "ifNull(CAST({} AS Nullable(String)), '')",
            get("{{HOLDER}}")
        ),
        lifecycle_rank(code),
        code.to_string(),
        format!(
            "ifNull(if(CAST({ttl} AS Nullable(Int64)) >= 0, CAST({ttl} AS Nullable(Int64)), NULL), toInt64(-1))"
        ),
        format!("toInt64(ifNull(CAST({tu} AS Nullable(Int64)), 0))"),
        format!("if(ifNull({el}, 0) > 0, toInt64(round(ifNull({el}, 0) * 1000000)), toInt64(0))"),
        format!("toInt8(ifNull({}, -1))", get("{{DELETED}}")),
    ]
}

/// Each key's rows, sorted: every field gathered as an array of its own
/// type, then zipped into the rows' tuples. A `groupArray` of the tuples
/// themselves takes ClickHouse's generic path, each value written into the
/// aggregate's arena and read back (the `GROUP BY` level of a shard's 4 M
/// rows on 18.16: 1.20-1.38 s gathering tuples, 0.85-1.22 s zipping typed
/// arrays; docs/scale.md).
fn gathered_rows(spec: &QuerySpec) -> String {
    let fields = row_fields(spec);
    let names: Vec<String> = (1..=fields.len()).map(|i| format!("_lr_f{i}")).collect();
    let arrays: Vec<String> = fields.iter().map(|f| format!("groupArray({f})")).collect();
    format!(
        "arraySort(arrayMap(({n}) -> ({n}), {}))",
        arrays.join(", "),
        n = names.join(", ")
    )
}

/// The order of rows within one instant after time, as `ORDER BY` terms:
/// `seq` when the table has one, then holder, then acquire, renewal,
/// other lines, closing lines, then the kind (docs/sql.md). The program
/// sorts each key's rows the same way.
pub(super) fn tie_order(spec: &QuerySpec) -> String {
    let code = kind_code(spec);
    let mut parts = Vec::new();
    if let Some(seq) = &spec.columns.seq {
        parts.push(super::column(spec, seq));
    }
    parts.push(super::column(spec, &spec.columns.holder));
    parts.push(lifecycle_rank(&code));
    parts.push(code);
    parts.join(", ")
}

/// A row's place within one instant and holder by its kind code `code`:
/// acquire 0, renewal 1, other lines 2, closing lines (release, failed
/// release, lock lost) 3 (docs/sql.md).
fn lifecycle_rank(code: &str) -> String {
    format!("multiIf({code} = 1, 0, {code} = 2, 1, {code} >= 3 AND {code} <= 5, 3, 2)")
}

/// The event column as a kind code (§1): the mapping's names first, then
/// the canonical ones; 0 for anything else. The name is normalised as a
/// `LowCardinality` string, so that the two regular expressions run once
/// per distinct name rather than once per row (a shard's 4 M rows of the
/// 10 M simulator log on ClickHouse 18.16: 0.52 s for the code per row,
/// 0.09 s through the distinct names; docs/scale.md), and cast back to a
/// plain `String` before the lookup, so that the code is a plain `UInt8`.
pub(super) fn kind_code(spec: &QuerySpec) -> String {
    let col = super::column(spec, &spec.columns.event);
    let norm = format!(
        "CAST(replaceRegexpAll(replaceRegexpAll(lower(toLowCardinality(ifNull(CAST({col} AS Nullable(String)), ''))), '[-. _/:\\t]+', '_'), '^_|_$', '') AS String)"
    );
    let mut names: Vec<String> = Vec::new();
    let mut codes: Vec<u8> = Vec::new();
    let code_of = |k: crate::model::EventKind| {
        KIND_CODES.iter().find(|(n, _)| *n == k.as_str()).map_or(
            if k.is_business() {
                BUSINESS_KIND
            } else {
                OTHER_KIND
            },
            |c| c.1,
        )
    };
    let pairs = spec.events.iter().map(|(n, k)| (n.clone(), *k)).chain(
        crate::model::EventKind::ALL
            .iter()
            .map(|k| (k.as_str().to_string(), *k)),
    );
    for (name, kind) in pairs {
        if !names.contains(&name) {
            names.push(name);
            codes.push(code_of(kind));
        }
    }
    let lits: Vec<String> = names
        .iter()
        .map(|n| super::quote::sql_string(super::Dialect::Clickhouse, n))
        .collect();
    let codes: Vec<String> = codes.iter().map(u8::to_string).collect();
    format!(
        "transform({norm}, [{}], [{}], 0)",
        lits.join(", "),
        codes.join(", ")
    )
}

/// §1: the key's rows in order, and each row's live lock (`cur`: the key's
/// latest acquire) and hold (`hold`: its holder's latest acquire), as
/// positions (0: none).
fn rows(p: &mut Program) {
    // The rows' fields as arrays of their own, so the rows (holder names
    // among them) are not carried past this level.
    p.note("§1 the key's rows in order: time, seq, holder, then acquire, renewal, other lines, closing lines");
    for (i, name) in [
        (1, "_lr_t"),
        (5, "_lr_k"),
        (6, "_lr_ttl"),
        (7, "_lr_tu"),
        (8, "_lr_el"),
        (9, "_lr_dl"),
    ] {
        p.def(name, field("_lr_rows", i));
    }
    p.def(
        "_lr_hid",
        int64s(&format!("arrayEnumerateDense({})", field("_lr_rows", 3))),
    );
    p.def("_lr_kname", field("arrayFilter(x -> x.5 = 1, _lr_rows)", 3));
    // Read by most later steps: columns of their own, so the query does
    // not repeat their text at each use (planning grows with it).
    p.def("_lr_n", "toInt64(length(_lr_rows))");
    p.def("_lr_p", positions("_lr_rows"));
    p.def("_lr_a", "arrayMap(x -> x.5 = 1, _lr_rows)");
    p.inline(
        "_lr_del",
        zip("x, y", "x = 3 AND y != 0", &["_lr_k", "_lr_dl"]),
    );
    p.inline("_lr_re", next("_lr_a", "1"));
    p.note("§1 each row's live lock: the key's latest acquire");
    p.def("_lr_cur", ffill("_lr_p", "_lr_a", "_lr_n", "toInt64(0)"));
    p.note(
        "each row's hold: its holder's latest acquire (rows by holder, then back in time order)",
    );
    // (holder, position, is acquire) as one Int64, sorted: rows by holder.
    p.def(
        "_lr_hrows",
        "arraySort(arrayMap((x, y, z) -> (x * 4294967296 + y) * 2 + z, _lr_hid, _lr_p, _lr_a))",
    );
    p.inline("_lr_hh", "arrayMap(x -> intDiv(x, 8589934592), _lr_hrows)");
    p.inline(
        "_lr_hp",
        "arrayMap(x -> intDiv(x, 2) % 4294967296, _lr_hrows)",
    );
    p.inline("_lr_ha", "arrayMap(x -> x % 2 = 1, _lr_hrows)");
    p.inline(
        "_lr_hs",
        zip(
            "x, y",
            "y = 1 OR x != 0",
            &["arrayDifference(_lr_hh)", "arrayEnumerate(_lr_hh)"],
        ),
    );
    p.def(
        "_lr_hold",
        format!(
            "arraySort((x, y) -> y, {}, _lr_hp)",
            ffill(
                "arrayMap((x, y) -> if(y, x, 0), _lr_hp, _lr_ha)",
                "arrayMap((x, y) -> x OR y, _lr_ha, _lr_hs)",
                "_lr_n",
                "toInt64(0)"
            ),
        ),
    );
}

/// §2: one element per hold (acquire order): its acquire and the next
/// acquire on the key; and the segment order: each hold's rows together,
/// acquire first.
fn holds(p: &mut Program) {
    for (name, src) in [
        ("_lr_kp", "_lr_p"),
        ("_lr_kt", "_lr_t"),
        ("_lr_kttl", "_lr_ttl"),
        ("_lr_ktu", "_lr_tu"),
        ("_lr_khid", "_lr_hid"),
    ] {
        if matches!(name, "_lr_kttl" | "_lr_ktu") {
            p.inline(name, filter(src, "_lr_a"));
        } else {
            p.def(name, filter(src, "_lr_a"));
        }
    }
    p.def("_lr_m", "toInt64(length(_lr_kp))");
    p.inline("_lr_knp", next("_lr_kp", "toInt64(0)"));
    p.inline("_lr_knt", next("_lr_kt", NONE));
    p.note("§2 each hold's rows together (segments), acquire first");
    let in_hold = "arrayMap(x -> x > 0, _lr_hold)";
    p.def(
        "_lr_srows",
        format!(
            "arraySort((x, y) -> y, {}, {})",
            filter(
                &zip(
                    "a, b, c, d, e, f, g",
                    "(a, b, c, d, e, f, g)",
                    &[
                        "_lr_hold", "_lr_p", "_lr_t", "_lr_k", "_lr_ttl", "_lr_el", "_lr_del"
                    ]
                ),
                in_hold
            ),
            filter(
                "arrayMap((x, y) -> x * 4294967296 + y, _lr_hold, _lr_p)",
                in_hold
            )
        ),
    );
    for (i, name) in [
        (1, "_lr_sh"),
        (2, "_lr_sp"),
        (3, "_lr_st"),
        (4, "_lr_sk"),
        (5, "_lr_sttl"),
        (6, "_lr_sel"),
        (7, "_lr_sdel"),
    ] {
        if matches!(name, "_lr_sp" | "_lr_sk") {
            p.def(name, field("_lr_srows", i));
        } else {
            p.inline(name, field("_lr_srows", i));
        }
    }
    p.inline("_lr_sn", "toInt64(length(_lr_srows))");
    // The segments' starts, their positions and each row's segment number
    // are read by most per-hold steps: columns of their own, so the query
    // does not repeat their text at each use (planning grows with it).
    p.note("each segment's first row, its position, each row's segment (hold) number");
    p.def(
        "_lr_ss",
        zip(
            "x, y",
            "y = 1 OR x != 0",
            &["arrayDifference(_lr_sh)", "arrayEnumerate(_lr_sh)"],
        ),
    );
    p.def("_lr_ssp", filter(&positions("_lr_sh"), "_lr_ss"));
    p.def("_lr_sidx", int64s("arrayCumSum(_lr_ss)"));
    p.def("_lr_sc", "arrayMap(x -> x.4 >= 3 AND x.4 <= 5, _lr_srows)");
}

/// §2 and §4 per hold, from its segment: its first closing line, the TTL
/// of its first renewal that has one, its last line, its log-lag release,
/// its lease TTL and its believed window's end.
fn hold_lines(p: &mut Program, spec: &QuerySpec) {
    let first = |v: &str, m: &str, d: &str| group_first(v, m, "_lr_sidx", "_lr_m", d);
    p.note("§2 per hold: its first closing line (position, when the release began, kind)");
    p.def(
        "_lr_kclose",
        first(
            &zip(
                "x, y, z, w",
                "(x, y - z, toInt64(w))",
                &["_lr_sp", "_lr_st", "_lr_sel", "_lr_sk"],
            ),
            "_lr_sc",
            &format!("(toInt64(0), {NONE}, toInt64(0))"),
        ),
    );
    p.def(
        "_lr_kttlr",
        first(
            "_lr_sttl",
            &zip("x, y", "x = 2 AND y >= 0", &["_lr_sk", "_lr_sttl"]),
            "toInt64(-1)",
        ),
    );
    p.def(
        "_lr_klast",
        group_last(
            "_lr_st",
            "arrayMap(x -> x != 6, _lr_sk)",
            "_lr_sidx",
            "_lr_m",
            NONE,
        ),
    );
    p.note("each segment row: its hold's next acquire on the key");
    p.def(
        "_lr_snp",
        ffill_at("_lr_knp", "_lr_ssp", "_lr_sn", "toInt64(0)"),
    );
    let after = |m: &str| {
        zip(
            "x, y, z",
            "x AND z > 0 AND y > z",
            &[m, "_lr_sp", "_lr_snp"],
        )
    };
    p.note("§4 log lag: the hold's first closing line after the next acquire on the key, a delete within the tolerance");
    p.def(
        "_lr_klc",
        first(
            &zip("x, y", "(x, y)", &["_lr_sp", "_lr_st"]),
            &after("_lr_sc"),
            &format!("(toInt64(0), {NONE})"),
        ),
    );
    p.def(
        "_lr_kldp",
        first("_lr_sp", &after("_lr_sdel"), "toInt64(0)"),
    );
    let tol = (spec.log_lag_ms * 1e6).round() as i64;
    p.inline(
        "_lr_klag",
        zip(
            "a, b, c",
            &format!("a.1 > 0 AND a.1 = b AND a.2 - c <= {tol}"),
            &["_lr_klc", "_lr_kldp", "_lr_knt"],
        ),
    );
    p.inline(
        "_lr_klease",
        zip("x, y", "if(x >= 0, x, y)", &["_lr_kttl", "_lr_kttlr"]),
    );
    p.def(
        "_lr_kwend",
        zip(
            "a, b, c",
            "if(a.1 > 0, greatest(a.2, b), c)",
            &["_lr_kclose", "_lr_kt", "_lr_klast"],
        ),
    );
}

/// §3: the lease of the live lock at each row: its holder's acquire and
/// renewals (not ghosts), each counted while it came before the expiry the
/// one before it set (a lease covers [t, t + d)), as (expiry, grant time).
fn chain(p: &mut Program) {
    // Each segment row: its hold's first closing line (position, kind) and lease TTL.
    p.inline(
        "_lr_sb",
        ffill_at(
            "arrayMap((x, y) -> (x.1, x.3, y), _lr_kclose, _lr_klease)",
            "_lr_ssp",
            "_lr_sn",
            "(toInt64(0), toInt64(0), toInt64(-1))",
        ),
    );
    p.inline("_lr_scp", field("_lr_sb", 1));
    p.inline("_lr_sck", field("_lr_sb", 2));
    p.inline("_lr_slease", field("_lr_sb", 3));
    p.inline(
        "_lr_sttle",
        zip(
            "a, b, c",
            "if(a, b, if(b >= 0, b, c))",
            &["_lr_ss", "_lr_sttl", "_lr_slease"],
        ),
    );
    p.note("§3 the lease: acquire and renewals (a renewal after the holder's own release is a ghost), their expiries");
    p.def(
        "_lr_sgx",
        zip(
            "a, b, c, d, e, f, g",
            &format!(
                "arrayMap(x -> (x, if(x, if(g >= 0, f + g * 1000000, {NONE}), {NONE})), [a OR (b = 2 AND NOT (e = 3 AND d > 0 AND c > d))])[1]"
            ),
            &["_lr_ss", "_lr_sk", "_lr_sp", "_lr_scp", "_lr_sck", "_lr_st", "_lr_sttle"],
        ),
    );
    p.inline("_lr_sg", field("_lr_sgx", 1));
    p.inline("_lr_sx", field("_lr_sgx", 2));
    p.note("§3 each grant is counted while it comes before the expiry of the one before it (t < expiry)");
    p.def(
        "_lr_scum",
        int64s(&format!(
            "arrayCumSum({})",
            zip(
                "a, b, c, d",
                &format!("b AND NOT a AND d != {NONE} AND c >= d"),
                &[
                    "_lr_ss",
                    "_lr_sg",
                    "_lr_st",
                    &prev(&ffill("_lr_sx", "_lr_sg", "_lr_sn", NONE), NONE)
                ],
            )
        )),
    );
    p.def(
        "_lr_gtime",
        format!(
            "arraySort(x -> x.1, {})",
            zip(
                "a, b, c, d, e",
                "(a, b AND c = d, e)",
                &[
                    "_lr_sp",
                    "_lr_sg",
                    "_lr_scum",
                    &ffill("_lr_scum", "_lr_ss", "_lr_sn", "toInt64(0)"),
                    "_lr_sx"
                ],
            )
        ),
    );
    p.note("each row in time order: whether it is a counted grant, and its expiry");
    p.def(
        "_lr_rg",
        ffill_at(
            "_lr_gtime",
            &field("_lr_gtime", 1),
            "_lr_n",
            &format!("(toInt64(0), 0, {NONE})"),
        ),
    );
    live_lease(p);
}

/// §3 the live lock's expiry and last grant as of each row, and each lock's
/// lease as of its segment's last row (the rows [`chain`] counted).
fn live_lease(p: &mut Program) {
    p.note("§3 the live lock's expiry and last grant as of each row");
    p.def(
        "_lr_rcur",
        ffill(
            &zip("x, y", "(x.3, y)", &["_lr_rg", "_lr_t"]),
            &zip(
                "a, b, c, d",
                "a.1 = b AND a.2 AND c = d",
                &["_lr_rg", "_lr_p", "_lr_hold", "_lr_cur"],
            ),
            "_lr_n",
            &format!("({NONE}, {NONE})"),
        ),
    );
    p.note("§3 per lock: the lease as of its segment's last row");
    p.def(
        "_lr_klastg",
        filter(
            "_lr_rcur",
            &zip("x, y", "x AND y > 0", &["_lr_re", "_lr_cur"]),
        ),
    );
}

/// §3 how each lock ends, pass `k` (`abs`: per hold, the release line a
/// log-lag hand-off absorbs, 0 none): at the first of the next acquire on
/// the key, a delete while it is live, or the expiry of the lease as
/// counted before then.
fn lock_end(p: &mut Program, k: &str, abs: &str) {
    let v = |s: &str| format!("_lr_{s}{k}");
    p.note(&format!(
        "§3 pass {k}: deletes that may end the live lock (its holder's, or another's that has a hold or says it deleted)"
    ));
    p.def(
        &v("cand"),
        zip(
            "a, b, c, d, e, f",
            "a AND b > 0 AND (c > 0 OR d = 1) AND e != f",
            &[
                "_lr_del",
                "_lr_cur",
                "_lr_hold",
                "_lr_dl",
                "_lr_p",
                &ffill_at(abs, "_lr_kp", "_lr_n", "toInt64(0)"),
            ],
        ),
    );
    let none5 = format!("(toInt64(0), {NONE}, toInt64(0), {NONE}, {NONE})");
    p.note(&format!(
        "§3 pass {k}: per lock, its first such delete (position, time, holder, the lease as of then)"
    ));
    p.def(
        &v("kfc"),
        group_first(
            &zip(
                "a, b, c, d",
                "(a, b, c, d.1, d.2)",
                &["_lr_p", "_lr_t", "_lr_hid", "_lr_rcur"],
            ),
            &v("cand"),
            &int64s("arrayCumSum(_lr_a)"),
            "_lr_m",
            &none5,
        ),
    );
    p.inline(
        &v("kexp"),
        zip("x, y", "if(x.1 > 0, x.4, y.1)", &[&v("kfc"), "_lr_klastg"]),
    );
    p.inline(
        &v("kgt"),
        zip("x, y", "if(x.1 > 0, x.5, y.2)", &[&v("kfc"), "_lr_klastg"]),
    );
    p.inline(
        &v("ked"),
        zip(
            "x, y",
            &format!("x.1 > 0 AND (y = {NONE} OR x.2 < y)"),
            &[&v("kfc"), &v("kexp")],
        ),
    );
    p.inline(
        &v("kea"),
        zip(
            "a, b, c, d",
            &format!("a.1 = 0 AND b > 0 AND (d = {NONE} OR c < d)"),
            &[&v("kfc"), "_lr_knp", "_lr_knt", &v("kexp")],
        ),
    );
    p.inline(
        &v("kct"),
        zip("x, y", "if(x.1 > 0, x.2, y)", &[&v("kfc"), "_lr_knt"]),
    );
}

/// How each hold's lock ended (pass 2) and when: 1 reacquired, 2 own
/// release, 3 unknown, 4 vanished, 5 foreign release, 6 expired, 7 still
/// held.
fn outcome(p: &mut Program) {
    let code = format!(
        "multiIf(a AND c = d, 1, a AND e, 2, a AND f = 1, 3, a, 4, b AND g.3 = d, 2, b, 5, h != {NONE}, 6, 7)"
    );
    p.note("§3 per hold: how its lock ended, when, and its last grant");
    p.def(
        "_lr_kout",
        zip(
            "a, b, c, d, e, f, g, h, i, j, k",
            &format!("({code}, multiIf({code} <= 5, i, {code} = 6, h, j), k)"),
            &[
                "_lr_kea2",
                "_lr_ked2",
                &next("_lr_khid", "toInt64(0)"),
                "_lr_khid",
                "_lr_klag",
                "_lr_ktu",
                "_lr_kfc2",
                "_lr_kexp2",
                "_lr_kct2",
                "_lr_kwend",
                "_lr_kgt2",
            ],
        ),
    );
}

/// §4: zombies (a lock ended with a cause while its holder still worked)
/// and the overlap pairs: the later acquires of other holders inside a
/// zombie's window, found by counting acquires below the window's bounds.
fn pairs(p: &mut Program) {
    p.inline(
        "_lr_kz",
        zip(
            "x, y",
            "x.1 >= 3 AND x.1 <= 6 AND x.2 < y",
            &["_lr_kout", "_lr_kwend"],
        ),
    );
    for (name, src) in [
        ("_lr_zi", positions("_lr_kp")),
        ("_lr_zw", "_lr_kwend".to_string()),
        ("_lr_zh", "_lr_khid".to_string()),
        ("_lr_zname", "_lr_kname".to_string()),
        ("_lr_ze", field("_lr_kout", 1)),
    ] {
        p.inline(name, filter(&src, "_lr_kz"));
    }
    p.note("§4 zombies: a lock ended with a cause while its holder still believed it held it; the later acquires in its window");
    p.def(
        "_lr_zr",
        zip(
            "x, y, z",
            "(greatest(x + 1, y + 1), greatest(z - greatest(x + 1, y + 1) + 1, 0))",
            &[
                "_lr_zi",
                &count_below("_lr_kt", &filter(&field("_lr_kout", 2), "_lr_kz")),
                &count_below("_lr_kt", "_lr_zw"),
            ],
        ),
    );
    p.inline("_lr_zc", field("_lr_zr", 2));
    p.note("§4 candidate pairs: (zombie, later hold)");
    p.def(
        "_lr_pc",
        crate::sql::arrays::flatten(
            "arrayMap((x, y) -> arrayMap(z -> (x, toInt64(z) + y.1), range(toUInt64(y.2))), _lr_zi, _lr_zr)",
        ),
    );
    p.def(
        "_lr_plater",
        gather(
            "arrayMap((a, b, c, d) -> (a, b, c, d), _lr_khid, _lr_kname, _lr_kwend, _lr_kt)",
            &field("_lr_pc", 2),
            "_lr_m",
        ),
    );
    p.note("§4 overlap pairs: other holders only: (earlier, later, start, end, cause code, earlier hold, later hold)");
    p.def(
        "_lr_pairs",
        filter(
            &zip(
                "a, b, c, d, e, f",
                "(a, f.2, f.4, least(b, f.3), c, e.1, e.2)",
                &[
                    &repeat("_lr_zname", "_lr_zc"),
                    &repeat("_lr_zw", "_lr_zc"),
                    &repeat("_lr_ze", "_lr_zc"),
                    &repeat("_lr_zh", "_lr_zc"),
                    "_lr_pc",
                    "_lr_plater",
                ],
            ),
            &zip(
                "x, y",
                "x != y.1",
                &[&repeat("_lr_zh", "_lr_zc"), "_lr_plater"],
            ),
        ),
    );
}

/// §6: near-misses (a hold in no overlap whose time since its last grant
/// reached the ratio of its TTL) and their streaks, per key in acquire
/// order.
fn near_misses(p: &mut Program, spec: &QuerySpec) {
    p.note("§6 the holds in an overlap pair");
    p.def(
        "_lr_kin",
        named(
            "arrayConcat(tupleElement(_lr_pairs, 6), tupleElement(_lr_pairs, 7))",
            "_lr_m",
        ),
    );
    p.inline("_lr_nmask", "arrayMap(x -> x > 0, _lr_klease)");
    for (name, src) in [
        ("_lr_nname", "_lr_kname".to_string()),
        ("_lr_nt", "_lr_kt".to_string()),
        ("_lr_nw", "_lr_kwend".to_string()),
        ("_lr_ng", field("_lr_kout", 3)),
        ("_lr_nl", "_lr_klease".to_string()),
        ("_lr_nin", "_lr_kin".to_string()),
    ] {
        p.inline(name, filter(&src, "_lr_nmask"));
    }
    p.def(
        "_lr_nnear",
        zip(
            "a, b, c, d",
            &format!(
                "(a - b) / 1000000.0 >= {} * c AND NOT d",
                spec.near_miss_ratio
            ),
            &["_lr_nw", "_lr_ng", "_lr_nl", "_lr_nin"],
        ),
    );
    p.note("§6 near-misses: holds in no pair whose time since the last grant reached the ratio of the TTL; runs of them");
    p.def(
        "_lr_near",
        zip(
            "a, b, c, d, e, f, g, h",
            "(a, b, (b - c) / 1000000.0, d, if(d, e - f, 0), g, toString(h))",
            &[
                "_lr_nname",
                "_lr_nw",
                "_lr_ng",
                "_lr_nnear",
                &positions("_lr_nnear"),
                &ffill(
                    &positions("_lr_nnear"),
                    "arrayMap(x -> NOT x, _lr_nnear)",
                    "toInt64(length(_lr_nnear))",
                    "toInt64(0)",
                ),
                "_lr_nt",
                "_lr_nl",
            ],
        ),
    );
}

/// The name of a lock end code (§3).
const LOCK_END_NAMES: &str = "multiIf(x = 1, 'reacquired', x = 2, 'own_release', x = 3, 'unknown', x = 4, 'vanished', x = 5, 'foreign_release', x = 6, 'expired', 'still_held')";

/// The per-key result arrays the final SELECT reads (inline):
/// `_lr_out_pairs` (earlier, later, start, end, cause), `_lr_out_near`
/// (holder, window end, ms used, near, run, acquired, TTL),
/// `_lr_out_streak`, `_lr_out_holds`; only those whose instant is in the
/// slice, when there is one.
fn outputs(p: &mut Program, spec: &QuerySpec) {
    let anchor = |t: &str| match spec.slice {
        Some(s) => format!("{t} >= {} AND {t} < {}", s.lo_ns, s.hi_ns),
        None => "1".to_string(),
    };
    p.inline(
        "_lr_out_pairs",
        format!(
            "arrayFilter(x -> {}, arrayMap(x -> (x.1, x.2, x.3, x.4, multiIf(x.5 = 6, 'lease_expired', x.5 = 5, 'foreign_release', \
             x.5 = 4, 'lock_vanished', 'ttl_unknown')), _lr_pairs))",
            anchor("x.3")
        ),
    );
    p.inline(
        "_lr_out_near",
        format!("arrayFilter(x -> x.4 AND {}, _lr_near)", anchor("x.6")),
    );
    p.inline(
        "_lr_out_streak",
        format!(
            "arrayFilter(x -> x.5 = {}, _lr_out_near)",
            spec.near_miss_streak.max(1)
        ),
    );
    p.inline(
        "_lr_out_holds",
        format!(
            "arrayFilter(x -> {}, arrayMap((a, b, c, d, e, f) -> (a, b, c, d, arrayMap(x -> {LOCK_END_NAMES}, [e.1])[1], e.2, e.3), \
             _lr_kname, _lr_kt, _lr_kwend, _lr_klease, _lr_kout, _lr_kout))",
            anchor("x.2")
        ),
    );
}

/// The outer query: the per-key program grouped by key over the table,
/// its result arrays joined out into rows.
fn outer(spec: &QuerySpec, p: &Program) -> String {
    let key = super::column(spec, &spec.columns.key);
    let holder = super::column(spec, &spec.columns.holder);
    let ts = super::time_expr(spec);
    let mut filter = format!(
        "{key} IS NOT NULL AND {holder} IS NOT NULL AND ({} AS _lr_code) != 0",
        kind_code(spec)
    );
    if let Some(f) = &spec.filter {
        filter.push_str(&format!(" AND ({f})"));
    }
    if let Some(s) = spec.slice {
        filter.push_str(&format!(
            " AND ({ts}) >= {} AND ({ts}) < {}",
            s.lo_ns.saturating_sub(s.carry_ns),
            s.hi_ns.saturating_add(s.carry_ns)
        ));
    }
    let base = format!(
        "SELECT CAST({key} AS String) AS _lr_key, {} AS _lr_rows\nFROM {}\nWHERE {filter}\nGROUP BY _lr_key",
        gathered_rows(spec),
        spec.table
    );
    let (select, tail) = final_select(spec);
    let (inner, outer) = p.nest(&base, &format!("{select}\nFROM (\n@INNER@\n) AS k\n{tail}"));
    outer.replacen("@INNER@", &inner, 1)
}

/// The final SELECT's columns and what follows its FROM, for
/// [`Select`]: the per-key result arrays joined out into rows.
fn final_select(spec: &QuerySpec) -> (String, String) {
    let all = spec.select == Select::All;
    let cat = |pairs: &str, nm: &str, st: &str| {
        if all {
            format!("arrayConcat({pairs}, {nm}, {st})")
        } else {
            pairs.to_string()
        }
    };
    match spec.select {
        Select::All | Select::Overlaps => (
            "SELECT row_kind, _lr_key AS key, holder, other, at_ns, duration_ms, detail".to_string(),
            format!(
                "ARRAY JOIN\n  {} AS row_kind,\n  {} AS holder,\n  {} AS other,\n  {} AS at_ns,\n  {} AS duration_ms,\n  {} AS detail\n\
                 ORDER BY row_kind, key, at_ns, holder, other\n",
                cat(
                    "arrayMap(x -> 'overlap', _lr_out_pairs)",
                    "arrayMap(x -> 'near_miss', _lr_out_near)",
                    "arrayMap(x -> 'near_miss_streak', _lr_out_streak)"
                ),
                cat(
                    "tupleElement(_lr_out_pairs, 1)",
                    "tupleElement(_lr_out_near, 1)",
                    "tupleElement(_lr_out_streak, 1)"
                ),
                cat(
                    "tupleElement(_lr_out_pairs, 2)",
                    "arrayMap(x -> '', _lr_out_near)",
                    "arrayMap(x -> '', _lr_out_streak)"
                ),
                cat(
                    "tupleElement(_lr_out_pairs, 3)",
                    "tupleElement(_lr_out_near, 2)",
                    "tupleElement(_lr_out_streak, 2)"
                ),
                cat(
                    "arrayMap(x -> (x.4 - x.3) / 1000000.0, _lr_out_pairs)",
                    "tupleElement(_lr_out_near, 3)",
                    "tupleElement(_lr_out_streak, 3)"
                ),
                cat(
                    "tupleElement(_lr_out_pairs, 5)",
                    "tupleElement(_lr_out_near, 7)",
                    "arrayMap(x -> toString(x.5), _lr_out_streak)"
                ),
            ),
        ),
        Select::Holds => (
            "SELECT _lr_key AS key, h.1 AS holder, h.2 AS acquired_ns, h.3 AS window_end_ns, \
             if(h.4 >= 0, toNullable(h.4), NULL) AS ttl_ms, h.5 AS lock_end, h.6 AS lock_end_ns, h.7 AS last_grant_ns"
                .to_string(),
            "ARRAY JOIN _lr_out_holds AS h\nORDER BY key, acquired_ns, holder\n".to_string(),
        ),
        Select::Keys => (
            "SELECT _lr_key AS key, toInt64(length(_lr_out_pairs)) AS pairs, \
             arrayReduce('min', tupleElement(_lr_out_pairs, 3)) AS first_ns, \
             arrayReduce('max', tupleElement(_lr_out_pairs, 4)) AS last_ns, \
             arrayReduce('min', tupleElement(_lr_out_pairs, 5)) AS cause"
                .to_string(),
            "WHERE pairs > 0\nORDER BY pairs DESC, key\n".to_string(),
        ),
        Select::Alerts => (
            "SELECT a.1 AS row_kind, _lr_key AS key, a.2 AS n, a.3 AS first_ns".to_string(),
            "ARRAY JOIN [('overlap', toInt64(length(_lr_out_pairs)), arrayReduce('min', tupleElement(_lr_out_pairs, 3))), \
             ('near_miss_streak', toInt64(length(_lr_out_streak)), arrayReduce('min', tupleElement(_lr_out_streak, 2)))] AS a\n\
             WHERE n > 0\nORDER BY row_kind, key\n"
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::Dialect;

    /// 18.16 plans a SELECT again for every SELECT above it and a lambda
    /// about three times as long as a function (docs/scale.md): the
    /// program's 21 levels sit two to a SELECT, and no lambda only reads a
    /// tuple field or converts to Int64.
    #[test]
    fn the_program_holds_two_levels_a_select_and_no_field_or_cast_lambdas() {
        for select in [
            Select::All,
            Select::Overlaps,
            Select::Holds,
            Select::Keys,
            Select::Alerts,
        ] {
            let mut spec = QuerySpec::new(Dialect::Clickhouse, "events");
            spec.select = select;
            let sql = generate(&spec);
            let selects = sql.matches("FROM (\n").count();
            let joins = sql.matches(")\nARRAY JOIN\n  ").count();
            assert!(selects <= 12, "{selects} nested SELECTs:\n{sql}");
            assert!(joins + 1 >= selects - 1, "{joins} ARRAY JOINs:\n{sql}");
            for lambda in [
                "arrayMap(x -> toInt64(x)",
                "arrayMap(x -> x.1,",
                "arrayMap(x -> x.3,",
            ] {
                assert!(!sql.contains(lambda), "{lambda} in:\n{sql}");
            }
        }
    }
}
