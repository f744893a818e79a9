//! The orders pushed on an order list: each element is read as a JSON
//! object for the few members the replay uses (quantity, order id, lock
//! owner, unit price), without building the object's map.

/// What the replay reads of one element pushed on an order list.
#[derive(Debug)]
pub(super) struct Order {
    /// `qty` or `quantity` (a number or a numeric string), else 1.
    pub(super) quantity: i64,
    /// `order_id` or `orderId`.
    pub(super) order_id: Option<String>,
    /// `lock_owner`, `owner` or `lockOwner`: the holder the order names.
    pub(super) owner: Option<String>,
    /// `unit_price`, `unitPrice` or `price`.
    pub(super) unit_price: Option<f64>,
}

impl Order {
    /// Reads one element; one that is not a JSON object is an order of 1
    /// that names nothing. Of a field's names, the first present decides
    /// (`null` there reads as absent); a string is taken as it is, another
    /// value as its JSON text.
    pub(super) fn read(element: &[u8]) -> Order {
        let mut f: OrderFields = serde_json::from_slice(element).unwrap_or_default();
        let quantity = f
            .first(&["qty", "quantity"])
            .and_then(|v| {
                v.as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            })
            .unwrap_or(1);
        let order_id = f.first(&["order_id", "orderId"]).map(json_text);
        let owner = f
            .first(&["lock_owner", "owner", "lockOwner"])
            .map(json_text);
        let unit_price = f
            .first(&["unit_price", "unitPrice", "price"])
            .and_then(|v| v.as_f64());
        Order {
            quantity,
            order_id,
            owner,
            unit_price,
        }
    }
}

/// A member of a JSON object: absent, or present (`null` included), as
/// `serde_json::Map::get` tells them apart.
#[derive(Debug, Default)]
enum Member {
    #[default]
    Absent,
    Present(serde_json::Value),
}

/// The members of an order (a JSON object pushed on an order list) that the
/// replay reads, by name.
const ORDER_MEMBERS: [&str; 10] = [
    "qty",
    "quantity",
    "order_id",
    "orderId",
    "lock_owner",
    "owner",
    "lockOwner",
    "unit_price",
    "unitPrice",
    "price",
];

/// Those members of one order. Read as `serde_json::Value` would read the
/// whole object, so that the same elements fail (bad JSON, not an object,
/// too deep) and a repeated member keeps its last value, but without
/// building the map.
#[derive(Debug, Default)]
struct OrderFields {
    members: [Member; ORDER_MEMBERS.len()],
}

impl OrderFields {
    /// The first of `names` present in the object, unless it is `null`.
    fn first(&mut self, names: &[&str]) -> Option<serde_json::Value> {
        let i = names
            .iter()
            .filter_map(|n| ORDER_MEMBERS.iter().position(|m| m == n))
            .find(|&i| matches!(self.members[i], Member::Present(_)))?;
        match std::mem::take(&mut self.members[i]) {
            Member::Present(v) if !v.is_null() => Some(v),
            _ => None,
        }
    }
}

/// An object member's name: the index of one of [`ORDER_MEMBERS`], or
/// `None`. Read without allocating.
struct MemberName(Option<usize>);

impl<'de> serde::Deserialize<'de> for MemberName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = MemberName;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a member name")
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<MemberName, E> {
                Ok(MemberName(ORDER_MEMBERS.iter().position(|m| *m == name)))
            }
        }
        d.deserialize_str(Visit)
    }
}

impl<'de> serde::Deserialize<'de> for OrderFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = OrderFields;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderFields, A::Error> {
                let mut out = OrderFields::default();
                while let Some(MemberName(slot)) = map.next_key()? {
                    let value: serde_json::Value = map.next_value()?;
                    if let Some(i) = slot {
                        out.members[i] = Member::Present(value);
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(Visit)
    }
}

/// A JSON value as text: a string's own text, else its JSON.
fn json_text(v: serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_members_an_order_names() {
        let o = Order::read(
            br#"{"orderId": 7, "quantity": "3", "lockOwner": "A", "price": 9.5, "x": [1]}"#,
        );
        assert_eq!(
            (
                o.quantity,
                o.order_id.as_deref(),
                o.owner.as_deref(),
                o.unit_price
            ),
            (3, Some("7"), Some("A"), Some(9.5))
        );
        // The first name present decides, even when `null`; a repeated
        // member keeps its last value.
        let o = Order::read(br#"{"qty": null, "quantity": 5, "owner": "A", "owner": "B"}"#);
        assert_eq!((o.quantity, o.owner.as_deref()), (1, Some("B")));
        let o = Order::read(b"plain");
        assert_eq!(
            (o.quantity, o.order_id, o.owner, o.unit_price),
            (1, None, None, None)
        );
    }
}
