//! How the command line shows a run's progress events: bars on a terminal, or JSON lines on
//! stdout for a process that watches this one (`islagen serve`'s generation jobs).

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use islagen::progress::{Progress, ProgressEvent, ProgressSink};

/// Bars when stderr is a terminal and `quiet` is false; else nothing shown.
pub fn for_terminal(quiet: bool) -> Progress {
    if quiet || !std::io::stderr().is_terminal() {
        return Progress::hidden();
    }
    Progress::to_sink(Arc::new(Bars {
        multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
        bars: Mutex::new(HashMap::new()),
    }))
}

/// Each event as one JSON line on stdout.
pub fn json_lines() -> Progress {
    Progress::to_sink(Arc::new(JsonLines))
}

/// One bar per running stage; stages that run side by side (the blueprint writes and the
/// snapshots) share one [`MultiProgress`], so their bars do not overwrite each other.
#[derive(Debug)]
struct Bars {
    multi: MultiProgress,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl Bars {
    fn bar(&self, total: u64) -> ProgressBar {
        if total > 0 {
            let bar = self.multi.add(ProgressBar::new(total));
            bar.set_style(
                ProgressStyle::with_template("{prefix:>12} [{bar:40}] {percent:>3}% {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        } else {
            // No natural count: a spinner that shows the stage is alive.
            let bar = self.multi.add(ProgressBar::new_spinner());
            bar.set_style(
                ProgressStyle::with_template("{prefix:>12} {spinner} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        }
    }
}

impl ProgressSink for Bars {
    fn event(&self, event: &ProgressEvent) {
        let mut bars = self.bars.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            ProgressEvent::Start { stage, total } => {
                let bar = self.bar(*total);
                bar.set_prefix(stage.clone());
                bars.insert(stage.clone(), bar);
            }
            ProgressEvent::Finish { stage, .. } => {
                if let Some(bar) = bars.remove(stage) {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }

    fn step(&self, stage: &'static str) {
        let bars = self.bars.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(bar) = bars.get(stage) {
            bar.inc(1);
        }
    }

    fn around_log(&self, log: &mut dyn FnMut()) {
        self.multi.suspend(log);
    }
}

#[derive(Debug)]
struct JsonLines;

impl ProgressSink for JsonLines {
    fn event(&self, event: &ProgressEvent) {
        if let Ok(line) = serde_json::to_string(event) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}
