//! The mapping dialog on a text layout with a day-first date and failed
//! acquires only the lock protocol reads (`dotted-date.log`), its role
//! lists, and the incident card's sales counted as the report counts them.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use super::{dialog_on, name_part, pick, save_and_reread};
use crate::ui::app::App;

/// Gives `dotted-date.log`'s parts and pairs their roles and its event
/// words their kinds, in the dialog as a user does, its date part left
/// unnamed.
fn map_dotted_date(h: &mut Harness<'static, App>) {
    name_part(h, "TAKE ⟨level⟩", "event");
    name_part(h, "sku-9 ⟨message⟩", "key");
    pick(h, "qty", "quantity");
    pick(h, "left", "stock_after");
    for (word, kind) in [
        ("TAKE", "acquired"),
        ("SOLD", "stock_deducted"),
        ("DROP", "released"),
    ] {
        pick(h, word, kind);
    }
}

/// Naming the date part (whose day-first values make the mapping's
/// `time_format`) keeps the failed acquires (`ok=no`) reading found by
/// the protocol in the live preview, with no outcome role given by hand;
/// the guessed `time_format` is shown as a guess, with the sample's date
/// as it reads it. Saved and re-read, the incident's card counts its sales
/// as its explanation does: 2 inside the window, 2 tied to it.
#[test]
fn naming_the_date_keeps_the_failed_acquires_and_the_card_counts_as_the_text() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut h = dialog_on("dotted-date.log");
    map_dotted_date(&mut h);
    h.get_by_label_contains("acquire_failed 2");
    name_part(&mut h, "07.12.2026", "date");
    h.get_by_label("07.12.2026 ⟨date⟩");
    h.get_by_label_contains("acquire_failed 2");
    h.get_by_label_contains("holds 3 · incidents 1");
    h.get_by_label(r#"time_format = "%d.%m.%Y %H:%M:%S.%3f""#);
    h.get_by_label("(a guess from the dates' values: 07.12.2026 reads as 7 December 2026)");
    let (incidents, pairs, ..) = save_and_reread(&mut h, dir.path());
    assert_eq!((incidents, pairs), (1, 1));
    card_counts_as_the_text(&mut h, ("2 sales (4 units)", "2 sales (2 units)"));
}

/// Selects the first incident and checks that its card counts the sales
/// inside the window and those tied to it (`inside`, `tied`) as its
/// explanation does.
fn card_counts_as_the_text(h: &mut Harness<'static, App>, (inside, tied): (&str, &str)) {
    h.get_by_label("INC-1").click();
    h.run();
    assert!(h.query_by_label("Orders in window").is_none());
    h.get_by_label("Inside the window");
    h.get_by_label("Tied to it");
    for text in [inside, tied] {
        let expected = [inside, tied].iter().filter(|t| **t == text).count();
        assert_eq!(h.get_all_by_label(text).count(), expected, "{text}");
    }
    let s = h.state().session.as_ref().expect("loaded");
    let story = crate::report::explain_incident(&s.input(), &s.analysis.incidents[0]);
    let count = |text: &str| text.split(" (").next().unwrap_or_default().to_string();
    assert!(story.contains(&format!("in {}", count(inside))), "{story}");
    assert!(
        story.contains(&format!(" {} outside the window", count(tied))),
        "{story}"
    );
}

/// The JSON log with its own names (`protocol-words.jsonl`, read without
/// a mapping): its card counts its sales as the explanation does, 2 inside
/// the window and 2 tied to it.
#[test]
fn the_card_of_a_json_log_counts_its_sales_as_the_text() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mapping-dialog/protocol-words.jsonl");
    let mut h = super::harness(super::english_app_on(path));
    h.run();
    card_counts_as_the_text(&mut h, ("2 sales (2 units)", "2 sales (2 units)"));
}

/// A field's role list starts with the roles every lock log needs, the
/// outcome among them (above the business roles); a role another field
/// has is listed last, disabled, and says on hover which field has it.
#[test]
fn the_role_list_puts_the_outcome_up_and_roles_taken_last_and_disabled() {
    let mut h = dialog_on("dotted-date.log");
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "ok")
        .click();
    h.run();
    let item = |h: &Harness<'static, App>, role: &str| {
        let node = h.get_all_by_label(role).last().expect(role);
        (node.rect().min.y, node.accesskit_node().is_disabled())
    };
    let (outcome, outcome_off) = item(&h, "outcome");
    let (product, _) = item(&h, "product");
    let (holder, holder_off) = item(&h, "holder");
    assert!(outcome < product, "outcome above the business roles");
    assert!(!outcome_off);
    assert!(holder_off, "the field holder has it");
    assert!(holder > product, "listed after every free role");
    h.get_by_label("Given to another field");
}

/// A `--mapping` file of the command line applies until the mapping is
/// cleared in the window: "Clear mapping" reads the file without it for
/// the rest of the session, and the status line says the flag no longer
/// applies.
#[test]
fn clearing_the_mapping_drops_the_command_lines_for_the_session() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mapping-dialog");
    let mapping = dir.join("dotted-date.mapping.toml");
    let read = crate::config::ReadConfig {
        mapping: Some(crate::config::MappingFile {
            path: mapping.clone(),
            mapping: crate::ingest::Mapping::from_path(&mapping).expect("reads"),
        }),
        ..crate::config::ReadConfig::default()
    };
    let state = crate::ui::state::AppState {
        lang: crate::ui::i18n::Lang::En,
        ..Default::default()
    };
    let mut app = App::new(state, read, crate::config::AnalysisConfig::default());
    app.load_blocking(crate::ui::session::Source::Files(vec![
        dir.join("dotted-date.log"),
    ]));
    let mut h = super::harness(app);
    let read_with = |h: &Harness<'static, App>| {
        let s = h.state().session.as_ref().expect("loaded");
        (s.mapping.clone(), s.analysis.incidents.len())
    };
    h.run();
    assert_eq!(read_with(&h), (Some(mapping.clone()), 1));
    h.state_mut().open_panel(crate::ui::state::Panel::Sources);
    h.run();
    h.get_by_label("Clear mapping").click_accesskit();
    h.run_steps(2);
    super::step_until(&mut h, |app| !app.is_loading());
    h.run();
    assert_eq!(read_with(&h), (None, 0));
    let notice = h.state().notice.clone().unwrap_or_default();
    assert!(
        notice.contains(&format!(
            "--mapping {} no longer applies",
            mapping.display()
        )),
        "{notice}"
    );
    // Loaded again in this window: still without it.
    h.state_mut()
        .load_blocking(crate::ui::session::Source::Files(vec![
            dir.join("dotted-date.log"),
        ]));
    h.run();
    assert_eq!(read_with(&h).0, None);
}
