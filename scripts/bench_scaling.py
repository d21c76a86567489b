"""Draws the scaling curve of Docs/Performance.md (section 7) as an SVG, by hand: no plotting
package, so that scripts/bench needs nothing beyond Python's standard library.

Two panels in one picture: requests per second against requests in flight (x on a log scale),
Courier's curl engine beside bare libcurl; below it, the RSS each request in flight costs.
"""

import math
from xml.sax.saxutils import escape

WIDTH = 760
LEFT, RIGHT = 90, 40
TOP_PANEL = (75, 345)      # y of the first panel's plot area: top, bottom
BOTTOM_PANEL = (435, 600)  # y of the second panel's plot area
HEIGHT = 665
SERIES = (("courier", "Courier (curl engine, callbacks)", "#1f6fb4"),
          ("bare", "bare libcurl (multi handle)", "#d9661f"))


def nice_step(span, ticks=5):
    """A round tick step (1, 2 or 5 × a power of ten) giving about `ticks` ticks over `span`."""
    if span <= 0:
        return 1
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def short(value):
    """12,345 -> '12.3k'; small values keep a decimal."""
    if value >= 100_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    if value >= 10:
        return f"{value:.0f}"
    return f"{value:.1f}"


def text(x, y, content, size=12, anchor="middle", weight="normal", fill="#222", rotate=None):
    transform = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}" font-family="sans-serif"{transform}>{escape(content)}</text>')


def panel(points, field, top, bottom, title, y_label, target=None, target_label=""):
    """One plot: x = requests in flight (log), y = points[i][series][field]; returns SVG elements."""
    xs = [point["in_flight"] for point in points]
    values = [point[name][field] for point in points for name, _, _ in SERIES if point[name].get(field) is not None]
    if not xs or not values:
        return []
    low, high = math.log10(min(xs)), math.log10(max(xs))
    pad = max(0.15, (high - low) * 0.05)
    low, high = low - pad, high + 2 * pad  # room on the right for a label beside the last point
    right = WIDTH - RIGHT

    def x_of(n):
        return LEFT + (math.log10(n) - low) / (high - low) * (right - LEFT)

    y_max = max(values + ([target] if target else [])) * 1.18
    step = nice_step(y_max)
    y_max = math.ceil(y_max / step) * step

    def y_of(value):
        return bottom - value / y_max * (bottom - top)

    parts = [text(WIDTH / 2, top - 22, title, size=14, weight="bold")]
    # Grid and y ticks.
    tick = 0.0
    while tick <= y_max + step / 2:
        y = y_of(tick)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#e3e3e3" stroke-width="1"/>')
        parts.append(text(LEFT - 8, y + 4, short(tick) if tick else "0", size=11, anchor="end", fill="#555"))
        tick += step
    # x ticks at the measured points.
    for n in xs:
        x = x_of(n)
        parts.append(f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 5}" stroke="#555"/>')
        parts.append(text(x, bottom + 19, f"{n:,}", size=11, fill="#555"))
    parts.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#555"/>')
    parts.append(f'<line x1="{LEFT}" y1="{top}" x2="{LEFT}" y2="{bottom}" stroke="#555"/>')
    parts.append(text((LEFT + right) / 2, bottom + 40, "requests in flight (log scale)", size=12))
    parts.append(text(LEFT - 62, (top + bottom) / 2, y_label, size=12, rotate=-90))
    if target:
        y = y_of(target)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#888" stroke-dasharray="6 4"/>')
        parts.append(text(right - 4, y - 6, target_label, size=11, anchor="end", fill="#666"))
    # The two series: a line through the points, each point marked and labelled with its value.
    values = {name: {point["in_flight"]: point[name].get(field) for point in points} for name, _, _ in SERIES}
    for index, (name, _, colour) in enumerate(SERIES):
        other = SERIES[1 - index][0]
        located = [(x_of(point["in_flight"]), y_of(point[name][field]), point[name][field], point["in_flight"])
                   for point in points if point[name].get(field) is not None]
        if len(located) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in located)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        for x, y, value, in_flight in located:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>')
            # Each label on the side away from the other series at the same point (above the
            # higher value, below the lower), so that close lines stay readable; a label that
            # would cross the x axis goes to the right of its point.
            rival = values[other].get(in_flight)
            above = rival is None or value > rival or (value == rival and index == 0)
            if above:
                parts.append(text(x, y - 9, short(value), size=10, fill=colour))
            elif y + 18 < bottom - 2:
                parts.append(text(x, y + 18, short(value), size=10, fill=colour))
            else:
                parts.append(text(x + 8, y + 4, short(value), size=10, anchor="start", fill=colour))
    return parts


def svg(points, title):
    """The whole picture, as text. `points`: [{"in_flight": n, "courier": {...}, "bare": {...}}],
    each series holding "requests_per_second" and "kib_per_request" (None where not measured)."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             text(WIDTH / 2, 20, title, size=15, weight="bold")]
    parts += panel(points, "requests_per_second", *TOP_PANEL, "Requests per second", "requests/s")
    memory = [point for point in points if point["in_flight"] > 1]
    parts += panel(memory, "kib_per_request", *BOTTOM_PANEL, "RSS per request in flight (peak RSS − the same client's at 1, ÷ N)",
                   "KiB per request", target=16, target_label="target: ≤ 16 KiB")
    # Legend, top left of the first panel.
    for index, (_, label, colour) in enumerate(SERIES):
        y = TOP_PANEL[0] + 12 + index * 18
        parts.append(f'<line x1="{LEFT + 12}" y1="{y}" x2="{LEFT + 36}" y2="{y}" stroke="{colour}" stroke-width="2.5"/>')
        parts.append(f'<circle cx="{LEFT + 24}" cy="{y}" r="4" fill="{colour}"/>')
        parts.append(text(LEFT + 42, y + 4, label, size=12, anchor="start"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
