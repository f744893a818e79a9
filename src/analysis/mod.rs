//! Lease reconstruction, overlaps, incidents, findings and oversell.
