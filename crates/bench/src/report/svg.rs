//! Line charts as standalone SVG: connections (log scale) on x, one metric on y, one
//! polyline per variant. Text is plain `<text>` in a generic font family, so no font files
//! or system libraries are needed to write or view them.

use std::fmt::Write as _;

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    /// (x, y) points; x > 0.
    pub points: Vec<(f64, f64)>,
}

/// A chart to draw.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub series: Vec<Series>,
}

const W: f64 = 720.0;
const H: f64 = 420.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 56.0;
/// Colour-blind-friendly palette (Okabe–Ito), then greys.
const COLORS: &[&str] = &[
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
    "#777777", "#AAAAAA",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" step for about `n` ticks over `[0, max]`.
fn nice_step(max: f64, n: f64) -> f64 {
    let raw = (max / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Formats a tick value compactly (1.5k, 20k, 0.25).
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else if a >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        trim(v)
    } else {
        format!("{v:.3}").trim_end_matches('0').to_string()
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Renders the chart. Series with no points are listed in the legend as "(no data)".
pub fn render(chart: &Chart) -> String {
    let pts: Vec<(f64, f64)> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite() && (!chart.log_x || *x > 0.0))
        .collect();
    let fx = |x: f64| if chart.log_x { x.max(1e-9).log2() } else { x };
    let (mut x0, mut x1) = pts
        .iter()
        .map(|p| fx(p.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 - x0 < 1e-9 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let ymax_data = pts.iter().map(|p| p.1).fold(0.0f64, f64::max);
    let step = nice_step(if ymax_data > 0.0 { ymax_data } else { 1.0 }, 5.0);
    let ymax = (ymax_data / step).ceil().max(1.0) * step;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let px = |x: f64| LEFT + (fx(x) - x0) / (x1 - x0) * pw;
    let py = |y: f64| TOP + ph - (y / ymax) * ph;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" font-size="15" font-weight="bold">{}</text>"#,
        LEFT,
        esc(&chart.title)
    );
    // Grid and y ticks.
    let mut y = 0.0;
    while y <= ymax + step * 0.001 {
        let yy = py(y);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e5e5e5"/>"##,
            LEFT + pw
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            yy + 4.0,
            fmt_num(y)
        );
        y += step;
    }
    // X ticks at the distinct x values.
    let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut last_px = f64::NEG_INFINITY;
    for x in &xs {
        let xx = px(*x);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#999"/>"##,
            TOP + ph,
            TOP + ph + 5.0
        );
        if xx - last_px >= 24.0 {
            let _ = writeln!(
                s,
                r#"<text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                TOP + ph + 18.0,
                fmt_num(*x)
            );
            last_px = xx;
        }
    }
    // Axes and labels.
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        H - 14.0,
        esc(&chart.x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + ph / 2.0,
        esc(&chart.y_label)
    );
    // Series.
    for (i, ser) in chart.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut points: Vec<(f64, f64)> = ser
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite() && (!chart.log_x || *x > 0.0))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !points.is_empty() {
            let list: Vec<String> = points
                .iter()
                .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"><title>{}</title></polyline>"#,
                list.join(" "),
                esc(&ser.name)
            );
            for (x, y) in &points {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: {} at {}</title></circle>"#,
                    px(*x),
                    py(*y),
                    esc(&ser.name),
                    fmt_num(*y),
                    fmt_num(*x)
                );
            }
        }
        let ly = TOP + 8.0 + i as f64 * 18.0;
        let lx = LEFT + pw + 14.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="3"/>"#,
            lx + 18.0
        );
        let label = if points.is_empty() {
            format!("{} (no data)", ser.name)
        } else {
            ser.name.clone()
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 24.0,
            ly + 4.0,
            esc(&label)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_polyline_per_series_with_real_numbers() {
        let chart = Chart {
            title: "Throughput <tps>".into(),
            x_label: "connections".into(),
            y_label: "tps".into(),
            log_x: true,
            series: vec![
                Series {
                    name: "leader".into(),
                    points: vec![(1.0, 1900.0), (16.0, 8000.0), (64.0, 7300.0)],
                },
                Series {
                    name: "chained".into(),
                    points: vec![(64.0, 6100.0), (1.0, 1800.0)],
                },
                Series {
                    name: "not available".into(),
                    points: vec![],
                },
            ],
        };
        let svg = render(&chart);
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("Throughput &lt;tps&gt;"));
        assert!(svg.contains("(no data)"));
        assert!(
            svg.contains(">8k<") || svg.contains(">8000<"),
            "y ticks reach the max"
        );
        // Points are real coordinates, not NaN, and x is sorted left to right.
        assert!(!svg.contains("NaN"));
        let chained = svg
            .lines()
            .find(|l| l.contains("<polyline") && l.contains("chained"))
            .unwrap();
        let xs: Vec<f64> = chained
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .split(' ')
            .map(|p| p.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert!(xs[0] < xs[1]);
    }

    #[test]
    fn numbers_and_steps() {
        assert_eq!(fmt_num(20000.0), "20k");
        assert_eq!(fmt_num(1500.0), "1500");
        assert_eq!(fmt_num(2.5), "2.5");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(nice_step(8000.0, 5.0), 2000.0);
        assert_eq!(nice_step(1.0, 5.0), 0.2);
        let empty = render(&Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: true,
            series: vec![],
        });
        assert!(!empty.contains("NaN") && !empty.contains("inf"));
    }
}
