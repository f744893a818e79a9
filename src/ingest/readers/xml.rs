//! XML exports of log events, each event element one record: Windows Event
//! Log exports (`wevtutil qe LOG /f:xml` or `/f:RenderedXml`: `<Event>`
//! elements one after another; Event Viewer's "Save as XML": the same
//! inside `<Events>`), log4j's `XMLLayout` (`<log4j:event>` elements, no
//! root element, the `log4j:` prefix never declared). Read with quick-xml's
//! pull reader, which takes a document with several top-level elements and
//! undeclared prefixes as they come.
//!
//! The record element is the one that repeats: the top-level elements when
//! there are several, else the root's most frequent child. A record's
//! fields, as a JSON object the JSON readers take:
//! - its own attributes by their names (`timestamp`, `level`, `logger`,
//!   `thread` of a `log4j:event`);
//! - an element named by a `Name`/`name` attribute with a text or a `value`
//!   attribute is a property under that name (`<Data Name='lock_key'>…`,
//!   `<log4j:data name="owner" value="…"/>`);
//! - any other element's text under its path of local names
//!   (`System.Computer`, `message`), its attributes under the path and the
//!   attribute's name (`System.TimeCreated.SystemTime`).
//!
//! Sources: Microsoft Learn, "Event schema" (`Event`, `System`, `Provider`,
//! `EventID`, `Level`, `TimeCreated/@SystemTime`, `Execution`, `Computer`,
//! `EventData/Data/@Name`, `RenderingInfo/Message`) and "wevtutil"; Apache
//! log4j 1.2 `org.apache.log4j.xml.XMLLayout` (`log4j:event` with
//! `logger`, `timestamp` in epoch ms, `level`, `thread`; `log4j:message`
//! in CDATA, `log4j:throwable`, `log4j:properties/log4j:data`).

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use serde_json::{Map, Value};

use super::container::DocRec;

/// How many events a document is read for before it is given up on as no
/// XML export (an element-heavy file is no log).
const MAX_EVENTS: usize = 50_000_000;

/// True when `text` may be an XML document: its first non-blank character
/// is `<` followed by `?`, `!` or a letter (a syslog line's `<34>` is not).
pub(crate) fn looks_like_xml(text: &str) -> bool {
    let t = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let b = t.as_bytes();
    b.first() == Some(&b'<')
        && b.get(1)
            .is_some_and(|c| matches!(c, b'?' | b'!') || c.is_ascii_alphabetic())
}

