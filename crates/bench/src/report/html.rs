//! The HTML form of a report (`index.html`): the same content as the Markdown, with the
//! charts as images.

use super::md::{key_counters, names_in, pivot, status};
use super::Report;
use std::fmt::Write as _;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Minimal Markdown for the `about` texts: paragraphs, `- ` lists, `code`, **bold**.
fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    let mut bold = false;
    let e = esc(s);
    let mut rest = e.as_str();
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("**") {
            out.push_str(if bold { "</b>" } else { "<b>" });
            bold = !bold;
            rest = &rest[2..];
            continue;
        }
        if c == '`' {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    if code {
        out.push_str("</code>");
    }
    if bold {
        out.push_str("</b>");
    }
    out
}

fn blocks(md: &str) -> String {
    let mut out = String::new();
    for para in md.split("\n\n") {
        let lines: Vec<&str> = para.lines().collect();
        if !lines.is_empty() && lines.iter().all(|l| l.trim_start().starts_with("- ")) {
            out.push_str("<ul>");
            for l in lines {
                let _ = write!(
                    out,
                    "<li>{}</li>",
                    inline(l.trim_start().trim_start_matches("- "))
                );
            }
            out.push_str("</ul>\n");
        } else if !para.trim().is_empty() {
            let _ = writeln!(out, "<p>{}</p>", inline(&lines.join(" ")));
        }
    }
    out
}

const STYLE: &str = "body{font-family:Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.na{color:#a33}.charts img{width:49%;min-width:360px}code{background:#f5f5f5;padding:0 3px}";

pub fn render(report: &Report, charts: &[Vec<(String, String)>]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>",
        esc(&report.title)
    );
    let _ = writeln!(s, "<h1>{}</h1>", esc(&report.title));
    let _ = writeln!(
        s,
        "<p>Experiment <code>{}</code>{} — generated on {}.</p>",
        esc(&report.name),
        if report.quick { " (quick mode)" } else { "" },
        esc(&report.env.date)
    );
    s.push_str(&blocks(&report.about));

    let e = &report.env;
    s.push_str("<h2>Environment</h2><table>");
    let mut row = |k: &str, v: String| {
        let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    };
    row("CPU", format!("{} × {}", e.cpus, e.host_cpu));
    row("Kernel", e.kernel.clone());
    row("Memory", e.memory.clone());
    row("Data directory", e.datadir.clone());
    row(
        "fsync latency",
        e.fsync
            .as_ref()
            .map(|f| {
                format!(
                    "mean {:.0} µs, p50 {:.0} µs, p99 {:.0} µs ({} rounds of 4 KiB write + fdatasync)",
                    f.mean_us, f.p50_us, f.p99_us, f.samples
                )
            })
            .unwrap_or_else(|| "not measured".into()),
    );
    row("cohort bench", e.bench_version.clone());
    for (k, v) in &e.versions {
        row(&format!("{k} version"), v.clone());
    }
    for n in &e.notes {
        row("note", n.clone());
    }
    s.push_str("</table>\n");

    s.push_str("<h2>Variants</h2><table><tr><th>variant</th><th>what</th><th>set-up</th><th>status</th></tr>");
    for v in &report.variants {
        let st = match &v.unavailable {
            None => "ran".to_string(),
            Some(e) => format!("<span class=\"na\">not available: {}</span>", esc(e)),
        };
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            esc(&v.name),
            inline(&v.about),
            esc(&v.setup),
            st
        );
    }
    s.push_str("</table>\n");
    if !report.differing_variables.is_empty() {
        let names: Vec<&String> = report
            .variants
            .iter()
            .filter(|v| v.unavailable.is_none())
            .map(|v| &v.name)
            .collect();
        s.push_str(
            "<p>Server variables that differ between the variants:</p><table><tr><th>variable</th>",
        );
        for n in &names {
            let _ = write!(s, "<th>{}</th>", esc(n));
        }
        s.push_str("</tr>");
        for (var, vals) in &report.differing_variables {
            let _ = write!(s, "<tr><td><code>{}</code></td>", esc(var));
            for n in &names {
                let _ = write!(
                    s,
                    "<td>{}</td>",
                    esc(vals.get(*n).map(String::as_str).unwrap_or("–"))
                );
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>\n");
    }

    for (i, section) in report.sections.iter().enumerate() {
        let _ = writeln!(s, "<h2>{}</h2>", esc(&section.title));
        s.push_str(&blocks(&section.about));
        if section.results.is_empty() {
            s.push_str("<p>No variant produced results.</p>");
            continue;
        }
        let names = names_in(section);
        s.push_str("<p>Throughput (transactions per second):</p><table><tr><th>connections</th>");
        for n in &names {
            let _ = write!(s, "<th>{}</th>", esc(n));
        }
        s.push_str("</tr>");
        for (c, row) in pivot(section, &names) {
            let _ = write!(s, "<tr><td class=\"n\">{c}</td>");
            for v in row {
                let _ = write!(
                    s,
                    "<td class=\"n\">{}</td>",
                    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into())
                );
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>\n<div class=\"charts\">");
        if let Some(list) = charts.get(i) {
            for (file, title) in list {
                let _ = write!(s, "<img src=\"{}\" alt=\"{}\">", esc(file), esc(title));
            }
        }
        s.push_str("</div>\n<table><tr><th>variant</th><th>conns</th><th>tps</th><th>qps</th><th>avg ms</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>errors (retried)</th><th>client µs/tx</th><th>srv %usr</th><th>srv %sys</th><th>srv %cpu</th><th>srv µs/tx</th><th>status</th></tr>");
        for r in &section.results {
            let l = &r.latency_ms;
            let sc = r.server_cpu.as_ref();
            let o = |v: Option<f64>, d: usize| {
                v.map(|x| format!("{x:.d$}")).unwrap_or_else(|| "–".into())
            };
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td><td class=\"n\">{} ({})</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                esc(&r.label),
                r.connections,
                r.tps,
                r.qps,
                l.mean,
                l.p50,
                l.p95,
                l.p99,
                l.max,
                r.errors.values().sum::<u64>(),
                r.ignored_errors,
                r.client_cpu.us_per_txn,
                o(sc.map(|c| c.usr_pct), 0),
                o(sc.map(|c| c.sys_pct), 0),
                o(sc.map(|c| c.cpu_pct), 0),
                o(r.server_us_per_txn, 1),
                esc(&status(r))
            );
        }
        s.push_str("</table>\n");
        let counters = key_counters(section);
        if !counters.is_empty() {
            s.push_str("<p>Server counters per transaction:</p><table><tr><th>variant</th><th>conns</th><th>counters</th></tr>");
            for (label, conns, text) in counters {
                let _ = write!(
                    s,
                    "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                    esc(&label),
                    conns,
                    esc(&text)
                );
            }
            s.push_str("</table>\n");
        }
    }
    if !report.notes.is_empty() {
        s.push_str("<h2>Notes</h2><ul>");
        for n in &report.notes {
            let _ = write!(s, "<li>{}</li>", inline(n));
        }
        s.push_str("</ul>");
    }
    s.push_str("<p>Raw data: <a href=\"results.json\">results.json</a>, <a href=\"results.csv\">results.csv</a>.</p></body></html>\n");
    s
}
