//! The stock plot docked under the lanes: the selected incident's
//! product stock over time ([`crate::ui::stock_plot`]), zoomed, panned and
//! cursored with the lanes. Hidden without a selected incident, or when
//! none of its products has a stock level in the log.

use std::sync::Arc;

use egui::Ui;

use super::PanelContext;
use crate::analysis::{Analysis, IncidentId};
use crate::playback::PlaybackCommand;
use crate::ui::session::Session;
use crate::ui::state::Command;
use crate::ui::stock_plot::{self, DOCK_H, ProductStock, StockPlotView, incident_stock};

/// The plot's data for one incident of one analysis.
struct Built {
    analysis: Arc<Analysis>,
    incident: IncidentId,
    products: Vec<ProductStock>,
}

/// The docked plot's state: its data, built again only when the analysis
/// or the selected incident changes.
#[derive(Default)]
pub struct StockPlotPanel {
    built: Option<Built>,
}

impl StockPlotPanel {
    /// The products of `incident` in `s`, built on first use.
    fn products(&mut self, s: &Session, incident: IncidentId) -> &[ProductStock] {
        let fresh = self
            .built
            .as_ref()
            .is_some_and(|b| b.incident == incident && Arc::ptr_eq(&b.analysis, &s.analysis));
        if !fresh {
            self.built = Some(Built {
                analysis: Arc::clone(&s.analysis),
                incident,
                products: incident_stock(&s.log, &s.analysis, incident),
            });
        }
        self.built.as_ref().map_or(&[], |b| &b.products)
    }

    /// What the plot shows for the selected incident: empty while hidden.
    pub fn shown(&self, context_incident: Option<IncidentId>) -> &[ProductStock] {
        match &self.built {
            Some(b) if Some(b.incident) == context_incident => &b.products,
            _ => &[],
        }
    }

    /// Docks the plot at the bottom of the space left for the lanes, when
    /// the selected incident has a product with stock; its zoom, pan and
    /// clicks become the lanes' commands.
    pub fn dock(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        let (Some(s), Some(incident)) = (context.session, context.selection.incident) else {
            return;
        };
        let products = self.products(s, incident);
        if products.is_empty() {
            return;
        }
        let model = context.model;
        let frame = egui::Frame::new()
            .fill(ui.visuals().panel_fill)
            .inner_margin(egui::Margin::symmetric(0, 4));
        let input = egui::Panel::bottom("stock_plot")
            .resizable(true)
            .default_size(DOCK_H * products.len() as f32)
            .size_range(80.0..=600.0)
            .frame(frame)
            .show(ui, |ui| {
                let view = StockPlotView {
                    products,
                    model,
                    view: &context.state.view,
                    cursor_s: Some((context.playback.cursor_ns - model.t0_ns) as f64 / 1e9),
                    selected: Some(incident),
                    time_display: context.state.time_display,
                    lang: context.lang(),
                    interactive: true,
                };
                stock_plot::stock_plot_ui(ui, view)
            })
            .inner;
        if let Some(view) = input.view {
            context.send_first(Command::SetView(view));
        }
        if let Some(at_s) = input.seek_s {
            let t = model.t0_ns.saturating_add((at_s * 1e9).round() as i64);
            context.send(Command::Playback(PlaybackCommand::Seek(t)));
        }
    }
}
