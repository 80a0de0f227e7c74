"""How a claims table looks in a notebook and in the book: read at a glance (issue 34, items 11-12).

:meth:`tempnets.book.claims.ClaimsTable._repr_html_` calls :func:`to_html`, so every chapter cell
that shows a table (``table``, ``table.verify()``, ``display(table)``) shows this, unchanged.
What :mod:`tempnets.book.claims` decides (outcomes, verdicts, counts) is not touched here: this module
only draws it.

The page, top to bottom:

* the title and a legend of the verdicts the table uses;
* a **forest plot** (:func:`forest_plot`): one row per claim, in the table's order, our value
  with its 95% interval as a dot and a bar coloured by verdict, against the paper's value (an
  open diamond) and the values that pass the test (a green band).  Each row has its own scale
  (claims measure different things), given by the numbers at its two ends;
* the table: claim, source, paper, ours with its interval, the test, a coloured verdict, over
  seeds.  Columns have fixed shares of the width, so the table never scrolls sideways: it fits
  the text column of the book at 1280 px, and stays in it in a ``full-width`` cell (whose right
  part the page's contents sidebar covers at that width);
* the notes, as numbered footnotes (the claim's note and, for a claim not tested or not
  decided, why).

Maths in a claim's text (``TKRNN^{+2}``, ``λ^{k−1}``, ``w_B``, ``<=``) is set as superscripts,
subscripts and symbols (:func:`math_html`), which needs no MathJax.  A value that was never
reached (``inf``, a run that never met its criterion) is said in words, with how many runs did
not reach it when the interval's :class:`~tempnets.book.intervals.Design` counted them ("not reached
in 3 of 5 runs"), and an interval that no number of these runs bounds is "no finite interval".
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import math
import re

import numpy as np

__all__ = ["VERDICTS", "verdict_key", "math_html", "number_html", "value_html", "to_html",
           "forest_plot", "forest_svg"]

VERDICTS = {
    # key: (label on the badge, colour, what it means: the legend)
    "holds": ("holds", "#1a7f37", "holds: the whole interval passes the test"),
    "does not hold": ("does not hold", "#b35900", "does not hold: the whole interval fails the test "
                      "(the chapter says so)"),
    "inconclusive": ("inconclusive", "#6e7781", "inconclusive at this scale: the interval "
                     "straddles the threshold"),
    "not decided": ("not decided", "#8250df", "not decided: undecidable by design, too few runs "
                    "for any outcome to decide it (shown, not decided)"),
    "not tested": ("not tested", "#0969da", "not tested: the run cannot test it (its control "
                   "learned nothing, or what it is about never happened)"),
    "not as stated": ("not as stated", "#cf222e", "not what the chapter's text says: with your "
                      "own seed or settings this can happen; with the chapter's, please report it"),
}
"""Each verdict a row can show (:func:`verdict_key`): its badge label, colour and legend text."""

SEED_OUTCOMES = {"holds": "holds", "does not hold": "does not hold",
                 "inconclusive at this scale": "inconclusive", "not tested": "not tested"}
"""The outcomes a robustness record counts (:func:`tempnets.book.experiments.outcome_counts`), as verdicts."""

PASS_BAND = "#d7eedc"
"""Fill of the values that pass a claim's test, in the forest plot."""


def _check_table(table):
    from .claims import ClaimsTable

    if not isinstance(table, ClaimsTable):
        raise TypeError(f"table must be a tempnets.book.claims.ClaimsTable, got {type(table).__name__}")
    return table


def _check_claim(claim):
    from .claims import Claim

    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a tempnets.book.claims.Claim, got {type(claim).__name__}")
    return claim


def verdict_key(claim) -> str:
    """The verdict a row shows, one of :data:`VERDICTS`: the claim's category when it came out
    as the chapter states (as :attr:`tempnets.book.claims.Claim.category` counts it for the
    scorecard), else ``"not as stated"``."""
    if not _check_claim(claim).as_expected:
        return "not as stated"
    return {"undecidable by design": "not decided"}.get(claim.category, claim.category)


# ------------------------------------------------------------------ words, numbers and maths

