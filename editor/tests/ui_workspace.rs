//! The editor's workspace as a user arranges it: tabs dragged into splits,
//! panels closed and reopened, the layout kept between runs.

mod common;

use common::{click_at, drag, editor, small_scene};
use egui::accesskit::Role;
use egui::{Pos2, Rect, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use keel_editor::{EditorApp, EditorOptions, Panel};

fn workspace(size: Vec2, config_dir: Option<std::path::PathBuf>) -> Harness<'static, EditorApp> {
    let app = EditorApp::new(EditorOptions {
        config_dir,
        ..EditorOptions::default()
    });
    let mut h = Harness::builder()
        .with_size(size)
        .build_ui_state(|ui, app: &mut EditorApp| app.ui(ui), app);
    h.run();
    h
}

/// The tab button titled `title` (the View menu's checkbox has the same
/// name, but it is a check box).
fn tab_rect(h: &Harness<'_, EditorApp>, title: &str) -> Rect {
    h.get_by_role_and_label(Role::Button, title).rect()
}

#[test]
fn the_default_layout_gives_the_scene_view_most_of_the_window() {
    let (width, height) = (1600.0, 900.0);
    let h = workspace(Vec2::new(width, height), None);
    let view = h
        .state()
        .views()
        .viewport
        .rect
        .expect("the Scene view is drawn");
    let pane = h
        .state()
        .workspace()
        .layout()
        .rect(Panel::Scene)
        .expect("laid out");
    assert!(
        (pane.min - view.min).length() + (pane.max - view.max).length() < 1.0,
        "{pane:?} {view:?}"
    );
    let share = view.area() / (width * height);
    assert!(
        share >= 0.6,
        "the Scene view has {:.1}% of the window ({view:?})",
        share * 100.0
    );
    // Stats, Log, Profiler and Timeline share one group: Stats in front.
    for (panel, shown) in [
        (Panel::Stats, true),
        (Panel::Log, false),
        (Panel::Profiler, false),
        (Panel::Timeline, false),
    ] {
        assert_eq!(
            h.state().workspace().layout().is_shown(panel),
            shown,
            "{panel:?}"
        );
    }
    let stats = tab_rect(&h, "Stats");
    for other in ["Log", "Profiler"] {
        let tab = tab_rect(&h, other);
        assert!(
            (stats.center().y - tab.center().y).abs() < 1.0,
            "one tab bar: {stats:?} {tab:?}"
        );
    }
}

#[test]
fn dragging_a_tab_onto_the_edge_of_the_scene_view_splits_it() {
    let mut h = workspace(Vec2::new(1600.0, 900.0), None);
    let view = h.state().views().viewport.rect.expect("drawn");
    let from = tab_rect(&h, "Log").center();
    // The right edge of the Scene view: egui_tiles drops there as a split.
    let to = Pos2::new(view.right() - 20.0, view.center().y);
    drag(&mut h, from, to);
    h.run();
    let layout = h.state().workspace().layout();
    assert!(
        layout.is_shown(Panel::Log),
        "the Log is in front of a group of its own"
    );
    assert!(layout.is_shown(Panel::Stats), "Stats stays where it was");
    let log = layout.rect(Panel::Log).expect("drawn");
    let scene = layout.rect(Panel::Scene).expect("drawn");
    assert!(
        log.left() >= scene.right() - 1.0 && log.center().x < view.right(),
        "the Log sits right of the Scene view, inside where the view was: {log:?} {scene:?}"
    );
    assert!(
        scene.width() < view.width() * 0.8,
        "the Scene view gave up width"
    );
}

#[test]
fn a_closed_panel_is_gone_until_the_view_menu_opens_it_again() {
    let mut h = editor(small_scene(), None);
    h.run();
    assert!(h.state().workspace().layout().is_shown(Panel::Inspector));
    let tab = tab_rect(&h, "Inspector");
    let close = h
        .query_all_by_label("Close")
        .find(|c| tab.contains(c.rect().center()))
        .expect("the Inspector tab has a close button");
    close.click();
    h.run();
    h.run();
    assert!(!h.state().workspace().layout().is_open(Panel::Inspector));
    assert!(
        h.query_by_role_and_label(Role::Button, "Inspector")
            .is_none(),
        "its tab is gone"
    );

    h.get_by_label("View").click();
    h.run();
    h.get_by_role_and_label(Role::CheckBox, "Inspector").click();
    h.run();
    h.run();
    assert!(h.state().workspace().layout().is_shown(Panel::Inspector));
    assert!(
        h.query_by_role_and_label(Role::Button, "Inspector")
            .is_some(),
        "its tab is back"
    );
}

