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

/// Element i is `arr[i + 1]`; the last is `d`.
pub(super) fn next(arr: &str, d: &str) -> String {
    format!("arrayPushBack(arrayPopFront({arr}), {d})")
}

/// Element i is `arr[i - 1]`; the first is `d`.
pub(super) fn prev(arr: &str, d: &str) -> String {
    format!("arrayPushFront(arrayPopBack({arr}), {d})")
}

/// 1, 2, ... as Int64, one per element of `arr`.
pub(super) fn positions(arr: &str) -> String {
    format!("arrayMap(x -> toInt64(x), arrayEnumerate({arr}))")
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

/// Backward fill: element i is `v` at the first marked position >= i, `d`
/// after the last mark.
pub(super) fn bfill(v: &str, m: &str, n: &str, d: &str) -> String {
    format!(
        "arrayReverse({})",
        ffill(
            &format!("arrayReverse({v})"),
            &format!("arrayReverse({m})"),
            n,
            d
        )
    )
}

/// Per segment (rows from a start to the next, `end` marking each
/// segment's last row), `v` at the segment's first row where `m` holds,
/// else `d`; one element per segment, read at the starts `start`.
pub(super) fn seg_first(v: &str, m: &str, start: &str, end: &str, n: &str, d: &str) -> String {
    filter(
        &bfill(
            &format!("arrayMap((x, y) -> if(y, x, {d}), {v}, {m})"),
            &format!("arrayMap((x, y) -> x OR y, {m}, {end})"),
            n,
            d,
        ),
        start,
    )
}

/// Per segment, `v` at the segment's last row where `m` holds (`m` must
/// hold at every start), one element per segment, read at the ends.
pub(super) fn seg_last(v: &str, m: &str, start: &str, end: &str, n: &str, d: &str) -> String {
    filter(
        &ffill(
            &format!("arrayMap((x, y) -> if(y, x, {d}), {v}, {m})"),
            &format!("arrayMap((x, y) -> x OR y, {m}, {start})"),
            n,
            d,
        ),
        end,
    )
}

/// For each query in `q` (Int64), how many elements of `k` (Int64, any
/// order) are below it, in `q`'s order: one sort of both, queries before
/// equal elements.
pub(super) fn count_below(k: &str, q: &str) -> String {
    let sorted = format!(
        "arraySort(arrayConcat(arrayMap(x -> (x, toUInt8(1), toInt64(0)), {k}), \
         arrayMap((x, y) -> (x, toUInt8(0), toInt64(y)), {q}, arrayEnumerate({q}))))"
    );
    let with_counts = format!(
        "arrayFilter(x -> x.2 = 0, arrayMap((x, y) -> (x.1, x.2, x.3, toInt64(y)), {sorted}, \
         arrayCumSum(arrayMap(x -> x.2, {sorted}))))"
    );
    format!("arrayMap(x -> x.4, arraySort(x -> x.3, {with_counts}))")
}

/// `src[idx[j]]` for each j: `src` (length `m`) repeated by how often each
/// index is asked for, then put in the order of the asks. Every index
/// must be in 1..=m.
pub(super) fn gather(src: &str, idx: &str, m: &str) -> String {
    let upto = count_below(
        idx,
        &format!("arrayMap(x -> toInt64(x) + 2, range(toUInt64({m})))"),
    );
    let counts = format!("arrayPopFront(arrayDifference(arrayPushFront({upto}, toInt64(0))))");
    let asks = format!("arraySort((x, y) -> (y, x), arrayEnumerate({idx}), {idx})");
    format!("arraySort((x, y) -> y, {}, {asks})", repeat(src, &counts))
}

/// For each of 1..=m, whether `idx` (Int64) names it.
pub(super) fn named(idx: &str, m: &str) -> String {
    let upto = count_below(
        idx,
        &format!("arrayMap(x -> toInt64(x) + 2, range(toUInt64({m})))"),
    );
    format!(
        "arrayMap(x -> x > 0, arrayPopFront(arrayDifference(arrayPushFront({upto}, toInt64(0)))))"
    )
}
