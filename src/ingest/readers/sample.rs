//! The sample that decides a file's fields: its first records, walked by
//! the reader the contest chose, seen through the envelope's payload field
//! when there is one, and counted by the role detection
//! (`roles/fields.rs`, [`Detector`]) until it has seen enough.

use std::ops::ControlFlow;

use super::container::Container;
use super::fast::key_shape;
use super::lines::json_line_item;
use super::walk::walk;
use super::{inner, payload};
use crate::ingest::framing::lines::lines;
use crate::ingest::records::item::Item;
use crate::ingest::roles::fields::Detector;
use crate::ingest::roles::mapping::Mapping;

/// Observes the first records of `text` (until the detector has seen
/// enough) to decide which fields hold the time, key, holder and the rest.
pub(crate) fn detect_fields(
    container: &Container,
    text: &str,
    mapping: Option<&Mapping>,
) -> Detector {
    let mut det = Detector::default();
    // A field the mapping names for a role is that role's value, never an
    // envelope's payload.
    det.payload = payload::detect(container, text)
        .filter(|f| !mapping.is_some_and(|m| m.fields.values().any(|v| v == f)));
    let field = det.payload.clone();
    if matches!(container, Container::JsonLines { loki: false }) && field.is_none() {
        detect_json_lines(text, &mut det);
        return det;
    }
    walk(container, text, &mut |_, _, item| {
        if let Item::Record(r) = item {
            match &field {
                Some(f) => inner::with_inner(&r, f, &mut |inner| {
                    det.observe(inner);
                    det.observe_kind(inner);
                    det.sample.add(inner);
                }),
                None => {
                    det.observe(&r);
                    det.sample.add(&r);
                }
            }
        }
        if det.done() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    det
}

/// [`detect_fields`] over plain JSON Lines: past the window, a line of a
/// shape already counted for nothing is counted without being parsed
/// ([`Detector::quiet_shape`]).
fn detect_json_lines(text: &str, det: &mut Detector) {
    for (no, off, line) in lines(text) {
        let shape = det.past_window().then(|| key_shape(line)).flatten();
        if !det.quiet_shape(shape) {
            let _ = json_line_item(
                line,
                false,
                &mut |_, _, item| {
                    if let Item::Record(r) = item {
                        let counted = det.observe(&r);
                        det.note_shape(shape, counted);
                        det.sample.add(&r);
                    }
                    ControlFlow::Continue(())
                },
                no,
                off,
            );
        }
        if det.done() {
            break;
        }
    }
}
