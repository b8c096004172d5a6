//! The pieces every chart of the HTML pages is drawn with: text escaped for HTML (for the few places that
//! build text outside a template), numbers as labels and coordinates, the room a label takes, what an axis
//! that does not start at zero says, and the map from figures to pixels. Below the pages' modules (html,
//! headline, growth, history), which all draw with them; it knows nothing of runs or verdicts.

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

/// The font size of a chart's text, in pixels (`svg{font:11px ...}` in [`crate::chrome`]'s style).
pub(crate) const FONT_PX: f64 = 11.0;

/// How wide `text` is drawn at `font_px`: an upper estimate (0.62 em a character: wider than the average
/// glyph of a sans-serif face, digits included), so a margin made from it never clips the label.
pub(crate) fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * font_px * 0.62
}

/// The margin that holds the widest of `labels` at the charts' font, with `padding` pixels beside it, and
/// never less than `least`: an axis's labels are never clipped, however long a benchmark's or metric's name.
pub(crate) fn margin_for<'a>(
    labels: impl IntoIterator<Item = &'a str>,
    padding: f64,
    least: f64,
) -> f64 {
    labels
        .into_iter()
        .map(|label| text_width(label, FONT_PX) + padding)
        .fold(least, f64::max)
}

/// What an axis of figures that does not start at zero says, so a reader does not take a small change for a
/// large one: `axis from 1200, not 0`. `None` for an axis from 0 (or below it: a signed axis crosses 0).
pub(crate) fn axis_from_note(lo: f64) -> Option<String> {
    (lo > 0.0).then(|| format!("axis from {}, not 0", num(lo)))
}

/// A limit or budget in percent as it was set: `1%`, `0.5%`, `10%`, never `1.000%` nor a figure derived from
/// it (to a millionth of a percent, so `0.07 * 100` reads `7%`).
pub fn percent_as_set(percent: f64) -> String {
    let rounded = (percent * 1e6).round() / 1e6;
    format!("{rounded}%")
}

/// A figure in a table, where a reader compares two of them: whole figures as they are, others to four
/// significant places at least (`100.5`, not the chart label's `100`), so a cell agrees with its change.
pub(crate) fn figure(value: f64) -> String {
    let magnitude = value.abs();
    if value == value.trunc() || magnitude >= 10_000.0 {
        format!("{value:.0}")
    } else if magnitude >= 100.0 {
        format!("{value:.1}")
    } else if magnitude >= 10.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
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
