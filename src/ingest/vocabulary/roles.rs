//! The roles a field can play (time, lock key, holder, event, TTL and the
//! business fields) and the units a TTL is written in: the words every
//! stage of ingest names a field's meaning with.

/// What a field means to the importer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Role {
    Time,
    Key,
    Holder,
    Event,
    Ttl,
    Host,
    Thread,
    Product,
    Quantity,
    Stock,
    StockBefore,
    StockAfter,
    OrderId,
    UnitPrice,
    Fencing,
    Elapsed,
    Deleted,
    Outcome,
    Message,
}

impl Role {
    /// Every role, in the order they are listed in `SourceInfo::fields`.
    pub const ALL: [Role; 19] = [
        Role::Time,
        Role::Key,
        Role::Holder,
        Role::Event,
        Role::Ttl,
        Role::Host,
        Role::Thread,
        Role::Product,
        Role::Quantity,
        Role::Stock,
        Role::StockBefore,
        Role::StockAfter,
        Role::OrderId,
        Role::UnitPrice,
        Role::Fencing,
        Role::Elapsed,
        Role::Deleted,
        Role::Outcome,
        Role::Message,
    ];

    /// The role's name in `SourceInfo::fields` and in mapping files.
    pub fn name(self) -> &'static str {
        match self {
            Role::Time => "time",
            Role::Key => "key",
            Role::Holder => "holder",
            Role::Event => "event",
            Role::Ttl => "ttl",
            Role::Host => "host",
            Role::Thread => "thread",
            Role::Product => "product",
            Role::Quantity => "quantity",
            Role::Stock => "stock",
            Role::StockBefore => "stock_before",
            Role::StockAfter => "stock_after",
            Role::OrderId => "order_id",
            Role::UnitPrice => "unit_price",
            Role::Fencing => "fencing_token",
            Role::Elapsed => "elapsed_ms",
            Role::Deleted => "deleted",
            Role::Outcome => "outcome",
            Role::Message => "message",
        }
    }

    /// Parses a mapping-file role name; `ttl_s` means a TTL in seconds,
    /// `ttl_ns` in nanoseconds.
    pub fn from_mapping_name(s: &str) -> Option<(Role, Unit)> {
        match s {
            "ttl_ms" => Some((Role::Ttl, Unit::Ms)),
            "ttl_s" => Some((Role::Ttl, Unit::S)),
            "ttl_ns" => Some((Role::Ttl, Unit::Ns)),
            "fencing" => Some((Role::Fencing, Unit::Ms)),
            "elapsed" => Some((Role::Elapsed, Unit::Ms)),
            _ => Role::ALL
                .iter()
                .copied()
                .find(|r| r.name() == s)
                .map(|r| (r, Unit::Ms)),
        }
    }

    /// The role's position in [`Role::ALL`] (per-role tables index by it).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Unit of a TTL field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Unit {
    /// Milliseconds (also the default for unit-less names).
    Ms,
    /// Seconds: multiplied by 1000.
    S,
    /// Nanoseconds: divided by 10^6 (Go's `time.Duration` written as a
    /// number, `slog`'s and `encoding/json`'s default), read by a TTL's
    /// values or named `ttl_ns` in a mapping.
    Ns,
}

impl Unit {
    /// Milliseconds in one of this unit.
    pub(crate) fn ms(self) -> f64 {
        match self {
            Unit::Ms => 1.0,
            Unit::S => 1000.0,
            Unit::Ns => 1e-6,
        }
    }
}
