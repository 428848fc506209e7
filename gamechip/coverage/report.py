"""The coverage report: runs/coverage/index.html (per design every bin with its hits, holes first
in red, crosses as tables, waivers with their reasons, code coverage with links to the annotated
source) and the --json form."""

import html
import itertools

CODE_METRICS = ("line", "toggle", "branch")


def design_json(coverage, code):
    """One design's entry of --json: the functional summary and the code coverage (None for a
    metric not collected, with the reason under ``code_coverage``)."""
    entry = coverage.summary()
    metrics = code_metrics(coverage, code)
    for metric in CODE_METRICS:
        entry[metric] = metrics.get(metric) if metrics else None
    add_code_links(entry, metrics)
    if not metrics:
        entry["code_coverage"] = code if isinstance(code, str) else "not collected for this design"
    elif metrics.get("not_collected"):
        entry["code_coverage"] = f"not collected ({metrics['not_collected']})"
    elif coverage.design != coverage.block:
        entry["code_coverage"] = f"block {coverage.block}: every design of the block merged"
    return entry


def code_metrics(coverage, code):
    """The code coverage of ``coverage``'s design from code_coverage's answer, or None. The answer
    is keyed by block, one entry over all the block's designs (its runs merged): every design of
    the block shows it."""
    if not isinstance(code, dict):
        return None
    return code.get(coverage.design) or code.get(coverage.block)


def code_only_json(design, code):
    """The entry of a design without a test plan whose code coverage alone is collected: no bins."""
    metrics = code.get(design) if isinstance(code, dict) else None
    entry = {"bins": 0, "hit": 0, "waived": [], "holes": [], "cases": 0, "sampled": 0,
             **{metric: (metrics or {}).get(metric) for metric in CODE_METRICS},
             "unexplained": (metrics or {}).get("unexplained"),
             "code_coverage": "code coverage only (no test plan: its block's plan is sampled on another design)"}
    if metrics and metrics.get("not_collected"):
        entry["code_coverage"] = f"not collected ({metrics['not_collected']})"
    add_code_links(entry, metrics)
    return entry


def add_code_links(entry, metrics):
    """The annotated source and the MyHDL map (each always block with its generator) of ``metrics``."""
    for key, name in (("html", "code_html"), ("myhdl", "code_myhdl")):
        if metrics and metrics.get(key):
            entry[name] = metrics[key]


def coverage_json(coverages, code, code_only=()):
    """--json: every design of ``coverages``, then the designs whose code coverage alone is collected."""
    return {"blocks": {**{c.design: design_json(c, code) for c in coverages},
                       **{design: code_only_json(design, code) for design in code_only}}}


STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
td, th { border: 1px solid #bbb; padding: 2px 6px; text-align: right; }
th { background: #eee; }
td.name, th.name { text-align: left; }
.hole { background: #f4b6b6; color: #800; font-weight: bold; }
.waived { background: #ddd; color: #555; }
.hit { background: #d4f0d4; }
.closed { color: #060; font-weight: bold; }
.open { color: #a00; font-weight: bold; }
"""


def _cell(coverage, name):
    hits = coverage.hits.get(name, 0)
    if name in coverage.waived:
        return f'<td class="waived" title="{html.escape(coverage.waived[name])}">waived</td>'
    return f'<td class="{"hit" if hits else "hole"}">{hits}</td>'


def _point_html(coverage, point):
    out = [f"<h4>{html.escape(point.name)}</h4><p>{html.escape(point.description)}</p>",
           f"<p><small>tests: {html.escape(', '.join(point.tests))}; generators: "
           f"{html.escape('; '.join(point.generators))}</small></p>"]
    if len(point.axes) == 1:
        out.append(f'<table><tr><th class="name">{html.escape(point.axes[0][0])}</th><th>hits</th></tr>')
        values = point.axes[0][1]
        values = [v for v in values if _is_hole(coverage, point, v)] + [v for v in values if not _is_hole(coverage, point, v)]
        for value in values:
            out.append(f'<tr><td class="name">{html.escape(value)}</td>{_cell(coverage, f"{point.name}:{value}")}</tr>')
        out.append("</table>")
        return "".join(out)
    rows_axes, (column_name, columns) = point.axes[:-1], point.axes[-1]
    heading = " / ".join(name for name, _ in rows_axes)
    out.append(f'<table><tr><th class="name">{html.escape(heading)} \\ {html.escape(column_name)}</th>'
               + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr>")
    for row in itertools.product(*(values for _, values in rows_axes)):
        prefix = "/".join(row)
        out.append(f'<tr><td class="name">{html.escape(prefix)}</td>'
                   + "".join(_cell(coverage, f"{point.name}:{prefix}/{c}") for c in columns) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _is_hole(coverage, point, value):
    name = f"{point.name}:{value}"
    return not coverage.hits.get(name) and name not in coverage.waived


def _code_cell(entry, metric):
    value = entry.get(metric)
    return "<td>not collected</td>" if value is None else f"<td>{value:.1f} %</td>"


def _links(entry):
    link = f' (<a href="{html.escape(entry["code_html"])}">annotated source</a>' if entry.get("code_html") else ""
    link += f', <a href="{html.escape(entry["code_myhdl"])}">MyHDL map</a>' if link and entry.get("code_myhdl") else ""
    return link + ")" if link else ""


def write_html(path, coverages, code, runs=(), code_only=()):
    """Write the report to ``path`` (its folder holds the code coverage's annotated source); the
    designs of ``code_only`` have a row and a section of code coverage alone."""
    summary = coverage_json(coverages, code, code_only)["blocks"]
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>gamechip coverage</title>"
             f"<style>{STYLE}</style></head><body><h1>gamechip coverage</h1>"]
    if isinstance(code, str):
        parts.append(f"<p>Code coverage: {html.escape(code)}</p>")
    parts.append('<table><tr><th class="name">design</th><th>bins</th><th>hit</th><th>waived</th><th>holes</th>'
                 '<th>cases</th><th>sampled</th><th>line</th><th>toggle</th><th>branch</th><th class="name">verdict</th></tr>')
    for coverage in coverages:
        entry = summary[coverage.design]
        verdict = '<span class="closed">closed</span>' if coverage.closed else '<span class="open">open</span>'
        link = _links(entry)
        parts.append(f'<tr><td class="name"><a href="#{coverage.design}">{coverage.design}</a></td>'
                     f'<td>{entry["bins"]}</td><td>{entry["hit"]}</td><td>{len(entry["waived"])}</td>'
                     f'<td class="{"hole" if entry["holes"] else ""}">{len(entry["holes"])}</td>'
                     f'<td>{entry["cases"]:,}</td><td>{entry["sampled"]:,}</td>'
                     + "".join(_code_cell(entry, m) for m in CODE_METRICS)
                     + f'<td class="name">{verdict}{link}</td></tr>')
    for design in code_only:
        entry = summary[design]
        parts.append(f'<tr><td class="name"><a href="#{design}">{design}</a></td>' + "<td>-</td>" * 6
                     + "".join(_code_cell(entry, m) for m in CODE_METRICS)
                     + f'<td class="name">code coverage only{_links(entry)}</td></tr>')
    parts.append("</table>")
    if runs:
        parts.append("<h2>Runs</h2><table><tr><th class='name'>design</th><th class='name'>simulator</th>"
                     "<th class='name'>result</th></tr>")
        for design, sim, passed, note in runs:
            parts.append(f"<tr><td class='name'>{design}</td><td class='name'>{sim}</td>"
                         f"<td class='name {'' if passed else 'hole'}'>{'passed' if passed else html.escape(note)}</td></tr>")
        parts.append("</table>")
    for coverage in coverages:
        parts.append(f'<h2 id="{coverage.design}">{coverage.design} ({coverage.block})</h2>')
        if coverage.spec:
            parts.append(f"<p>Plan derived from {html.escape(coverage.spec)}</p>")
        problems = coverage.problems()
        if problems:
            parts.append("<ul>" + "".join(f'<li class="hole">{html.escape(p)}</li>' for p in problems) + "</ul>")
        else:
            parts.append('<p class="closed">every bin hit or waived</p>')
        metrics = code_metrics(coverage, code) or {}
        for unexplained in metrics.get("unexplained") or []:
            parts.append(f"<p class='hole'>code not reached: {html.escape(str(unexplained))}</p>")
        if metrics.get("not_collected"):
            parts.append(f"<p>Code coverage not collected: {html.escape(metrics['not_collected'])}</p>")
        if coverage.waived:
            parts.append("<h3>Waivers</h3><ul>" + "".join(
                f"<li><code>{html.escape(b)}</code>: {html.escape(why)}</li>" for b, why in coverage.waived.items()) + "</ul>")
        parts.append("<h3>Points</h3>")
        parts += [_point_html(coverage, point) for point in coverage.points]
    for design in code_only:
        entry = summary[design]
        parts.append(f'<h2 id="{design}">{design}</h2><p>{html.escape(entry["code_coverage"])}</p>')
        unexplained = entry["unexplained"] or []
        parts += [f"<p class='hole'>code not reached: {html.escape(str(line))}</p>" for line in unexplained]
        if entry["line"] is not None and not unexplained:
            parts.append('<p class="closed">every converted line hit or explained</p>')
    parts.append("</body></html>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts))
    return path