_SYMBOLS = ((" <= ", " ≤ "), (" >= ", " ≥ "), ("->", "→"), ("+-", "±"))
_SUP_SUB = re.compile(r"([\^_])(\{([^{}]*)\}|\(([^()]*)\)|([+\-−]?[0-9A-Za-zα-ωΑ-Ω.]+))")


def math_html(text) -> str:
    """``text`` escaped for HTML, with its maths set: ``x^{k−1}``, ``x^(1/3)`` and ``h^2`` as
    superscripts, ``w_B`` and ``x_{ij}`` as subscripts (a single letter or digit after ``_``,
    so names such as ``val_string`` stay as they are), and ``<=``, ``>=``, ``->`` as symbols."""
    s = str(text)
    for plain, symbol in _SYMBOLS:
        s = s.replace(plain, symbol)
    out, last = [], 0
    for m in _SUP_SUB.finditer(s):
        kind, braced, paren, bare = m.group(1), m.group(3), m.group(4), m.group(5)
        if kind == "_" and braced is None and (bare is None or len(bare) != 1 or _word_after(s, m.end())
                                               or not _word_before(s, m.start())):
            continue  # an identifier's underscore (val_string), not a subscript
        body = braced if braced is not None else paren if paren is not None else bare
        tag = "sup" if kind == "^" else "sub"
        out += [html.escape(s[last:m.start()]), f"<{tag}>{html.escape(body)}</{tag}>"]
        last = m.end()
    out.append(html.escape(s[last:]))
    return "".join(out)


def _word_after(s: str, i: int) -> bool:
    return i < len(s) and (s[i].isalnum() or s[i] == "_")


def _word_before(s: str, i: int) -> bool:
    """A subscript follows a one-letter symbol (``w_B``, ``ε_k``), not a longer name."""
    return i >= 1 and s[i - 1].isalpha() and (i < 2 or not (s[i - 2].isalnum() or s[i - 2] == "_"))


def number_html(x) -> str:
    """A value as a reader reads it: ``18,510`` (not ``1.851e+04``), ``1.11 × 10⁻¹⁶`` (as HTML),
    ``yes``/``no``, ``—`` for none, ``not reached`` for ``inf``; text is set by :func:`math_html`."""
    if x is None:
        return "—"
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if not isinstance(x, (int, float, np.integer, np.floating)):
        return math_html(x)
    try:
        x = float(x)
    except OverflowError:  # an integer beyond float: said in words, not a traceback
        return f"{'−' if x < 0 else ''}more than 10³⁰⁸"
    if math.isnan(x):
        return "not a number"
    if math.isinf(x):
        return "not reached" if x > 0 else "−∞"
    if x != 0 and (abs(x) < 1e-4 or abs(x) >= 1e15):
        mantissa, exponent = f"{x:.2e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa} × 10<sup>{int(exponent)}</sup>".replace("-", "−")
    if abs(x) >= 1e4:
        return f"{float(f'{x:.4g}'):,.0f}"
    return f"{x:.4g}".replace("-", "−")


def _runs_words(design) -> str:
    """``"not reached in 3 of 5 runs"`` (two groups: ``"in 3 of 5 and 0 of 5 runs"``), or ``""``."""
    censored = getattr(design, "censored", ())
    if not any(censored):
        return ""
    return "not reached in " + " and ".join(f"{k} of {n}" for k, n in zip(censored, design.sizes)) \
        + (" run" if design.sizes == (1,) else " runs")


def value_html(claim) -> str:
    """The "ours" cell: the value, then its 95% interval in words where an end is not a number
    (``[44,100, not reached]``, ``no finite interval``), then how many runs never reached
    criterion, when the interval's design counted them."""
    parts = [f"<span class='tnc-value'>{number_html(_check_claim(claim).ours)}</span>"]
    if claim.interval is not None:
        lo, hi = claim.interval
        if math.isinf(lo) and math.isinf(hi):
            words = "no finite interval"
            if claim.design is not None and not _runs_words(claim.design):
                words += f" ({html.escape(claim.design.describe())})"
        elif math.isinf(hi):
            words = f"[{number_html(lo)}, not reached]"
        elif math.isinf(lo):
            words = f"[up to {number_html(hi)}]"
        else:
            words = f"[{number_html(lo)}, {number_html(hi)}]"
        parts.append(f"<span class='tnc-sub'>{words}</span>")
    runs = _runs_words(claim.design)
    if runs:
        parts.append(f"<span class='tnc-sub'>{runs}</span>")
    return "".join(parts)


