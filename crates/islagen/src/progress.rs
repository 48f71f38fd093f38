//! Progress and timing for long work, as typed events. Each stage's start and finish
//! ([`ProgressEvent`], serde) and its steps go to the [`ProgressSink`] the caller gives: the
//! command line draws bars or prints the events as JSON lines, and `islagen serve` reads those
//! lines back as the same type. Every stage's wall time is kept for the run's summary and logged
//! through tracing. The engine draws nothing and writes nothing to stdout itself. Stages never
//! see this type: they take an `on_column` callback.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// What a run reports as it goes: one event as a stage starts and one as it finishes. As JSON
/// (`islagen --progress-json`): `{"event":"start","stage":NAME,"total":N}` and
/// `{"event":"finish","stage":NAME,"seconds":S}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ProgressEvent {
    /// A stage began.
    Start {
        /// The stage's name (`pipeline::stage_names`).
        stage: String,
        /// Its steps (0 when it has no natural count).
        #[serde(default)]
        total: u64,
    },
    /// A stage ended.
    Finish {
        /// The stage's name.
        stage: String,
        /// Its wall time, seconds.
        seconds: f64,
    },
}

/// Where a run's progress goes. Every method may be called from any thread.
pub trait ProgressSink: Send + Sync + std::fmt::Debug {
    /// A stage started or finished.
    fn event(&self, event: &ProgressEvent);
    /// One step of the running stage `stage` is done.
    fn step(&self, stage: &'static str) {
        let _ = stage;
    }
    /// Runs `log` (a log line) so that it does not tear what the sink draws.
    fn around_log(&self, log: &mut dyn FnMut()) {
        log();
    }
}

/// Where progress goes, and the timings so far.
#[derive(Debug)]
pub struct Progress {
    sink: Option<Arc<dyn ProgressSink>>,
    timings: Mutex<Vec<(String, Duration)>>,
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
    /// Progress reported to `sink` (timings are kept too).
    pub fn to_sink(sink: Arc<dyn ProgressSink>) -> Progress {
        Progress {
            sink: Some(sink),
            ..Progress::hidden()
        }
    }

    /// Progress reported nowhere (timings are still kept).
    pub fn hidden() -> Progress {
        Progress {
            sink: None,
            timings: Mutex::new(Vec::new()),
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

    fn emit(&self, event: ProgressEvent) {
        if let Some(sink) = &self.sink {
            sink.event(&event);
        }
    }

    /// Starts a stage of `total` steps (0 when the stage has no natural count).
    pub fn stage(&self, name: &'static str, total: u64) -> Stage<'_> {
        self.emit(ProgressEvent::Start {
            stage: name.to_string(),
            total,
        });
        crate::memory::reset_peak();
        Stage {
            owner: self,
            name,
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
    start: Instant,
}

impl Stage<'_> {
    /// One step done (callable from any thread).
    pub fn tick(&self) {
        if let Some(sink) = &self.owner.sink {
            sink.step(self.name);
        }
    }

    /// Ends the stage: reports, logs and records its time.
    pub fn finish(self) -> Duration {
        let elapsed = self.start.elapsed();
        let peak = crate::memory::heap().map(|(_, peak)| peak >> 20);
        let resident = crate::memory::resident_peak().map_or(0, |b| b >> 20);
        let mut log = || match peak {
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
        match &self.owner.sink {
            Some(sink) => sink.around_log(&mut log),
            None => log(),
        }
        if let Ok(mut t) = self.owner.timings.lock() {
            t.push((self.name.to_string(), elapsed));
        }
        self.owner.emit(ProgressEvent::Finish {
            stage: self.name.to_string(),
            seconds: elapsed.as_secs_f64(),
        });
        elapsed
    }
}
