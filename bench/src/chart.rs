//! Line charts on log-log axes, written as SVG with no dependency: what
//! the benchmarks that measure how a cost grows draw beside their tables.

use std::fmt::Write as _;

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its name, in the legend.
    pub name: &'static str,
    /// Its points, `(x, y)`, both positive.
    pub points: Vec<(f64, f64)>,
}

/// A chart of a few series against the same axes.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The title, above the plot.
    pub title: &'static str,
    /// What the horizontal axis counts.
    pub x_label: &'static str,
    /// What the vertical axis measures.
    pub y_label: &'static str,
    /// The lines.
    pub series: Vec<Series>,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 220.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];

/// The powers of ten that enclose `low..=high`.
fn decades(low: f64, high: f64) -> (i32, i32) {
    let low = low.max(f64::MIN_POSITIVE).log10().floor() as i32;
    let high = high.max(f64::MIN_POSITIVE).log10().ceil() as i32;
    (low, high.max(low + 1))
}

/// A power of ten as a short label: 0.01, 1, 1k, 10M.
fn label(exponent: i32) -> String {
    match exponent {
        e if e < 0 => format!("{}", 10f64.powi(e)),
        0..=2 => format!("{}", 10i64.pow(exponent.unsigned_abs())),
        3..=5 => format!("{}k", 10i64.pow(exponent.unsigned_abs() - 3)),
        _ => format!("{}M", 10i64.pow(exponent.unsigned_abs().saturating_sub(6))),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Chart {
    /// The chart as a standalone SVG document.
    pub fn svg(&self) -> String {
        let points = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x_min, mut x_max, mut y_min, mut y_max) = (f64::MAX, 0f64, f64::MAX, 0f64);
        for &(x, y) in points {
            x_min = x_min.min(x);
            x_max = x_max.max(x);
            y_min = y_min.min(y);
            y_max = y_max.max(y);
        }
        let (x_low, x_high) = decades(x_min, x_max);
        let (y_low, y_high) = decades(y_min, y_max);
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        let sx =
            |x: f64| LEFT + (x.log10() - f64::from(x_low)) / f64::from(x_high - x_low) * plot_w;
        let sy = |y: f64| {
            TOP + plot_h - (y.log10() - f64::from(y_low)) / f64::from(y_high - y_low) * plot_h
        };
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = write!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = write!(
            out,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
            LEFT + plot_w / 2.0,
            escape(self.title)
        );
        for e in x_low..=x_high {
            let x = sx(10f64.powi(e));
            let _ = write!(
                out,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                TOP + plot_h,
                TOP + plot_h + 18.0,
                label(e)
            );
        }
        for e in y_low..=y_high {
            let y = sy(10f64.powi(e));
            let _ = write!(
                out,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + plot_w,
                LEFT - 8.0,
                y + 4.0,
                label(e)
            );
        }
        let _ = write!(
            out,
            r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444"/>"##
        );
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{} (log)</text>"#,
            LEFT + plot_w / 2.0,
            HEIGHT - 16.0,
            escape(self.x_label)
        );
        let _ = write!(
            out,
            r#"<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">{} (log)</text>"#,
            TOP + plot_h / 2.0,
            escape(self.y_label)
        );
        for (n, series) in self.series.iter().enumerate() {
            let colour = COLOURS[n % COLOURS.len()];
            let path: Vec<String> = series
                .points
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                .collect();
            let _ = write!(
                out,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                path.join(" ")
            );
            for &(x, y) in &series.points {
                let _ = write!(
                    out,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                    sx(x),
                    sy(y)
                );
            }
            let ly = TOP + 10.0 + 20.0 * n as f64;
            let lx = LEFT + plot_w + 14.0;
            let _ = write!(
                out,
                r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{colour}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                lx + 18.0,
                lx + 24.0,
                ly + 4.0,
                escape(series.name)
            );
        }
        out.push_str("</svg>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_span_whole_decades_and_labels_read_well() {
        assert_eq!(decades(10.0, 10_000.0), (1, 4));
        assert_eq!(decades(0.3, 7.0), (-1, 1));
        assert_eq!(decades(5.0, 5.0), (0, 1));
        assert_eq!(
            [-2, 0, 2, 3, 4, 6].map(label),
            ["0.01", "1", "100", "1k", "10k", "1M"]
        );
    }

    #[test]
    fn every_series_is_drawn_and_text_is_escaped() {
        let chart = Chart {
            title: "a <b> & c",
            x_label: "n",
            y_label: "µs",
            series: vec![
                Series {
                    name: "one",
                    points: vec![(10.0, 1.0), (100.0, 2.0)],
                },
                Series {
                    name: "two",
                    points: vec![(10.0, 3.0), (100.0, 30.0)],
                },
            ],
        };
        let svg = chart.svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("a &lt;b&gt; &amp; c"));
    }
}