#[test]
fn the_layout_is_restored_at_the_next_start_and_reset_from_the_view_menu() {
    let config = tempfile::tempdir().unwrap();
    let mut h = workspace(Vec2::new(1280.0, 720.0), Some(config.path().to_path_buf()));
    h.get_by_role_and_label(Role::Button, "Log").click();
    h.run();
    h.state_mut()
        .workspace_mut()
        .layout_mut()
        .close(Panel::Assets);
    h.run();
    let file = keel_editor::Layout::file_in(config.path());
    assert!(file.exists(), "written after the change");
    drop(h);

    let mut h = workspace(Vec2::new(1280.0, 720.0), Some(config.path().to_path_buf()));
    assert!(
        !h.state().workspace().layout().is_open(Panel::Assets),
        "still closed"
    );
    assert!(
        h.state().workspace().layout().is_shown(Panel::Log),
        "the Log tab still in front"
    );
    assert!(
        !h.state().status().is_error(),
        "{}",
        h.state().status().text()
    );

    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Reset layout").click();
    h.run();
    h.run();
    assert!(h.state().workspace().layout().is_open(Panel::Assets));
    assert!(h.state().workspace().layout().is_shown(Panel::Stats));
    let saved = keel_editor::Layout::load(&file).unwrap().expect("saved");
    assert!(saved.is_open(Panel::Assets), "the reset layout was saved");
}

#[test]
fn a_corrupt_layout_file_gives_the_default_layout_and_says_so() {
    let config = tempfile::tempdir().unwrap();
    let file = keel_editor::Layout::file_in(config.path());
    std::fs::write(&file, "(root: Some(3), tiles: [garbage").unwrap();
    let h = workspace(Vec2::new(1280.0, 720.0), Some(config.path().to_path_buf()));
    for panel in Panel::ALL {
        assert!(
            h.state().workspace().layout().is_open(panel),
            "{panel:?} open by default"
        );
    }
    let status = h.state().status();
    assert!(status.is_error(), "a warning in the status line");
    assert!(
        status.text().contains("layout.ron") && status.text().contains("default panel layout"),
        "{}",
        status.text()
    );
}

#[test]
fn play_brings_the_game_view_to_the_front_and_it_shows_the_scenes_camera() {
    let mut h = editor(small_scene(), None);
    h.run();
    assert!(h.state().workspace().layout().is_shown(Panel::Scene));
    h.get_by_label("Play").click();
    h.run();
    h.run();
    let layout = h.state().workspace().layout();
    assert!(layout.is_shown(Panel::Game) && !layout.is_shown(Panel::Scene));
    let game = h.state().views().game.rect.expect("the Game view is drawn");
    assert!(
        h.state().views().viewport.rect.is_none(),
        "the Scene view is not rendered behind it"
    );
    assert!(game.area() > 0.0);
    assert_eq!(
        h.state().views().game.size_px[0],
        game.width().round() as u32
    );
}

#[test]
fn f1_lists_every_shortcut_the_editor_dispatches() {
    let mut h = editor(small_scene(), None);
    h.run();
    assert!(h.query_by_label("Keyboard shortcuts").is_none());
    h.key_press(egui::Key::F1);
    h.run();
    h.run();
    assert!(
        h.query_by_label("Keyboard shortcuts").is_some(),
        "the window opened"
    );
    for shortcut in keel_editor::SHORTCUTS {
        let keys = shortcut.trigger.text(&h.ctx);
        assert!(!keys.is_empty());
        let rows: Vec<_> = h.query_all_by_label(&keys).collect();
        assert!(!rows.is_empty(), "{keys} ({}) is listed", shortcut.does);
        assert!(
            h.query_all_by_label(shortcut.does).count() > 0,
            "{} is said",
            shortcut.does
        );
    }
    // The menus' hints come from the same table.
    h.get_by_label("Edit").click();
    h.run();
    let undo = h.ctx.format_shortcut(&egui::KeyboardShortcut::new(
        egui::Modifiers::COMMAND,
        egui::Key::Z,
    ));
    assert!(
        h.query_by_label_contains(&undo).is_some(),
        "Undo's hint {undo}"
    );
    h.key_press(egui::Key::Escape);
    h.run();
    h.key_press(egui::Key::F1);
    h.run();
    assert!(
        h.query_by_label("Keyboard shortcuts").is_none(),
        "F1 again closes it"
    );
}

