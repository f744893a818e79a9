//! The products of a loaded log by name: which ones a lock key names, so
//! that the stock list shows the products of the keys on screen first.
//! Built once per load, with the session; no drawing here.

use std::collections::{HashMap, HashSet};

use crate::model::LoadedLog;

/// The products by name, to find those a lock key names without trying
/// every product against every key on each frame (with 10 000 products
/// that took 16 ms of a frame).
#[derive(Debug, Default)]
pub struct ProductFinder {
    /// Indices into [`Analysis::products`](crate::analysis::Analysis::products)
    /// by name, in product order (equal names share an entry); empty names
    /// are left out.
    by_name: HashMap<Box<str>, Vec<usize>>,
    /// The longest name, bytes.
    max_len: usize,
    /// The names in product order (for keys too long to search by name).
    names: Vec<Box<str>>,
}

/// Above this many candidate substrings a key is searched for each product
/// instead (only absurdly long keys or names reach it).
const SUBSTRING_BUDGET: usize = 1 << 14;

impl ProductFinder {
    /// The finder over `names`, in product order.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> ProductFinder {
        let names: Vec<Box<str>> = names.into_iter().map(Box::from).collect();
        let mut by_name: HashMap<Box<str>, Vec<usize>> = HashMap::with_capacity(names.len());
        let mut max_len = 0;
        for (i, n) in names.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
            by_name.entry(n.clone()).or_default().push(i);
            max_len = max_len.max(n.len());
        }
        ProductFinder {
            by_name,
            max_len,
            names,
        }
    }

    /// The finder over `analysis`'s products, named from `log`.
    pub fn of(log: &LoadedLog, analysis: &crate::analysis::Analysis) -> ProductFinder {
        ProductFinder::new(
            analysis
                .products
                .iter()
                .map(|p| p.product.map_or("", |sym| log.strings.get(sym))),
        )
    }

    /// The products whose name `key` contains, in product order.
    fn named_in(&self, key: &str) -> Vec<usize> {
        let bounds: Vec<usize> = key
            .char_indices()
            .map(|(i, _)| i)
            .chain([key.len()])
            .collect();
        let mut found: Vec<usize> = if bounds.len() * self.max_len.min(key.len()) > SUBSTRING_BUDGET
        {
            let hit = |n: &str| !n.is_empty() && key.contains(n);
            (0..self.names.len())
                .filter(|&i| hit(&self.names[i]))
                .collect()
        } else {
            let mut found = Vec::new();
            for (a, &start) in bounds.iter().enumerate() {
                for &end in bounds[a + 1..]
                    .iter()
                    .take_while(|&&e| e - start <= self.max_len)
                {
                    found.extend(self.by_name.get(&key[start..end]).into_iter().flatten());
                }
            }
            found
        };
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// The first `limit` indices of the products in the order they are listed:
/// those named in a lock key on screen (`keys_on_screen`, top first) first,
/// then the rest in their order. Costs lookups per key on screen, not per
/// product.
pub fn stock_order(finder: &ProductFinder, keys_on_screen: &[&str], limit: usize) -> Vec<usize> {
    let mut order = Vec::new();
    let mut listed = HashSet::new();
    for key in keys_on_screen {
        for i in finder.named_in(key) {
            if order.len() < limit && listed.insert(i) {
                order.push(i);
            }
        }
    }
    let rest = (0..finder.names.len()).filter(|i| !listed.contains(i));
    order.extend(rest.take(limit.saturating_sub(order.len())));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order by trying every product against every key: the rule.
    fn by_search(products: &[&str], keys_on_screen: &[&str], limit: usize) -> Vec<usize> {
        let rank = |p: &str| {
            keys_on_screen
                .iter()
                .position(|k| !p.is_empty() && k.contains(p))
                .unwrap_or(usize::MAX)
        };
        let mut order: Vec<usize> = (0..products.len()).collect();
        order.sort_by_key(|&i| rank(products[i]));
        order.truncate(limit);
        order
    }

    #[test]
    fn products_of_the_keys_on_screen_come_first() {
        let products = ["product:1001", "product:1002", "product:1203"];
        let finder = ProductFinder::new(products);
        let on_screen = ["product:1203:lock", "product:1002:lock"];
        assert_eq!(stock_order(&finder, &on_screen, 6), vec![2, 1, 0]);
        assert_eq!(stock_order(&finder, &[], 6), vec![0, 1, 2]);
        assert_eq!(stock_order(&finder, &on_screen, 2), vec![2, 1]);
    }

    #[test]
    fn the_order_is_the_search_of_every_product_in_every_key() {
        // Names inside names, equal names, an empty name, Chinese, a name
        // no key contains, and a key too long to search by name.
        let long = format!("{}sku-9", "x".repeat(SUBSTRING_BUDGET));
        let products = [
            "sku-1", "sku-12", "", "商品:7", "sku-1", "1", "sku-9", "absent", "lock",
        ];
        let keys: [&[&str]; 5] = [
            &["lock:sku-12", "商品:7:锁", "sku-1"],
            &["other", "lock:1"],
            &[&long, "sku-1"],
            &[],
            &["", "sku-12sku-9"],
        ];
        let finder = ProductFinder::new(products);
        for on_screen in keys {
            for limit in [0, 1, 3, 6, 20] {
                assert_eq!(
                    stock_order(&finder, on_screen, limit),
                    by_search(&products, on_screen, limit),
                    "{on_screen:?} {limit}"
                );
            }
        }
    }
}
