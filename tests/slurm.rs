//! The README's cluster sweep, run for real on a one-node Slurm cluster on this machine
//! (`scripts/slurm-local.sh`): a 4-task job array over 16 seeds at 256 and its merge job
//! (`scripts/slurm-sweep.sh`) give the same table and contact sheet as one machine's sweep; one
//! task cancelled mid-seed and the same command submitted again still give them, and leave no
//! partial file.
//!
//! It skips, saying why, where Slurm cannot start (not root, `slurm-wlm` or `munge` missing);
//! `.ci/run` installs them and sets `ISLAGEN_REQUIRE_SLURM=1`, which turns a skip into a failure.

use crate::sweep_table::rows;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SEEDS: &str = "1..16";
/// How many seeds `SEEDS` names.
const SEED_COUNT: usize = 16;
const TASKS: usize = 4;
/// The dials every seed is made with, on one machine and on the cluster alike: erosion off, which
/// makes a seed at 256 three times quicker (the test is of the cluster's plumbing, not of the
/// land; with the default dials the 4-task array over 40 seeds took about 75 s here).
const CONFIG: &str = r#"{"Erosion": "off"}"#;
/// How long one array (16 seeds at 256 on two CPUs, a minute or two) may take before the test
/// gives up and says what the queue held.
const BOUND: Duration = Duration::from_secs(600);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A one-node cluster in a temporary folder, stopped when dropped.
struct Cluster {
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let ports = format!("{} {}", free_port()?, free_port()?);
        let o = Command::new(root().join("scripts/slurm-local.sh"))
            .args(["start", dir.path().to_str().unwrap(), "2"])
            .env("SLURM_LOCAL_PORTS", ports)
            .output()
            .map_err(|e| format!("scripts/slurm-local.sh: {e}"))?;
        let cluster = Cluster { dir };
        if o.status.success() {
            Ok(cluster)
        } else {
            Err(text(&o))
        }
    }

    /// A Slurm command (or a script calling them) talking to this cluster.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.dir.path().join("slurm.conf"))
            .env("ISLAGEN", env!("CARGO_BIN_EXE_islagen"));
        c
    }

    fn run(&self, program: &str, args: &[&str]) -> String {
        let o = self.command(program).args(args).output().unwrap();
        assert!(o.status.success(), "{program} {args:?}: {}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// `scripts/slurm-sweep.sh` over the test's seeds into `out`; its output.
    fn sweep(&self, out: &Path, config: &Path, wait: bool) -> String {
        let tasks = TASKS.to_string();
        let mut args = vec!["--tasks", &tasks, "--out", out.to_str().unwrap()];
        if wait {
            args.push("--wait");
        }
        args.extend(["--", "--seeds", SEEDS, "--size", "256", "--config"]);
        args.push(config.to_str().unwrap());
        let mut child = self
            .command(root().join("scripts/slurm-sweep.sh"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > BOUND {
                let queue = self.run("squeue", &[]);
                child.kill().ok();
                panic!("the sweep took over {BOUND:?}; the queue: {queue}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let o = child.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "slurm-sweep.sh: {}{}",
            text(&o),
            logs(out)
        );
        text(&o)
    }

    /// Waits until the queue is empty.
    fn drain(&self) {
        let start = Instant::now();
        loop {
            let queue = self.run("squeue", &["-h"]);
            if queue.trim().is_empty() {
                return;
            }
            assert!(start.elapsed() < BOUND, "the queue did not drain: {queue}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/slurm-local.sh"))
            .args(["stop", self.dir.path().to_str().unwrap()])
            .output();
    }
}

fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

/// Every log the jobs wrote, for a failure's message.
fn logs(out: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(out.join("logs"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let body = std::fs::read_to_string(e.path()).unwrap_or_default();
        all += &format!("\n--- {}\n{body}", e.path().display());
    }
    all
}

/// The contact sheet of every seed's thumbnail in the shard folders, in seed order, as `merge`
/// must have drawn it.
fn sheet_of_every_seed(out: &Path) -> islagen::render::Image {
    let mut thumbs = Vec::new();
    for seed in 1..=SEED_COUNT as i32 {
        let found: Vec<PathBuf> = (0..TASKS)
            .map(|k| out.join(format!("shard-{k}/thumbs/Seed_{seed}.png")))
            .filter(|p| p.exists())
            .collect();
        assert_eq!(found.len(), 1, "seed {seed}'s thumbnail: {found:?}");
        thumbs.push((seed, islagen::render::read_png(&found[0]).unwrap()));
    }
    islagen::sweep::contact_sheet(&thumbs)
}

/// Files under `dir` whose name marks a write cut short (`.NAME.islagen-PID-N.tmp`).
fn partial_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            found.extend(partial_files(&p));
        } else if e.file_name().to_string_lossy().ends_with(".tmp") {
            found.push(p);
        }
    }
    found
}

/// The merged sweep in `out/all` is the single machine's `single`, row for row, with a contact
/// sheet of all the seeds, and nothing partial anywhere.
fn assert_merged_as_single(out: &Path, single: &Path) {
    let merged = out.join("all");
    assert_eq!(rows(&merged).len(), SEED_COUNT);
    assert_eq!(rows(&merged), rows(single), "merged table ≠ one machine's");
    let sheet = islagen::render::read_png(&merged.join("contact_sheet.png")).unwrap();
    let expected = sheet_of_every_seed(out);
    assert_eq!(
        (sheet.width, sheet.height),
        (expected.width, expected.height)
    );
    assert!(sheet.rgb == expected.rgb, "the contact sheet lacks a seed");
    let single_sheet = islagen::render::read_png(&single.join("contact_sheet.png")).unwrap();
    assert!(
        sheet.rgb == single_sheet.rgb,
        "contact sheet ≠ one machine's"
    );
    assert_eq!(
        partial_files(out),
        Vec::<PathBuf>::new(),
        "partial files left"
    );
}

/// The array job's id in what `scripts/slurm-sweep.sh` said ("array job ID: …").
fn array_id(said: &str) -> String {
    said.split_whitespace()
        .nth(2)
        .and_then(|id| id.strip_suffix(':'))
        .unwrap_or_else(|| panic!("no array job id in {said:?}"))
        .to_string()
}

fn records(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("records"))
        .map(|r| r.flatten().count())
        .unwrap_or(0)
}

#[test]
fn a_slurm_array_sweep_merges_to_one_machines_sweep_and_resumes_after_a_cancelled_task() {
    let cluster = match Cluster::start() {
        Ok(c) => c,
        Err(why) => {
            crate::skip::skip(
                "SLURM",
                &format!("a one-node Slurm cluster could not start here: {why}"),
            );
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config.json");
    std::fs::write(&config, CONFIG).unwrap();
    let single = tmp.path().join("single");
    let start = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_islagen"))
        .args(["sweep", "--seeds", SEEDS, "--size", "256", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&single)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    eprintln!(
        "one machine, 16 seeds at 256: {:.1} s",
        start.elapsed().as_secs_f64()
    );

    // The array and its merge, start to end.
    let clean = tmp.path().join("clean");
    let start = Instant::now();
    cluster.sweep(&clean, &config, true);
    eprintln!(
        "4-task array over 16 seeds at 256, merged: {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert_merged_as_single(&clean, &single);

    // Task 1 cancelled once it has finished a seed (so mid-way through its next one): the merge
    // job is dropped with it, and the same command again completes the sweep.
    let cut = tmp.path().join("cut");
    let array = array_id(&cluster.sweep(&cut, &config, false));
    let shard = cut.join("shard-1");
    let waited = Instant::now();
    while records(&shard) == 0 {
        assert!(waited.elapsed() < BOUND, "task 1 never finished a seed");
        std::thread::sleep(Duration::from_millis(50));
    }
    cluster.run("scancel", &[&format!("{array}_1")]);
    cluster.drain();
    let done = records(&shard);
    assert!(
        done < SEED_COUNT / TASKS,
        "task 1 finished before it was cancelled"
    );
    assert!(!cut.join("all").exists(), "merged without task 1");
    let again = cluster.sweep(&cut, &config, true);
    eprintln!(
        "the same command again, after task 1 was cancelled: {:.1} s",
        waited.elapsed().as_secs_f64()
    );
    assert!(again.contains("merge job"), "{again}");
    assert_merged_as_single(&cut, &single);
    let log = cut.join(format!("logs/sweep-{}_0.log", array_id(&again)));
    let resumed = std::fs::read_to_string(&log).unwrap();
    assert!(
        resumed.contains(&format!(
            "0 seeds generated, {} already done",
            SEED_COUNT / TASKS
        )),
        "task 0 redid its seeds: {resumed}"
    );
}
