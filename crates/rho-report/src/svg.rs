//! The pieces every chart of the HTML page is drawn with: text escaped for HTML, numbers as labels and
//! coordinates, and the map from figures to pixels. Below the page's modules (html, headline, growth), which
//! all draw with them; it knows nothing of runs or verdicts.

/// Text made safe in HTML content and in a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A number as a chart label: the places that matter.
pub(crate) fn num(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 100.0 || value == value.trunc() {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// A coordinate, to a tenth of a pixel.
pub(crate) fn px(value: f64) -> String {
    let value = if value.is_finite() { value } else { 0.0 };
    format!("{value:.1}")
}

/// A map from `[lo, hi]` to `[left, right]` pixels: linear, or logarithmic (then `lo` is positive, and a
/// value below it sits at `left`).
#[derive(Clone, Copy)]
pub(crate) struct Scale {
    lo: f64,
    hi: f64,
    left: f64,
    right: f64,
    log: bool,
}

impl Scale {
    pub(crate) fn new(lo: f64, hi: f64, left: f64, right: f64) -> Scale {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Scale {
            lo,
            hi,
            left,
            right,
            log: false,
        }
    }

    /// Logarithmic from `lo` (positive) to `hi`.
    pub(crate) fn log(lo: f64, hi: f64, left: f64, right: f64) -> Scale {
        let lo = if lo > 0.0 { lo } else { f64::MIN_POSITIVE };
        let hi = if hi > lo { hi } else { lo * 2.0 };
        Scale {
            lo: lo.ln(),
            hi: hi.ln(),
            left,
            right,
            log: true,
        }
    }

    pub(crate) fn at(&self, value: f64) -> f64 {
        let value = if self.log {
            value.max(self.lo.exp()).ln()
        } else {
            value
        };
        self.left + (value - self.lo) / (self.hi - self.lo) * (self.right - self.left)
    }
}