/// Frames of a playing editor: the world advanced a 60th of a second, then
/// the UI drawn.
fn play_frames(h: &mut Harness<'_, EditorApp>, n: usize) {
    for _ in 0..n {
        h.state_mut()
            .advance(std::time::Duration::from_micros(16_667));
        h.step();
    }
}

#[test]
fn the_profiler_records_while_shown_names_scopes_on_hover_pauses_and_selects_a_frame() {
    let mut h = editor(small_scene(), None);
    h.set_size(Vec2::new(1600.0, 900.0));
    h.run();
    h.get_by_label("Play").click();
    h.run();
    // Behind the Stats tab, nothing is recorded.
    play_frames(&mut h, 4);
    assert!(!h.state().diagnostics().profiler().is_recording());
    assert_eq!(
        h.state().diagnostics().profiler().profiler().frame_count(),
        0
    );

    h.get_by_role_and_label(Role::Button, "Profiler").click();
    h.run();
    play_frames(&mut h, 8);
    let panel = h.state().diagnostics().profiler();
    assert!(panel.is_recording());
    assert!(panel.profiler().frame_count() >= 5);
    let frame = panel.shown().expect("the newest frame is shown");
    for scope in [
        "world frame",
        "fixed step",
        "system spin",
        "propagate",
        "editor ui",
        "panel Profiler",
    ] {
        assert!(
            frame.spans().any(|(_, s)| s.label() == scope),
            "{scope} in {:?}",
            frame.spans().map(|(_, s)| s.label()).collect::<Vec<_>>()
        );
    }
    // The step runs inside the world's frame, on the same lane, drawn below it.
    let outer = panel.span_rect("world frame").expect("drawn");
    let step = panel.span_rect("fixed step").expect("drawn");
    assert!(step.top() > outer.top() && step.left() >= outer.left() - 0.5);

    // Paused: hovering the step names it, its time and where it is.
    h.get_by_label("Pause recording").click();
    h.run();
    assert!(h.state().diagnostics().profiler().is_paused());
    let kept = h
        .state()
        .diagnostics()
        .profiler()
        .profiler()
        .frame_lengths();
    let step = h
        .state()
        .diagnostics()
        .profiler()
        .span_rect("fixed step")
        .expect("drawn");
    h.hover_at(step.center());
    for _ in 0..40 {
        h.step();
    }
    let tips: Vec<String> = h
        .query_all_by_label_contains("world.rs")
        .map(|n| n.accesskit_node().label().unwrap_or_default())
        .collect();
    // The tooltip's text (its window is a node too).
    assert!(
        tips.iter()
            .any(|t| t.starts_with("fixed step\n") && t.contains(" ms\nengine/src/world.rs:")),
        "{tips:?}"
    );
    play_frames(&mut h, 4);
    assert_eq!(
        h.state()
            .diagnostics()
            .profiler()
            .profiler()
            .frame_lengths(),
        kept,
        "paused"
    );

    // Clicking the oldest frame's bar shows that frame.
    let (oldest, _) = kept[0];
    let bar = h
        .state()
        .diagnostics()
        .profiler()
        .bar_rect(oldest)
        .expect("the strip shows it");
    click_at(&mut h, bar.center() - Vec2::new(0.0, 1.0));
    assert_eq!(
        h.state().diagnostics().profiler().shown().map(|f| f.index),
        Some(oldest)
    );

    // Resumed, new frames come in again.
    h.get_by_label("Resume recording").click();
    h.run();
    play_frames(&mut h, 3);
    let now = h
        .state()
        .diagnostics()
        .profiler()
        .profiler()
        .frame_lengths();
    assert!(now.last() > kept.last(), "{now:?}");
}