# ------------------------------------------------------------------ the table

_STYLE = """<style>
.tnc{margin:.6em 0 1.4em;font-size:.86em;line-height:1.35}
@media (min-width:992px){div.cell.tag_full-width .tnc{max-width:73.5%}}
.tnc .tnc-title{font-weight:600;font-size:1.05em;margin-bottom:.2em}
.tnc .tnc-legend{font-size:.9em;opacity:.85;margin-bottom:.3em}
.tnc .tnc-legend span.tnc-key{white-space:nowrap;margin-right:1em}
.tnc .tnc-dot{display:inline-block;width:.75em;height:.75em;border-radius:50%;margin-right:.3em;
  vertical-align:-.05em}
.tnc img.tnc-forest{display:block;width:100%;max-width:52em;height:auto;margin:.2em 0 .6em;
  background:#fff;border-radius:.25rem}
.tnc table.tnc-t{width:100%!important;table-layout:fixed!important;border-collapse:collapse;
  margin:0!important;color:inherit;font-size:1em}
.tnc table.tnc-t th,.tnc table.tnc-t td{padding:.3em .35em;text-align:left;vertical-align:top;
  border:0;border-bottom:1px solid rgba(127,127,127,.3);overflow-wrap:break-word;hyphens:auto;
  white-space:normal;line-height:1.35;background:transparent}
.tnc table.tnc-t th{font-weight:600;overflow-wrap:normal;hyphens:manual;
  border-bottom:2px solid rgba(127,127,127,.6)}
.tnc table.tnc-t td:first-child{border-left:4px solid var(--tnc-c,transparent)}
.tnc table.tnc-t tr.tnc-group td{font-style:italic;background:rgba(127,127,127,.08);border-left:0}
.tnc .tnc-sub{display:block;font-size:.88em;opacity:.75}
.tnc .tnc-value{font-weight:600}
.tnc .tnc-badge{display:inline-block;max-width:100%;overflow-wrap:anywhere;padding:.05em .45em;
  border-radius:.9em;color:#fff;background:var(--tnc-c);font-weight:600;font-size:.8em;
  line-height:1.3}
.tnc .tnc-flag{color:var(--tnc-c);font-weight:700}
.tnc .tnc-bar{display:flex;height:.55em;border-radius:.2em;overflow:hidden;margin:.25em 0 .15em;
  max-width:6em}
.tnc sup.tnc-ref a{text-decoration:none;font-weight:600}
.tnc ol.tnc-notes{font-size:.88em;margin:.5em 0 0 1.8em;padding:0}
.tnc ol.tnc-notes li{margin:.1em 0}
</style>"""

_COLUMNS = (("claim", 25), ("source", 10), ("paper", 9), ("ours [95% interval]", 15), ("test", 13),
            ("verdict", 15), ("over seeds", 13))
"""Header and width (% of the table) of each column; without "over seeds" the claim takes its share."""


def _table_id(table) -> str:
    """A short id for this table's footnote anchors, the same on every run (from its content)."""
    content = json.dumps([table.title, table.rows()], default=str, sort_keys=True)
    return "tnc-" + hashlib.sha1(content.encode()).hexdigest()[:8]


def _verdict_cell(claim) -> tuple[str, str]:
    """The verdict cell's HTML, and what the row's footnote must add (why a claim is not tested
    or not decided)."""
    key = verdict_key(claim)
    label = VERDICTS[key][0]
    full = html.escape(claim.verdict, quote=True)
    why = (f"Not tested: {claim.not_tested}." if claim.not_tested else
           f"Not decided by design: {claim.undecidable}." if claim.undecidable else
           f"Inconclusive: {why}." if (why := claim.why_inconclusive) else "")
    badge = f"<span class='tnc-badge' title='{full}'>{label}</span>"
    detail = {"does not hold": "as reported" if claim.verdict.endswith("(reported)") else "",
              "inconclusive": "at this scale",
              "not decided": "shows: " + {True: "holds", False: "does not hold",
                                          None: "inconclusive"}[claim.measured]}.get(key, "")
    if key == "not as stated":  # what came out against what the chapter says, in full
        return badge + f"<span class='tnc-sub tnc-flag'><strong>{full}</strong></span>", why
    return badge + (f"<span class='tnc-sub'>{detail}</span>" if detail else ""), why


