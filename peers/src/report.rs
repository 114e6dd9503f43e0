//! The parent process: runs [`crate::PROCESSES`] children on every core,
//! then as many on one thread, gathers their samples and agreement checks,
//! and prints a table for each thread count.

use std::collections::HashMap;
use std::process::{Command, Stdio};

use crate::PROCESSES;
use crate::contest::SIDES;

/// A row's samples (nanoseconds, by side in [`SIDES`] order, in round
/// order) and the largest disagreement any check after it found.
#[derive(Default)]
struct Row {
    name: String,
    samples: [Vec<f64>; 3],
    worst: f32,
    nodes: usize,
}

/// Rows in the order the children ran them.
#[derive(Default)]
struct Table {
    rows: Vec<Row>,
    at: HashMap<String, usize>,
}

impl Table {
    fn row(&mut self, name: &str) -> &mut Row {
        let next = self.rows.len();
        let at = *self.at.entry(name.to_owned()).or_insert(next);
        if at == next {
            self.rows.push(Row {
                name: name.to_owned(),
                ..Row::default()
            });
        }
        &mut self.rows[at]
    }

    /// Reads a child's output lines (`sample` and `agree`).
    fn read(&mut self, out: &str) {
        for line in out.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                ["sample", row, side, nanos] => {
                    let side = SIDES.iter().position(|s| s == side).expect("a known side");
                    let nanos: f64 = nanos.parse().expect("nanoseconds");
                    self.row(row).samples[side].push(nanos);
                }
                ["agree", row, _side, nodes, worst] => {
                    let row = self.row(row);
                    row.worst = row.worst.max(worst.parse().expect("a difference"));
                    row.nodes = nodes.parse().expect("a count");
                }
                _ => println!("{line}"),
            }
        }
    }
}

/// The `q` quantile (nearest rank) of `values`.
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Nanoseconds as criterion writes them.
fn time(nanos: f64) -> String {
    match nanos {
        n if n < 1e3 => format!("{n:.0} ns"),
        n if n < 1e6 => format!("{:.1} µs", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

/// Runs the children for `threads` and gathers them.
fn run(threads: usize) -> Table {
    let exe = std::env::current_exe().expect("this program's path");
    let mut table = Table::default();
    for process in 0..PROCESSES {
        let out = Command::new(&exe)
            .args(["--child", &threads.to_string(), &process.to_string()])
            .env("RAYON_NUM_THREADS", threads.to_string())
            .stderr(Stdio::inherit())
            .output()
            .expect("a child process starts");
        if !out.status.success() {
            eprintln!("keel-peers: child {process} ({threads} threads) failed");
            std::process::exit(1);
        }
        table.read(&String::from_utf8_lossy(&out.stdout));
    }
    table
}

/// Prints `table` as markdown.
fn print(table: &Table, threads: usize) {
    let timed = || table.rows.iter().filter(|r| !r.samples[0].is_empty());
    let rounds = timed().next().map_or(0, |r| r.samples[0].len());
    println!(
        "\n{threads} thread{}, {rounds} rounds from {PROCESSES} processes; medians, and the spread (p10-p90) of the per-round ratio of Bevy's faster column to Keel:\n",
        if threads == 1 { "" } else { "s" }
    );
    println!(
        "| row | Keel | Bevy | Bevy, static opt off | Bevy / Keel | p10-p90 | worst difference |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for row in timed() {
        let medians = row.samples.clone().map(|s| quantile(&s, 0.5));
        let best = if medians[1] <= medians[2] { 1 } else { 2 };
        let ratios: Vec<f64> = (row.samples[best].iter().zip(&row.samples[0]))
            .map(|(b, k)| b / k.max(1.0))
            .collect();
        // A `none` row: Keel's side returns early; a ratio of a constant says nothing.
        let (ratio, spread) = if row.name.starts_with("propagate_none") {
            ("-".to_owned(), "-".to_owned())
        } else {
            (
                format!("{:.1}x", quantile(&ratios, 0.5)),
                format!(
                    "{:.1}-{:.1}x",
                    quantile(&ratios, 0.1),
                    quantile(&ratios, 0.9)
                ),
            )
        };
        println!(
            "| `{}` | {} | {} | {} | {ratio} | {spread} | {:.0e} ({} nodes) |",
            row.name,
            time(medians[0]),
            time(medians[1]),
            time(medians[2]),
            row.worst,
            row.nodes
        );
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {threads} threads")
}

/// Runs every core, then one thread, and prints both tables.
pub fn parent() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![cores];
    if cores > 1 {
        counts.push(1);
    }
    let tables: Vec<(usize, Table)> = counts.into_iter().map(|t| (t, run(t))).collect();
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!("Keel and Bevy 0.20 on {} ({date}).", machine());
    for (threads, table) in &tables {
        print(table, *threads);
    }
}
