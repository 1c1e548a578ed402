use ansa_sessions::protocol::{CatalogModel, CommandBody, EventBody, ModelCatalog, Rebound};
use ansa_sessions::{Effort, ModelBinding, RebindSource};
use crossterm::event::KeyCode;

use super::super::tests::{Harness, line_text};
use super::super::view;

fn binding(model: &str, effort: Option<Effort>) -> ModelBinding {
    ModelBinding {
        model: model.into(),
        returned_model: model.into(),
        reasoning: true,
        effort,
    }
}

fn catalog_for(h: &Harness) -> ModelCatalog {
    let id = h.last().command_id.clone();
    ModelCatalog {
        command_id: id,
        models: vec![
            CatalogModel {
                id: "gpt-5.5".into(),
                efforts: vec![Effort::Low, Effort::Medium, Effort::High],
            },
            CatalogModel {
                id: "plain-model".into(),
                efforts: Vec::new(),
            },
        ],
        current: binding("gpt-5.5", None),
    }
}

fn live_text(h: &Harness) -> String {
    view::live(&h.app)
        .lines
        .iter()
        .map(line_text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn model_lists_the_catalog_then_the_efforts_and_sends_the_choice() {
    let mut h = Harness::opened(60, 20, true, Vec::new());
    h.type_text("/model");
    h.press(KeyCode::Enter);
    assert_eq!(h.last().body, CommandBody::Models);
    assert!(live_text(&h).contains("reading the provider's model catalog"));
    let catalog = catalog_for(&h);
    h.event(EventBody::ModelCatalog(catalog));
    let shown = live_text(&h);
    assert!(shown.contains("› gpt-5.5 (current)"), "{shown}");
    assert!(shown.contains("plain-model"), "{shown}");
    // gpt-5.5 reasons: Enter asks for its effort; ↓↓↓ picks `high`.
    h.press(KeyCode::Enter);
    let shown = live_text(&h);
    assert!(
        shown.contains("reasoning effort") && shown.contains("› the provider's default"),
        "{shown}"
    );
    for _ in 0..3 {
        h.press(KeyCode::Down);
    }
    h.press(KeyCode::Enter);
    let CommandBody::Model(choice) = &h.last().body else {
        panic!("{:?}", h.last())
    };
    assert_eq!(
        (choice.model.as_str(), choice.effort),
        ("gpt-5.5", Some(Effort::High))
    );
    assert!(h.app.model_switch.picker.is_none());
}

#[test]
fn a_model_without_efforts_is_sent_at_once_and_the_rebinding_is_shown_and_in_status() {
    let mut h = Harness::opened(120, 40, true, Vec::new());
    h.type_text("/model");
    h.press(KeyCode::Enter);
    let catalog = catalog_for(&h);
    h.event(EventBody::ModelCatalog(catalog));
    h.press(KeyCode::Down);
    h.press(KeyCode::Enter);
    let id = h.last().command_id.clone();
    let CommandBody::Model(choice) = &h.last().body else {
        panic!("{:?}", h.last())
    };
    assert_eq!(
        (choice.model.as_str(), choice.effort),
        ("plain-model", None)
    );
    h.event(EventBody::Rebound(Rebound {
        command_id: Some(id),
        from: binding("gpt-5.5", None),
        to: ModelBinding {
            reasoning: false,
            ..binding("plain-model", None)
        },
        source: RebindSource::Command,
    }));
    let history = h.scrollback_text().join("\n");
    assert!(
        history.contains("model: gpt-5.5 → plain-model from the next turn"),
        "{history}"
    );
    h.type_text("/status");
    h.press(KeyCode::Enter);
    let shown = live_text(&h);
    assert!(
        shown.contains("plain-model · no reasoning effort"),
        "{shown}"
    );
}

#[test]
fn a_refused_choice_closes_the_picker_and_says_why_and_esc_closes_it() {
    let mut h = Harness::opened(60, 20, true, Vec::new());
    h.type_text("/model");
    h.press(KeyCode::Enter);
    h.press(KeyCode::Esc);
    assert!(h.app.model_switch.picker.is_none());
    h.type_text("/model");
    h.press(KeyCode::Enter);
    let id = h.last().command_id.clone();
    h.event(EventBody::Error {
        command_id: Some(id),
        code: ansa_sessions::protocol::ErrorCode::ModelRefused,
        message: "cannot read the provider's model catalog: offline".into(),
    });
    assert!(h.app.model_switch.picker.is_none());
    let shown = live_text(&h);
    assert!(
        shown.contains("/model: cannot read the provider's model catalog"),
        "{shown}"
    );
}

#[test]
fn after_a_switch_the_fill_is_measured_against_the_new_models_window() {
    use ansa_sessions::protocol::ContextSize;
    for (width, height) in [(60, 20), (120, 40)] {
        let mut h = Harness::opened(width, height, true, Vec::new());
        h.app.meter.windows = vec![("gpt-5.5".into(), 400_000), ("big".into(), 1_000_000)];
        h.app.meter.window = Some(400_000);
        let mut s = super::super::tests::snapshot_body(0);
        // 400 KB ≈ 100k tokens: 25% of 400k, 10% of a million.
        s.context = Some(ContextSize {
            bytes: 400_000,
            budget: 1_000_000,
        });
        h.event(EventBody::Snapshot(s));
        let footer = |h: &Harness| line_text(view::live(&h.app).lines.last().unwrap());
        assert!(footer(&h).contains("ctx 25% of 400k"), "{}", footer(&h));
        let rebound = |h: &mut Harness, from: &str, to: &str| {
            h.event(EventBody::Rebound(Rebound {
                command_id: None,
                from: binding(from, None),
                to: binding(to, None),
                source: RebindSource::Open,
            }));
        };
        rebound(&mut h, "gpt-5.5", "big");
        assert!(footer(&h).contains("ctx 10% of 1.0M"), "{}", footer(&h));
        // A model the config gives no window for: the fill is not known, not the old one's.
        rebound(&mut h, "big", "unlisted");
        assert!(footer(&h).contains("ctx ≈100k of ?"), "{}", footer(&h));
    }
}

#[test]
fn a_catalog_of_one_model_is_counted_in_the_singular() {
    let mut h = Harness::opened(60, 20, true, Vec::new());
    h.type_text("/model");
    h.press(KeyCode::Enter);
    let mut catalog = catalog_for(&h);
    catalog.models.truncate(1);
    h.event(EventBody::ModelCatalog(catalog));
    let shown = live_text(&h);
    // It said `1 models` (the offline scripted provider's catalog has one).
    assert!(
        shown.contains("/model · 1 model · the next turn"),
        "{shown}"
    );
    let mut h = Harness::opened(60, 20, true, Vec::new());
    h.type_text("/model");
    h.press(KeyCode::Enter);
    let catalog = catalog_for(&h);
    h.event(EventBody::ModelCatalog(catalog));
    assert!(
        live_text(&h).contains("/model · 2 models ·"),
        "{}",
        live_text(&h)
    );
}