_EXPONENT = re.compile(r"\b(\d(?:\.\d+)?)e([+-]?)0*(\d+)\b")


def _test_cell(claim) -> str:
    sign = {"-": "−", "+": "", "": ""}
    out = _EXPONENT.sub(lambda m: f"{m.group(1)} × 10<sup>{sign[m.group(2)]}{m.group(3)}</sup>",
                        math_html(claim.check.describe()))
    if claim.do_nothing is not None:
        out += f"<span class='tnc-sub'>doing nothing: {number_html(claim.do_nothing)}</span>"
    if claim.design is not None:
        level = "" if round(claim.design.level, 4) == 0.95 else f", {100 * claim.design.level:.3g}% interval"
        out += f"<span class='tnc-sub'>{html.escape(claim.design.describe() + level)}</span>"
    return out


def _seeds_cell(table, claim) -> str:
    """A bar of the seeds' outcomes (coloured as verdicts) above the words of
    :meth:`~tempnets.book.claims.ClaimsTable.seeds_cell`."""
    counts = (table.robustness or {}).get(claim.statement)
    if not counts:
        return "—"
    n = sum(counts.values())
    bar = "".join(f"<span style='flex:{v};background:{VERDICTS[SEED_OUTCOMES.get(k, 'inconclusive')][1]}'"
                  f" title='{html.escape(k, quote=True)}: {v} of {n}'></span>"
                  for k, v in sorted(counts.items(), key=lambda kv: -kv[1]) if v)
    words = "".join(f"<span class='tnc-sub'>{html.escape(SEED_OUTCOMES.get(k, k))} {v}/{n}</span>"
                    for k, v in sorted(counts.items(), key=lambda kv: -kv[1]) if v)
    title = html.escape(table.seeds_cell(claim), quote=True)
    return f"<div class='tnc-bar' title='{title}'>{bar}</div>{words}"


def _rows_html(table, tid: str, notes: list) -> list:
    columns = _columns(table)
    out = []
    for heading, group in table._groups():
        if heading:
            out.append(f"<tr class='tnc-group'><td colspan='{len(columns)}'>{html.escape(heading)}</td></tr>")
        for c in group:
            key = verdict_key(c)
            verdict, why = _verdict_cell(c)
            note = math_html(c.note) if c.note else ""
            if note and why and not note.rstrip().endswith("."):
                note += "."
            text = " ".join(s for s in (note, html.escape(why)) if s)
            ref = ""
            if text:
                notes.append(text)
                k = len(notes)
                ref = f"<sup class='tnc-ref'><a href='#{tid}-{k}' id='{tid}-r{k}'>{k}</a></sup>"
            paper = table.paper_scale_cell(c)
            if paper:
                verdict += f"<span class='tnc-sub'>{html.escape(paper)}</span>"
            cells = [math_html(c.statement) + ref, math_html(c.source), number_html(c.paper),
                     value_html(c), _test_cell(c), verdict]
            if table.robustness:
                cells.append(_seeds_cell(table, c))
            colour = VERDICTS[key][1]
            out.append(f"<tr class='tnc-v-{key.replace(' ', '-')}' style='--tnc-c:{colour}'>"
                       + "".join(f"<td>{s}</td>" for s in cells) + "</tr>")
    return out


def _columns(table) -> list:
    cols = list(_COLUMNS if table.robustness else _COLUMNS[:-1])
    cols[3] = (table.interval_header, cols[3][1])
    if not table.robustness:
        cols[0] = (cols[0][0], cols[0][1] + _COLUMNS[-1][1])
    return cols


def _legend(table) -> str:
    used = [k for k in VERDICTS if any(verdict_key(c) == k for c in table.claims)]
    return "".join(f"<span class='tnc-key'><span class='tnc-dot' style='background:{VERDICTS[k][1]}'>"
                   f"</span>{html.escape(VERDICTS[k][2])}</span> " for k in used)


