"""``gamechip report DIR``: one static HTML page, ``DIR/report.html``, for a campaign folder.

It reads what ``gamechip campaign`` left in DIR (journal.jsonl, campaign.json, cases/, logs/)
and shows the counts per block x simulator (shards by status, cases checked, cases/s), each
block's functional coverage over its shards (bins, hit, waived, the holes by name), the time
and tools, every failure with board pictures of its case (expected, actual, the squares that
differ), its failure report and its ``gamechip replay ... --waves`` command, and the errors and
timeouts with links to their logs. The page is self-contained (inline CSS and SVG, no scripts,
nothing fetched), so it can be mailed or archived with the campaign.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from html import escape
from pathlib import Path

from gamechip.campaign import journal
from gamechip.campaign.coverage import campaign_coverage, not_needed
from gamechip.campaign.plan import PARAMETERS, UNTIL_COVERED, parameters_problem, plan
from gamechip.campaign.progress import replay_command
from gamechip.campaign.journal import JOURNAL, STATUSES, history_text

REPORT = "report.html"
# gamechip report's exit status for each verdict: only a pass is 0, as gamechip campaign exits 1
# on a failure, an error, a timeout, a shard not run or a block left with holes; UNKNOWN (no
# campaign.json: whether every planned shard ran cannot be told) is no pass either
VERDICT_STATUS = {"PASS": 0, "FAIL": 1, "INCOMPLETE": 1, "NOT COVERED": 1, "UNKNOWN": 1}


class ReportError(Exception):
    """No campaign to report on (missing folder or journal, malformed journal): one line."""


# --- reading the campaign folder -----------------------------------------------------------------

def read_journal(folder):
    """(gamechip.campaign.journal.Contents, [warnings]): each shard's last line (its status) and all its
    lines. The journal is only ever appended to, so a shard run again after an error has its
    newest line last; lines that are not entries are skipped with a warning, as
    ``campaign --resume`` skips them."""
    path = Path(folder) / JOURNAL
    if not Path(folder).is_dir():
        raise ReportError(f"{folder} is not a folder: give the --out folder of a gamechip campaign")
    if not path.is_file():
        raise ReportError(f"no {JOURNAL} in {folder}: not a campaign folder (gamechip campaign --out writes it)")
    try:
        contents = journal.read(path)
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror or error}")
    warnings = []
    if contents.torn:  # the campaign was stopped while writing its last line
        warnings.append(f"ignored a half-written last line of {path} ({contents.torn} bytes)")
    if contents.skipped:
        warnings.append(f"skipped {len(contents.skipped)} unreadable line{'s' if len(contents.skipped) > 1 else ''} "
                        f"of {path}: {contents.skipped_text()}; a shard recorded only there is missing here")
    return contents, warnings


def read_parameters(folder):
    """(campaign.json's parameters or None, [warnings]): without them the planned shards, and so
    whether the campaign is complete, are unknown."""
    path = Path(folder) / PARAMETERS
    if not path.exists():
        return None, [f"no {PARAMETERS} in {folder}: the planned shards are unknown"]
    try:
        parameters = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        return None, [f"{path} is unreadable ({error}): the planned shards are unknown"]
    problem = parameters_problem(parameters)
    if problem:
        return None, [f"{path} is not a campaign's parameters ({problem}): the planned shards are unknown"]
    return parameters, []


def planned_shards(parameters):
    """The shards the campaign planned (parameters as parameters_problem accepts them)."""
    from tb.blocks import BLOCKS

    return plan([BLOCKS[name] for name in parameters["blocks"]], parameters["sims"], parameters["count"],
                parameters["seed"], parameters["shard_size"], bool(parameters.get(UNTIL_COVERED)))


# --- numbers ---------------------------------------------------------------------------------------

def _time(text):
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def _duration(seconds):
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m{rest % 60:02d}s" if hours else f"{rest // 60}m{rest % 60:02d}s"


def table_rows(entries, planned, history):
    """One row per block x simulator: counts by status (each shard's last line), shards run more
    than once, cases checked, rate, shard time (every attempt's)."""
    rows = {key: [] for key in planned}
    for entry in entries.values():
        rows.setdefault((entry["block"], entry["sim"]), []).append(entry)
    out = []
    for (block, sim), done in rows.items():
        checked = sum(e.get("checked") or 0 for e in done)
        simulating = sum((e.get("timings") or {}).get("wall_seconds") or 0 for e in done)
        fuzzed = sum((e.get("timings") or {}).get("checked") or 0 for e in done)  # the fuzz test's (no directed set)
        attempts = [line for e in done for line in history[e["key"]]]
        out.append({"block": block, "sim": sim, "shards": len(done), "planned": planned.get((block, sim)),
                    **{status: sum(e["status"] == status for e in done) for status in STATUSES},
                    "retried": sum(len(history[e["key"]]) > 1 for e in done),
                    "checked": checked, "rate": fuzzed / simulating if simulating else 0.0,
                    "seconds": sum(line.get("seconds") or 0 for line in attempts)})
    return out


def all_lines(history):
    return [line for lines in history.values() for line in lines]


def time_span(lines):
    starts = [t for t in (_time(e.get("started")) for e in lines) if t]
    ends = [t for t in (_time(e.get("ended")) for e in lines) if t]
    if not starts or not ends:
        return None
    return min(starts), max(ends)


def tool_sets(lines):
    """Distinct (host, tools) pairs: shards on a cluster may have run on different tool versions."""
    seen = {}
    for entry in lines:
        tools = entry.get("tools") or {}
        seen.setdefault((entry.get("host") or "?", json.dumps(tools, sort_keys=True)), tools)
    return [(host, tools) for (host, _), tools in sorted(seen.items())]


# --- HTML ------------------------------------------------------------------------------------------

STYLE = """
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; } td.name { text-align: left; }
td.fail, td.error, td.timeout { background: #ffcdd2; font-weight: bold; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
code { background: #f0f0f0; padding: 1px 4px; }
.boards svg { margin-right: 1.5em; vertical-align: top; }
.note { color: #a00; } .ok { color: #2e7d32; font-weight: bold; } .bad { color: #c62828; font-weight: bold; }
section { margin-bottom: 2.5em; }
"""


def _link(path, folder):
    """A link to ``path``: relative when it is inside the campaign folder (the page and its
    logs move together), else an absolute file: URL."""
    path = Path(path)
    try:
        href = path.resolve().relative_to(Path(folder).resolve()).as_posix()
    except ValueError:
        href = path.resolve().as_uri()
    return f'<a href="{escape(href)}">{escape(str(path))}</a>'


def _find_case(entry, folder):
    """The case file of a failed shard: where the journal says, else under this folder's cases/
    (the folder may have been moved since)."""
    if not entry.get("case"):
        return None
    for candidate in (Path(entry["case"]), Path(folder) / "cases" / Path(entry["case"]).name):
        if candidate.is_file():
            return candidate
    return None


def _summary_html(campaign):
    folder, parameters = campaign.folder, campaign.parameters
    parts = [f"<h1>gamechip campaign <code>{escape(str(Path(folder).resolve()))}</code></h1>"]
    if parameters:
        shown = {k: " ".join(map(str, v)) if isinstance(v, list) else v for k, v in parameters.items()}
        parts.append("<p>" + ", ".join(f"{escape(k)} <b>{escape(str(v))}</b>" for k, v in shown.items()) + "</p>")
    word, line = campaign.verdict()
    parts.append(f'<p><span class="{"ok" if word == "PASS" else "bad"}">{word}</span>: {escape(line)}</p>')
    lines = all_lines(campaign.history)
    span = time_span(lines)
    shard_seconds = sum(e.get("seconds") or 0 for e in lines)
    if span:
        parts.append(f"<p>first shard started {escape(span[0].isoformat(timespec='seconds'))}, last ended "
                     f"{escape(span[1].isoformat(timespec='seconds'))}: {_duration((span[1] - span[0]).total_seconds())} "
                     f"from first start to last end (across resumes), {_duration(shard_seconds)} of shard time</p>")
    parts += [f'<p class="note">warning: {escape(w)}</p>' for w in campaign.warnings]
    return "\n".join(parts)


def _table_html(rows):
    head = ("<tr><th>block</th><th>simulator</th><th>shards</th>" + "".join(f"<th>{s}</th>" for s in STATUSES)
            + "<th>retried</th><th>cases checked</th><th>cases/s</th><th>shard time</th></tr>")
    body = []
    for row in rows:
        shards = f"{row['shards']}" + (f"/{row['planned']}" if row["planned"] else "")
        cells = "".join(f'<td class="{s if row[s] and s != "pass" else ""}">{row[s]}</td>' for s in STATUSES)
        body.append(f'<tr class="row" data-block="{escape(row["block"])}" data-sim="{escape(row["sim"])}">'
                    f'<td class="name">{escape(row["block"])}</td><td class="name">{escape(row["sim"])}</td>'
                    f"<td>{shards}</td>{cells}<td>{row['retried']}</td><td>{row['checked']:,}</td><td>{row['rate']:,.0f}</td>"
                    f"<td>{_duration(row['seconds'])}</td></tr>")
    return ("<h2>Blocks &times; simulators</h2>\n<table>" + head + "".join(body) + "</table>\n"
            "<p>Each shard counts under the status of its last journal line; retried: shards run more than once "
            "(see <i>Retried shards</i>). cases/s: one worker's rate while simulating, builds excluded; shard time: "
            "the run times of every attempt added up, builds included.</p>")


def _tools_html(lines):
    sets = tool_sets(lines)
    if not sets:
        return ""
    names = sorted({name for _, tools in sets for name in tools})
    rows = "".join("<tr><td class=\"name\">" + escape(host) + "</td>"
                   + "".join(f'<td class="name">{escape(str(tools.get(n) or "not installed"))}</td>' for n in names)
                   + "</tr>" for host, tools in sets)
    return ("<h2>Tools</h2>\n<table><tr><th>host</th>" + "".join(f"<th>{escape(n)}</th>" for n in names)
            + f"</tr>{rows}</table>")


def _boards_html(case_file):
    from gamechip.views.replay import board_pictures

    try:
        view, pictures = board_pictures(json.loads(Path(case_file).read_text()))
    except Exception as error:  # a picture is a help: its absence must not cost the report
        return f'<p class="note">board pictures not drawn: {escape(type(error).__name__)}: {escape(str(error))}</p>'
    return (f"<p>{escape(view.summary)}</p>\n<div class=\"boards\">" + "".join(pictures.values()) + "</div>")


def _answers_text(record):
    """The expected and the actual answer of a case record as the failure views write them (sets
    of squares in hex with their names: gamechip/views/failure.py); a chess case, or a record
    those views cannot read, as saved."""
    from gamechip.views.failure import Failure, answer_text

    if "fen" not in record.get("case", {}):
        try:
            failure = Failure(record)
            return answer_text(failure, failure.expected), answer_text(failure, failure.actual)
        except Exception:  # a damaged record still shows its values as saved
            pass
    return str(record.get("expected")), str(record.get("actual"))


def _failure_html(entry, folder):
    head = (f"FAIL {entry['block']} on {entry['sim']}, seed {entry.get('seed')} "
            f"({entry.get('count', '?')} positions, host {entry.get('host', '?')})")
    parts = [f'<section class="failure"><h3>{escape(head)}</h3>']
    case_file = _find_case(entry, folder)
    try:
        record = json.loads(case_file.read_text()) if case_file else None
    except (OSError, ValueError) as error:
        record = None
        parts.append(f'<p class="note">case file {escape(str(case_file))} unreadable: {escape(str(error))}</p>')
    if isinstance(record, dict):
        parts.append(f"<p>case: {escape(str(record.get('case', {}).get('label', '')))}; "
                     f"board <code>{escape(str(record.get('case', {}).get('board') or record.get('case', {}).get('fen', '')))}</code></p>")
        parts.append(_boards_html(case_file))
        expected, actual = _answers_text(record)
        parts.append(f"<p>expected <code>{escape(expected)}</code><br>actual&nbsp;&nbsp; <code>{escape(actual)}</code></p>")
        command = replay_command({**entry, "case": str(case_file)})
        parts.append(f"<p>replay with a waveform: <code>{escape(command)}</code></p>")
        parts.append(f"<p>case file: {_link(case_file, folder)}</p>")
    elif not case_file:
        parts.append(f'<p class="note">case file not found: {escape(str(entry.get("case")))}</p>')
    for key, what in (("shrink", "shrink"), ("shrink_error", "shrink"), ("original_case", "case as found")):
        if entry.get(key):
            value = _link(entry[key], folder) if key == "original_case" else escape(entry[key].splitlines()[0])
            parts.append(f"<p>{what}: {value}</p>")
    if entry.get("message"):
        parts.append(f"<details open><summary>failure report of the shard</summary><pre>{escape(entry['message'])}"
                     "</pre></details>")
    if entry.get("log"):
        parts.append(f"<p>log: {_link(entry['log'], folder)}</p>")
    return "\n".join(parts) + "</section>"


def _problem_html(entry, folder):
    head = f"{entry['status'].upper()} {entry['block']} on {entry['sim']}, seed {entry.get('seed')}"
    parts = [f'<section class="problem {escape(entry["status"])}"><h3>{escape(head)}</h3>']
    message = (entry.get("message") or "").strip()
    if message:
        parts.append(f"<pre>{escape(chr(10).join(message.splitlines()[-12:]))}</pre>")
    log = entry.get("log")
    if log and Path(log).is_file():
        parts.append(f"<p>log: {_link(log, folder)}</p>")
    elif log:
        parts.append(f'<p class="note">log not found: {escape(log)}</p>')
    else:
        parts.append('<p class="note">no log was kept for this shard</p>')
    return "\n".join(parts) + "</section>"


@dataclass
class Campaign:
    """What a campaign folder holds, as read for its report."""

    folder: Path
    entries: dict  # shard key -> its last journal line
    history: dict  # shard key -> all its journal lines, oldest first
    warnings: list
    parameters: dict  # campaign.json, or None
    shards: list  # the planned shards (gamechip.campaign.plan.Shard), or None when unknown
    coverage: object = None  # gamechip.campaign.coverage.CampaignCoverage of the journaled shards

    @property
    def until_covered(self):
        return bool((self.parameters or {}).get(UNTIL_COVERED))

    def not_needed(self):
        """Keys of the shards an --until-covered campaign did not run: their block was covered."""
        if self.shards is None or self.coverage is None:
            return set()
        return not_needed(self.shards, self.entries, self.coverage, self.until_covered)

    @property
    def planned(self):
        """(block, sim) -> shards planned; {} when unknown."""
        counts = {}
        for shard in self.shards or ():
            counts[(shard.block, shard.sim)] = counts.get((shard.block, shard.sim), 0) + 1
        return counts

    def verdict(self):
        """(PASS, FAIL, INCOMPLETE, NOT COVERED or UNKNOWN, one line saying why). NOT COVERED: an
        --until-covered campaign that ran every shard cleanly and left holes."""
        counts = {status: sum(e["status"] == status for e in self.entries.values()) for status in STATUSES}
        checked = sum(e.get("checked") or 0 for e in self.entries.values())
        unneeded = self.not_needed()
        if self.shards is None:
            journaled = f"{len(self.entries)} shards journaled"
        else:
            journaled = f"{sum(s.key in self.entries for s in self.shards)} of {len(self.shards)} shards journaled"
            if unneeded:
                journaled += f" ({len(unneeded)} not needed: their blocks were covered)"
        retried = sum(len(lines) > 1 for lines in self.history.values())
        line = (f"{journaled}; {checked:,} cases checked against the golden model; "
                + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + (f"; {retried} retried" if retried else ""))
        if counts["fail"] or counts["error"] or counts["timeout"]:
            return "FAIL", line
        if self.shards is None:
            return "UNKNOWN", line + f"; without {PARAMETERS} whether every planned shard ran is unknown"
        if any(s.key not in self.entries and s.key not in unneeded for s in self.shards):
            return "INCOMPLETE", line
        if self.until_covered and self.coverage is not None:
            open_designs = [d for d in self.coverage.designs if not self.coverage.covered(d)]
            if open_designs:
                return "NOT COVERED", line + f"; holes left in {', '.join(open_designs)}"
        return "PASS", line


def load(folder):
    """Read campaign ``folder``; raises ReportError, also when no shard has finished and nothing
    says a campaign was ever planned there."""
    contents, warnings = read_journal(folder)
    entries = contents.latest
    parameters, more = read_parameters(folder)
    if not entries and parameters is None:
        skipped = f" ({'; '.join(warnings)})" if warnings else ""
        raise ReportError(f"no shard has finished in {folder} and it has no readable {PARAMETERS}: not a campaign "
                          f"(or one stopped before its first shard){skipped}")
    from tb.blocks import BLOCKS

    blocks = parameters["blocks"] if parameters else sorted({e["block"] for e in entries.values()})
    try:
        coverage = campaign_coverage([b for b in blocks if b in BLOCKS], entries, folder)
    except Exception as error:  # the coverage is a part of the report: its absence must not cost the rest
        coverage = None
        more = more + [f"coverage not shown: {type(error).__name__}: {error}"]
    return Campaign(Path(folder), entries, contents.history, warnings + more, parameters,
                    planned_shards(parameters) if parameters else None, coverage)


def _coverage_html(coverage):
    """Per design the bins of its plan hit over the journaled shards, and the holes by name."""
    if coverage is None or not coverage.designs:
        return ""
    rows, holes = [], []
    for design in coverage.design_coverages():
        incomplete = coverage.incomplete(design.design)
        summary = design.summary() if design.runs else None
        if not summary or not summary["sampled"]:
            why = (f"nothing sampled, so no bin is listed as a hole: {incomplete}" if incomplete
                   else "no journaled shard of it sampled coverage")
            rows.append(f'<tr class="coverage" data-design="{escape(design.design)}"><td class="name">'
                        f'{escape(design.design)}</td><td colspan="7" class="name">{escape(why)}</td></tr>')
            continue
        verdict = ('<span class="bad">incomplete</span>' if incomplete else
                   '<span class="ok">covered</span>' if not design.holes else '<span class="bad">holes</span>')
        rows.append(f'<tr class="coverage" data-design="{escape(design.design)}"><td class="name">'
                    f'{escape(design.design)}</td><td>{summary["bins"]}</td><td>{summary["hit"]}</td>'
                    f'<td>{len(summary["waived"])}</td><td class="{"fail" if design.holes else ""}">{len(design.holes)}</td>'
                    f'<td>{summary["cases"]:,}</td><td>{summary["sampled"]:,}</td><td class="name">{verdict}</td></tr>')
        problems = ([f"incomplete: {incomplete}"] if incomplete else []) + [p for p in design.problems() if "hole" not in p]
        if design.holes or problems:
            label = "not hit so far" if incomplete else "holes"
            holes.append(f'<p class="holes" data-design="{escape(design.design)}"><b>{escape(design.design)}</b> '
                         + (f"{label}: {escape(', '.join(design.holes))}" if design.holes else "")
                         + "".join(f'<br><span class="note">{escape(p)}</span>' for p in problems) + "</p>")
    notes = [f'<p class="note">warning: cannot read {escape(name)}</p>' for name in coverage.unreadable]
    return ("<h2>Functional coverage</h2>\n<table><tr><th>design</th><th>bins</th><th>hit</th><th>waived</th>"
            "<th>holes</th><th>cases</th><th>sampled</th><th>verdict</th></tr>" + "".join(rows) + "</table>\n"
            + "\n".join(holes + notes)
            + "<p>The bins of each block's test plan (tb/testplans/) its journaled shards hit, merged over simulators and "
              "seeds; every bin with its hits: <code>gamechip coverage --hits COVERAGE-FOLDER --no-code</code> on this "
              "campaign's <code>coverage/</code> folder.</p>")


def _retried_html(lines, folder):
    """A shard run more than once (``campaign --resume`` retries errors and timeouts): every
    attempt, oldest first, with the logs the earlier ones left."""
    last = lines[-1]
    head = f"{last['block']} on {last['sim']}, seed {last.get('seed')}: now {last['status']}"
    parts = [f'<section class="retried"><h3>{escape(head)}</h3>', f"<p>retried: {escape(history_text(lines))}</p>"]
    logs = [line["log"] for line in lines[:-1] if line.get("log")]
    parts += [f"<p>log of an earlier attempt: {_link(log, folder)}</p>" for log in logs]
    return "\n".join(parts) + "</section>"


def render(campaign):
    """The HTML page for a loaded campaign."""
    folder, entries = campaign.folder, campaign.entries
    ordered = sorted(entries.values(), key=lambda e: (e["block"], e["sim"], e.get("seed") or 0))
    failures = [e for e in ordered if e["status"] == "fail"]
    problems = [e for e in ordered if e["status"] in ("error", "timeout")]
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>gamechip campaign {escape(Path(folder).resolve().name)}</title><style>{STYLE}</style></head><body>",
             _summary_html(campaign),
             _table_html(table_rows(entries, campaign.planned, campaign.history)),
             _coverage_html(campaign.coverage),
             _tools_html(all_lines(campaign.history)),
             f"<h2>Failures ({len(failures)})</h2>"]
    parts += [_failure_html(e, folder) for e in failures] or ["<p>none</p>"]
    parts.append(f"<h2>Errors and timeouts ({len(problems)})</h2>")
    parts += [_problem_html(e, folder) for e in problems] or ["<p>none</p>"]
    retried = [e for e in ordered if len(campaign.history[e["key"]]) > 1]
    parts.append(f"<h2>Retried shards ({len(retried)})</h2>")
    parts += [_retried_html(campaign.history[e["key"]], folder) for e in retried] or ["<p>none</p>"]
    parts.append(f"<p>written by <code>gamechip report</code> at {datetime.now().isoformat(timespec='seconds')}</p>"
                 "</body></html>")
    return "\n".join(parts) + "\n"


def write_report(folder):
    """Write ``folder/report.html``; return (its path, the Campaign). Raises ReportError."""
    campaign = load(folder)
    html = render(campaign)
    path = Path(folder) / REPORT
    tmp = path.with_name(REPORT + ".tmp")
    try:
        tmp.write_text(html)
        tmp.replace(path)
    except OSError as error:
        raise ReportError(f"cannot write {path}: {error.strerror or error}")
    return path, campaign
