//! Array building blocks of the ClickHouse per-key program
//! ([`super::perkey`]): forward and backward fills, segment firsts and
//! lasts, shifts, counting and gathering, each written as ClickHouse SQL
//! over whole arrays.
//!
//! Every block is O(n) or one sort, and none captures an array in a
//! lambda: ClickHouse replicates a captured column once per element of
//! the array a lambda runs over, so `arrayMap(i -> a[i], ...)` over a
//! key of n rows costs n² (measured on 18.16: 40 000 rows, 12 s). Lambdas
//! here take their arrays as arguments (zipped, equal lengths) and capture
//! only scalars. The functions used all exist in ClickHouse 18.16
//! (Debian's package) and in today's releases.

/// Int64 "no time" (no expiry, no next acquire): below every real time.
pub(super) const NONE: &str = "toInt64(-9223372036854775807)";

/// `arr`'s elements where `mask` is true.
pub(super) fn filter(arr: &str, mask: &str) -> String {
    format!("arrayFilter((x, y) -> y, {arr}, {mask})")
}

/// Element i is `arr[i + 1]`; the last is `d` (empty stays empty).
pub(super) fn next(arr: &str, d: &str) -> String {
    format!("arraySlice(arrayPushBack(arrayPopFront({arr}), {d}), 1, length({arr}))")
}

/// Element i is `arr[i - 1]`; the first is `d` (empty stays empty).
pub(super) fn prev(arr: &str, d: &str) -> String {
    format!("arraySlice(arrayPushFront(arrayPopBack({arr}), {d}), 1, length({arr}))")
}

/// 1, 2, ... as Int64, one per element of `arr`.
pub(super) fn positions(arr: &str) -> String {
    int64s(&format!("arrayEnumerate({arr})"))
}

/// An array of integers as `Array(Int64)`: a `CAST`, not a lambda
/// (18.16 plans a lambda about three times as long as a function).
pub(super) fn int64s(arr: &str) -> String {
    format!("CAST({arr} AS Array(Int64))")
}

/// An Int64 zero for each element of `arr`, without a lambda.
pub(super) fn zeros(arr: &str) -> String {
    format!("arrayResize(emptyArrayInt64(), length({arr}), toInt64(0))")
}

/// An array of arrays made one: `arrayReduce('groupArrayArray', ...)`
/// (`arrayFlatten` is younger than 18.16).
pub(super) fn flatten(arr: &str) -> String {
    format!("arrayReduce('groupArrayArray', {arr})")
}

/// Each `vals[k]` repeated `counts[k]` times, in order.
pub(super) fn repeat(vals: &str, counts: &str) -> String {
    flatten(&format!(
        "arrayMap((x, y) -> arrayResize([x], y, x), {vals}, {counts})"
    ))
}

/// A forward fill of length `n` from values `cv` placed at the increasing
/// 1-based positions `pm` (Int64): element i is the value at the last
/// position <= i, `d` before the first. Expands each value over its run
/// (the distance to the next position): O(n), no sort.
pub(super) fn ffill_at(cv: &str, pm: &str, n: &str, d: &str) -> String {
    format!(
        "arrayConcat(arrayResize([{d}], if(empty({pm}), {n}, {pm}[1] - 1), {d}), {})",
        repeat(
            cv,
            &format!("arrayPopFront(arrayDifference(arrayPushBack({pm}, {n} + 1)))")
        )
    )
}

/// Forward fill of `v` (length `n`): element i is `v` at the last marked
/// position <= i (`m` true), `d` before the first mark.
pub(super) fn ffill(v: &str, m: &str, n: &str, d: &str) -> String {
    ffill_at(&filter(v, m), &filter(&positions(v), m), n, d)
}

/// One element per group, groups 1..=`m` (`g`: each row's group number,
/// non-decreasing; rows of group 0 belong to none): `v` at the group's
/// first row where `mk` holds, else `d`. Only the marked rows are handled
/// (compacted), then placed.
pub(super) fn group_first(v: &str, mk: &str, g: &str, m: &str, d: &str) -> String {
    let gi = filter(g, mk);
    let first = format!(
        "arrayMap((x, y) -> x != y, {gi}, {})",
        prev(&gi, "toInt64(0)")
    );
    place(&filter(&filter(v, mk), &first), &filter(&gi, &first), m, d)
}

/// As [`group_first`], at the group's last row where `mk` holds.
pub(super) fn group_last(v: &str, mk: &str, g: &str, m: &str, d: &str) -> String {
    let gi = filter(g, mk);
    let last = format!(
        "arrayMap((x, y) -> x != y, {gi}, {})",
        next(&gi, "toInt64(0)")
    );
    place(&filter(&filter(v, mk), &last), &filter(&gi, &last), m, d)
}

/// An array of length `m` holding `vals[k]` at the 1-based position
/// `idx[k]` (increasing, distinct), `d` elsewhere: each value filled
/// forward with its position, kept where the position is its own.
pub(super) fn place(vals: &str, idx: &str, m: &str, d: &str) -> String {
    let filled = ffill_at(
        &format!("arrayMap((x, y) -> (x, y), {idx}, {vals})"),
        idx,
        m,
        &format!("(toInt64(0), {d})"),
    );
    format!(
        "arrayMap((x, y) -> if(x.1 = y, x.2, {d}), {filled}, {})",
        one_to(m)
    )
}

/// 1, 2, ..., `m` (Int64).
pub(super) fn one_to(m: &str) -> String {
    positions(&format!("range(toUInt64({m}))"))
}

/// For each query in `q` (Int64), how many elements of `k` (Int64, any
/// order) are below it, in `q`'s order: one sort of both by one Int64 key
/// (2v + 1 for an element, 2v for a query, so a query comes before equal
/// elements; values within ±2^62).
pub(super) fn count_below(k: &str, q: &str) -> String {
    let keys = format!("arrayConcat(arrayMap(x -> x * 2 + 1, {k}), arrayMap(x -> x * 2, {q}))");
    let tags = format!("arrayConcat({}, {})", zeros(k), positions(q));
    let sorted = format!("arraySort((x, y) -> y, {tags}, {keys})");
    let below = int64s(&format!("arrayCumSum(arrayMap(x -> x = 0, {sorted}))"));
    format!(
        "arraySort((x, y) -> y, arrayFilter((x, y) -> y > 0, {below}, {sorted}), arrayFilter(x -> x > 0, {sorted}))"
    )
}

/// How many times each of 1..=`m` is in `idx` (Int64).
fn tally(idx: &str, m: &str) -> String {
    let upto = count_below(idx, &format!("arrayMap(x -> x + 1, {})", one_to(m)));
    format!("arrayPopFront(arrayDifference(arrayPushFront({upto}, toInt64(0))))")
}

/// `src[idx[j]]` for each j: `src` (length `m`) repeated by how often each
/// index is asked for, then put in the order of the asks. Every index
/// must be in 1..=m.
pub(super) fn gather(src: &str, idx: &str, m: &str) -> String {
    let asks = format!("arraySort((x, y) -> y, arrayEnumerate({idx}), {idx})");
    format!(
        "arraySort((x, y) -> y, {}, {asks})",
        repeat(src, &tally(idx, m))
    )
}

/// For each of 1..=m, whether `idx` (Int64) names it.
pub(super) fn named(idx: &str, m: &str) -> String {
    format!("arrayMap(x -> x > 0, {})", tally(idx, m))
}