def to_html(table, plot: bool = True) -> str:
    """The table as HTML for a notebook and the book: title, legend, forest plot (``plot``),
    table and numbered notes, in one ``<div class='tnc'>`` that brings its own style."""
    tid = _table_id(_check_table(table))
    notes: list = []
    columns = _columns(table)
    rows = _rows_html(table, tid, notes)
    out = [_STYLE, f"<div class='tnc' id='{tid}'>",
           f"<div class='tnc-title'>{math_html(table.title)}</div>",
           f"<div class='tnc-legend'>{_legend(table)}</div>"]
    if plot and table.claims:
        alt = html.escape(f"Forest plot of the {len(table.claims)} claims of "
                          f"'{_short(table.title, 200)}': each "
                          f"claim's value with its interval, coloured by verdict, against the "
                          "paper's value and the values that pass its test", quote=True)
        svg = base64.b64encode(forest_svg(table)).decode("ascii")
        out.append(f"<img class='tnc-forest' alt='{alt}' src='data:image/svg+xml;base64,{svg}'>")
    out.append("<table class='tnc-t tempnets-claims'><colgroup>"
               + "".join(f"<col style='width:{w}%'>" for _, w in columns) + "</colgroup><thead><tr>"
               + "".join(f"<th>{h}</th>" for h, _ in columns) + "</tr></thead><tbody>")
    out += rows
    out.append("</tbody></table>")
    if notes:
        out.append("<ol class='tnc-notes'>" + "".join(
            f"<li id='{tid}-{k}'>{text} <a href='#{tid}-r{k}' title='back to the row'>↩</a></li>"
            for k, text in enumerate(notes, 1)) + "</ol>")
    out.append("</div>")
    return "".join(out)


# ------------------------------------------------------------------ the forest plot

def _real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_)) \
        and not math.isnan(float(x))


def _region(claim):
    """The values that pass the claim's test, ``(low, high)``, or ``None`` (a yes/no test, a
    recorded one, or a tolerance around a paper value that is not a number)."""
    if claim.check.kind in ("true", "recorded"):
        return None
    if claim.check.kind in ("within", "relative") and not _real(claim.paper):
        return None
    return tuple(float(v) for v in claim.check.region(claim.paper))


def _scale(claim):
    """The row's axis: ``(low, high, log)`` spanning every finite number the row shows."""
    values = [float(v) for v in (claim.ours, claim.paper, claim.do_nothing) if _real(v)]
    values += [float(v) for v in (claim.interval or ()) + (_region(claim) or ())]
    values = [v for v in values if math.isfinite(v)]
    if not values:
        return 0.0, 1.0, False
    lo, hi = min(values), max(values)
    log = lo > 0 and hi / lo > 1e3
    if log:
        lo, hi = math.log10(lo), math.log10(hi)
    if lo == hi:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    pad = 0.08 * (hi - lo)
    return lo - pad, hi + pad, log


def _place(x, scale) -> float:
    """Where ``x`` sits on a row drawn from 0 to 1 (``inf`` at an end)."""
    lo, hi, log = scale
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    if log:
        x = math.log10(x) if x > 0 else lo
    return min(1.0, max(0.0, (x - lo) / (hi - lo)))


def _plain(v) -> str:
    """:func:`number_html` as plain text, for the plot (``1.11e−16``)."""
    return re.sub(r" × 10<sup>(.*?)</sup>", r"e\1", number_html(v))