/// The records of an XML export, or `None` when `text` is no well-formed
/// XML with a repeated record element.
pub(crate) fn records(text: &str) -> Option<Vec<DocRec>> {
    let (depth, name) = record_element(text)?;
    let mut reader = Reader::from_str(text);
    let mut out = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut rec: Option<Record> = None;
    for _ in 0..MAX_EVENTS {
        let event = reader.read_event().ok()?;
        if let (Some(r), Event::Start(_) | Event::End(_) | Event::Empty(_)) = (rec.as_mut(), &event)
        {
            r.flush();
        }
        match event {
            Event::Start(e) => {
                let local = local(&e);
                if rec.is_none() && stack.len() == depth && local == name {
                    rec = Some(Record::of(&e));
                } else if let Some(r) = rec.as_mut() {
                    r.open(&e, &stack[depth + 1..]);
                }
                stack.push(local);
            }
            Event::Empty(e) => {
                if rec.is_none() && stack.len() == depth && local(&e) == name {
                    out.push(DocRec {
                        main: Record::of(&e).fields,
                        extra: None,
                    });
                } else if let Some(r) = rec.as_mut() {
                    let mut path = stack[depth + 1..].to_vec();
                    path.push(local(&e));
                    r.element(&e, &path, false);
                }
            }
            Event::End(_) => {
                stack.pop();
                if stack.len() == depth
                    && let Some(mut r) = rec.take()
                {
                    r.flush();
                    out.push(DocRec {
                        main: r.fields,
                        extra: None,
                    });
                }
            }
            Event::Text(t) => {
                if let Some(r) = rec.as_mut() {
                    r.text(&t.xml10_content().ok()?, &stack[depth + 1..]);
                }
            }
            Event::CData(t) => {
                if let Some(r) = rec.as_mut() {
                    r.text(&String::from_utf8_lossy(&t), &stack[depth + 1..]);
                }
            }
            Event::GeneralRef(g) => {
                if let Some(r) = rec.as_mut() {
                    let c = match g.resolve_char_ref().ok()? {
                        Some(c) => c.to_string(),
                        None => {
                            let n = g.decode().ok()?;
                            quick_xml::escape::resolve_predefined_entity(&n)?.to_string()
                        }
                    };
                    r.text(&c, &stack[depth + 1..]);
                }
            }
            // An element left open is no well-formed export.
            Event::Eof if stack.is_empty() => break,
            Event::Eof => return None,
            _ => {}
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The record element: (its depth, its local name). The top-level
/// elements when there are several of one name, else the root's most
/// frequent child's name (at least two of it).
fn record_element(text: &str) -> Option<(usize, String)> {
    let mut reader = Reader::from_str(text);
    let mut depth = 0usize;
    let mut counts: [Vec<(String, usize)>; 2] = Default::default();
    let mut seen = 0usize;
    loop {
        let (e, opens) = match reader.read_event().ok()? {
            Event::Start(e) => (e, true),
            Event::Empty(e) => (e, false),
            Event::End(_) => {
                depth = depth.checked_sub(1)?;
                continue;
            }
            Event::Eof if depth == 0 => break,
            Event::Eof => return None,
            _ => continue,
        };
        if let Some(c) = counts.get_mut(depth) {
            let name = local(&e);
            match c.iter_mut().find(|(n, _)| *n == name) {
                Some(x) => x.1 += 1,
                None => c.push((name, 1)),
            }
        }
        depth += usize::from(opens);
        seen += 1;
        if seen >= MAX_EVENTS {
            return None;
        }
    }
    let best = |c: &[(String, usize)]| c.iter().max_by_key(|(_, n)| *n).cloned();
    match best(&counts[0]) {
        Some((name, n)) if n >= 2 => Some((0, name)),
        _ => best(&counts[1])
            .filter(|(_, n)| *n >= 2)
            .map(|(name, _)| (1, name)),
    }
}

/// An element's local name (`log4j:event` is `event`).
fn local(e: &BytesStart<'_>) -> String {
    String::from_utf8_lossy(e.local_name().as_ref()).into_owned()
}

/// An element's attributes: (local name, value unescaped).
fn attributes(e: &BytesStart<'_>) -> Vec<(String, String)> {
    e.attributes()
        .flatten()
        // Namespace declarations are no data.
        .filter(|a| !a.key.as_ref().starts_with(b"xmlns"))
        .filter_map(|a| {
            let k = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()?
                .into_owned();
            Some((k, v))
        })
        .collect()
}

/// A record being read: its fields, and the property an element named by
/// a `Name` attribute opened (its text goes under that name).
struct Record {
    fields: Map<String, Value>,
    named: Option<(String, usize)>,
    /// The text read so far of the element open now (text, entity and
    /// CDATA parts join), and its field's name.
    pending: Option<(String, String)>,
}

impl Record {
    /// A record of `e`'s attributes.
    fn of(e: &BytesStart<'_>) -> Record {
        let mut r = Record {
            fields: Map::new(),
            named: None,
            pending: None,
        };
        for (k, v) in attributes(e) {
            r.put(k, v);
        }
        r
    }

    /// Keeps the first value of a field.
    fn put(&mut self, k: String, v: String) {
        if !v.trim().is_empty() {
            self.fields.entry(k).or_insert(Value::String(v));
        }
    }

    /// An element opened at `path` (the record's descendants above it).
    fn open(&mut self, e: &BytesStart<'_>, path: &[String]) {
        let mut p = path.to_vec();
        p.push(local(e));
        self.element(e, &p, true);
        let attrs = attributes(e);
        self.named = attrs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("name"))
            .map(|(_, v)| (v.clone(), p.len()));
    }

    /// An element's attributes at `path`: a property when one is its name
    /// and another its value, else each under the path (its `Name` but
    /// when text may follow: `texted`, the text's name).
    fn element(&mut self, e: &BytesStart<'_>, path: &[String], texted: bool) {
        let attrs = attributes(e);
        let name = attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case("name"));
        let value = attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case("value"));
        if let (Some((_, n)), Some((_, v))) = (name, value) {
            self.put(n.clone(), v.clone());
            return;
        }
        let value = value.cloned();
        let base = path.join(".");
        for (k, v) in attrs {
            // A property's name is no field of its own.
            if !(texted && k.eq_ignore_ascii_case("name")) || value.is_some() {
                self.put(format!("{base}.{k}"), v);
            }
        }
    }

    /// Text inside the element at `path`: the named property's value, else
    /// a field under the path; joined to the element's text before it.
    fn text(&mut self, t: &str, path: &[String]) {
        let key = match &self.named {
            Some((n, depth)) if *depth == path.len() => n.clone(),
            _ => path.join("."),
        };
        match self.pending.as_mut() {
            Some((k, buf)) if *k == key => buf.push_str(t),
            _ => {
                self.flush();
                self.pending = Some((key, t.to_string()));
            }
        }
    }

    /// Puts the element's text read so far, trimmed.
    fn flush(&mut self) {
        if let Some((k, t)) = self.pending.take() {
            self.put(k, t.trim().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(r: &'a DocRec, k: &str) -> Option<&'a str> {
        r.main.get(k).and_then(Value::as_str)
    }

    #[test]
    fn windows_events_one_after_another_and_inside_events() {
        let one = "<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>\
            <Provider Name='FlashSale-Lock' Guid='{00000000-0000-0000-0000-000000000001}'/>\
            <EventID>1001</EventID><Level>4</Level>\
            <TimeCreated SystemTime='2026-11-30T23:06:55.1000000Z'/><Computer>web-01</Computer>\
            </System><EventData><Data Name='lock_key'>lock:sku:1001</Data>\
            <Data Name='owner'>tok-A</Data><Data>free text &amp; more</Data></EventData></Event>";
        let text = format!("{one}\n{one}\n");
        assert!(looks_like_xml(&text));
        let recs = records(&text).expect("records");
        assert_eq!(recs.len(), 2);
        let r = &recs[0];
        assert_eq!(field(r, "lock_key"), Some("lock:sku:1001"));
        assert_eq!(field(r, "owner"), Some("tok-A"));
        assert_eq!(field(r, "System.Computer"), Some("web-01"));
        assert_eq!(
            field(r, "System.TimeCreated.SystemTime"),
            Some("2026-11-30T23:06:55.1000000Z")
        );
        assert_eq!(field(r, "System.Provider.Name"), Some("FlashSale-Lock"));
        assert_eq!(field(r, "EventData.Data"), Some("free text & more"));
        let saved =
            format!("<?xml version='1.0' encoding='UTF-8'?>\n<Events>{one}{one}{one}</Events>");
        assert_eq!(records(&saved).map(|r| r.len()), Some(3));
    }

    #[test]
    fn log4j_xml_layout_events_without_a_root_or_a_declared_prefix() {
        let ev = r#"<log4j:event logger="com.example.Lock" timestamp="1764544015100" level="INFO" thread="exec-1">
<log4j:message><![CDATA[Lock acquired <ok>]]></log4j:message>
<log4j:properties><log4j:data name="lock_key" value="lock:sku:1001"/></log4j:properties>
</log4j:event>
"#;
        let recs = records(&ev.repeat(2)).expect("records");
        assert_eq!(recs.len(), 2);
        let r = &recs[1];
        assert_eq!(field(r, "timestamp"), Some("1764544015100"));
        assert_eq!(field(r, "thread"), Some("exec-1"));
        assert_eq!(field(r, "message"), Some("Lock acquired <ok>"));
        assert_eq!(field(r, "lock_key"), Some("lock:sku:1001"));
    }

    #[test]
    fn other_text_is_no_xml_export() {
        assert!(!looks_like_xml(
            "<34>1 2026-12-01T07:06:55Z host app - - - x"
        ));
        assert!(!looks_like_xml("{\"a\":1}"));
        assert!(records("<a><b>1</b></a>").is_none());
        assert!(records("<a><b>1</b><b>2</b>").is_none(), "not well formed");
        assert!(records("<x>unclosed").is_none());
    }
}
