//! Progress and timing for long work: one indicatif bar per stage on a terminal (nothing when
//! stderr is not a terminal), and every stage's wall time through tracing and into the run's
//! summary. Stages never see this type: they take an `on_column` callback.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Where progress goes, and the timings so far. Stages that run side by side (the blueprint
/// writes and the snapshots) share one [`MultiProgress`], so their bars do not overwrite each
/// other, and log lines are printed with the bars suspended.
#[derive(Debug)]
pub struct Progress {
    multi: Option<MultiProgress>,
    timings: Mutex<Vec<(String, Duration)>>,
    /// Print one JSON line per stage start and finish on stdout (for `islagen serve`'s jobs).
    json: bool,
    /// Set by whoever no longer wants the work (a superseded preview).
    cancel: Option<Arc<AtomicBool>>,
    /// When the work must stop, and the time it was given.
    deadline: Option<(Instant, Duration)>,
}

/// Why work stopped before it was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stop {
    /// Whoever asked for it cancelled it.
    #[error("cancelled")]
    Cancelled,
    /// It ran past its deadline.
    #[error("ran past its deadline of {0:?}")]
    Deadline(Duration),
}

impl Progress {
    /// Bars when stderr is a terminal and `quiet` is false.
    pub fn for_terminal(quiet: bool) -> Progress {
        let bars = !quiet && std::io::stderr().is_terminal();
        Progress {
            multi: bars.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
            timings: Mutex::new(Vec::new()),
            json: false,
            cancel: None,
            deadline: None,
        }
    }

    /// No bars (timings are still kept).
    pub fn hidden() -> Progress {
        Progress {
            multi: None,
            timings: Mutex::new(Vec::new()),
            json: false,
            cancel: None,
            deadline: None,
        }
    }

    /// This progress, stopping the work (at the next [`Progress::check`]) when `cancel` is set
    /// or `within` has passed from now.
    pub fn stoppable(self, cancel: Arc<AtomicBool>, within: Duration) -> Progress {
        Progress {
            cancel: Some(cancel),
            deadline: Some((Instant::now() + within, within)),
            ..self
        }
    }

    /// Whether the work should stop now: the pipeline asks between stages.
    pub fn check(&self) -> Result<(), Stop> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(Stop::Cancelled);
        }
        match self.deadline {
            Some((at, within)) if Instant::now() >= at => Err(Stop::Deadline(within)),
            _ => Ok(()),
        }
    }

    /// No bars; each stage's start and finish as one JSON line on stdout,
    /// `{"event":"start","stage":NAME}` and `{"event":"finish","stage":NAME,"seconds":S}`, for
    /// a process that watches this one (`islagen serve`'s generation jobs).
    pub fn json_lines() -> Progress {
        Progress {
            json: true,
            ..Progress::hidden()
        }
    }

    fn emit(&self, line: serde_json::Value) {
        if self.json {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }

    /// Starts a stage of `total` steps (0 when the stage has no natural count).
    pub fn stage(&self, name: &'static str, total: u64) -> Stage<'_> {
        let bar = match &self.multi {
            Some(multi) if total > 0 => {
                let bar = multi.add(ProgressBar::new(total));
                bar.set_style(
                    ProgressStyle::with_template("{prefix:>12} [{bar:40}] {percent:>3}% {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> "),
                );
                bar
            }
            Some(multi) => {
                // No natural count: a spinner that shows the stage is alive.
                let bar = multi.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template("{prefix:>12} {spinner} {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.enable_steady_tick(Duration::from_millis(120));
                bar
            }
            None => ProgressBar::hidden(),
        };
        bar.set_prefix(name);
        self.emit(serde_json::json!({"event": "start", "stage": name}));
        crate::memory::reset_peak();
        Stage {
            owner: self,
            name,
            bar,
            start: Instant::now(),
        }
    }

    /// Every finished stage's name and wall time, in order.
    pub fn timings(&self) -> Vec<(String, Duration)> {
        self.timings.lock().map(|t| t.clone()).unwrap_or_default()
    }
}

/// One running stage.
pub struct Stage<'a> {
    owner: &'a Progress,
    name: &'static str,
    bar: ProgressBar,
    start: Instant,
}

impl Stage<'_> {
    /// One step done (callable from any thread).
    pub fn tick(&self) {
        self.bar.inc(1);
    }

    /// Ends the stage: clears its bar, logs and records its time.
    pub fn finish(self) -> Duration {
        let elapsed = self.start.elapsed();
        self.bar.finish_and_clear();
        let peak = crate::memory::heap().map(|(_, peak)| peak >> 20);
        let resident = crate::memory::resident_peak().map_or(0, |b| b >> 20);
        let log = || match peak {
            Some(mib) => tracing::info!(
                stage = self.name,
                heap_peak_mib = mib,
                resident_high_mib = resident,
                "{} in {:.2?}",
                self.name,
                elapsed
            ),
            None => tracing::info!(stage = self.name, "{} in {:.2?}", self.name, elapsed),
        };
        match &self.owner.multi {
            Some(multi) => multi.suspend(log),
            None => log(),
        }
        if let Ok(mut t) = self.owner.timings.lock() {
            t.push((self.name.to_string(), elapsed));
        }
        self.owner.emit(serde_json::json!({
            "event": "finish", "stage": self.name, "seconds": elapsed.as_secs_f64()
        }));
        elapsed
    }
}