_SUPERSCRIPT = dict(zip("0123456789+-−=()abcdefghijklmnoprstuvwxyz",
                        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"))


def _superscript(m) -> str:
    """``^{+2}`` as ``⁺²`` where Unicode has every character's superscript, else ``^+2``."""
    body = m.group(1)
    return "".join(_SUPERSCRIPT[ch] for ch in body) if all(ch in _SUPERSCRIPT for ch in body) \
        else "^" + body


def _short(text: str, n: int = 36) -> str:
    """``text`` in plain letters (``TKRNN^{+2}`` as ``TKRNN⁺²``), cut to ``n`` characters."""
    text = re.sub(r"\^\{([^{}]*)\}", _superscript, str(text))
    text = re.sub(r"_\{([^{}]*)\}", r"_\1", text)
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def forest_plot(table, ax=None):
    """Draw every claim of ``table`` as a row: our value (one dot per claim, coloured by its
    verdict, :data:`VERDICTS`) with its 95% interval as a bar (an arrow where it is not reached),
    the paper's value as an open diamond, and the values that pass the test as a green band.
    Each row has its own scale, given by the numbers at its ends (log where its values span
    more than a factor 1000).  A yes/no claim is a dot in the middle, labelled.

    Returns the axes (a new figure, outside pyplot, when ``ax`` is None)."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from .._numerics import checks

    checks.axes("ax", ax)
    claims = [c for _, group in _check_table(table)._groups() for c in group]
    n = len(claims)
    if ax is None:
        height = 0.5 + 0.3 * max(n, 1)  # inches: a row each, and the legend above
        fig = Figure(figsize=(6.4, height))
        ax = fig.add_axes([0.42, 0.1 / height, 0.56, 0.3 * max(n, 1) / height])
    xs, colours = [], []
    for i, c in enumerate(claims):
        y = n - 1 - i
        colour = VERDICTS[verdict_key(c)][1]
        scale = _scale(c)
        ax.axhline(y, color="0.88", lw=0.6, zorder=0)
        region = _region(c)
        if region is not None:
            a, b = _place(region[0], scale), _place(region[1], scale)
            ax.fill_between([a, b], y - 0.34, y + 0.34, color=PASS_BAND, lw=0, zorder=1)
            edges = ((a, region[0], "right"), (b, region[1], "left"))
            for edge, value, ha in edges[1:] if region[0] == region[1] else edges:
                if math.isfinite(value):  # the threshold, with its value
                    ax.plot([edge, edge], [y - 0.34, y + 0.34], color="#1a7f37", lw=0.9, zorder=2)
                    ax.text(edge + (0.006 if ha == "left" else -0.006), y - 0.3, _plain(value),
                            fontsize=6.5, color="#1a7f37", ha=ha, va="bottom")
        if _real(c.paper):
            ax.plot(_place(float(c.paper), scale), y, "D", ms=5.5, mfc="white", mec="black", mew=1.0,
                    zorder=4)
        if c.interval is not None:
            lo, hi = c.interval
            ax.plot([_place(lo, scale), _place(hi, scale)], [y, y], color=colour, lw=2.2, zorder=3,
                    solid_capstyle="butt")
            for end, value, marker in ((0.0, lo, "<"), (1.0, hi, ">")):
                if math.isinf(value):
                    ax.plot(end, y, marker, color=colour, ms=5, zorder=3)
        if _real(c.ours):
            x = _place(float(c.ours), scale)
        else:
            x = 0.5
            ax.text(0.53, y, number_html(c.ours) if isinstance(c.ours, (bool, np.bool_)) else "",
                    va="center", fontsize=8, color=colour)
        xs.append((x, y))
        colours.append(colour)
    if xs:
        ax.scatter([x for x, _ in xs], [y for _, y in xs], s=34, c=colours, edgecolors="white",
                   linewidths=0.6, zorder=5)
    ax.set_yticks(range(n), [_short(c.statement) for c in reversed(claims)], fontsize=9)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xticks([])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(axis="y", length=0)
    handles = [Line2D([], [], marker="o", ls="-", color="0.3", lw=2, ms=5, label="ours, 95% interval"),
               Line2D([], [], marker="D", ls="", mfc="white", mec="black", ms=5, label="paper"),
               Patch(color=PASS_BAND, label="passes the test")]
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, fontsize=8.5,
              frameon=False, borderaxespad=0.2, handlelength=1.6)
    return ax


def forest_svg(table) -> bytes:
    """:func:`forest_plot` of ``table`` as SVG, the same bytes for the same table (no date, fixed ids)."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tempnets"}):
        ax = forest_plot(table)
        buf = io.BytesIO()
        ax.figure.savefig(buf, format="svg", metadata={"Date": None}, facecolor="white")
    return buf.getvalue()
