"""The golden side of the processor bench (tb/test_processor.py): the assembler rules of
rtl/processor.py (to draw noise that forms no message, and to know which message directed bytes
form), golden processors and endpoints that record or trust what they are told, the plan of the
extra games, the golden processor's own process (:func:`worker_main`: the bench's golden side
beside the simulator, under PyPy), and the check of the two-context processor's job port: its log
(JOB_LOG, written by the HDL clock harness) against the golden root splitter's job list.
Imports: golden only (no cocotb, no rtl), so that the golden process runs it under PyPy."""

import json
import os

from golden.contest.players import RandomPlayer
from golden.contest.reference import ReferencePlayer
from golden.board import popcount, square_name
from golden.contest.referee import OPPONENT_PASSED, PlayerEndpoint, play_game
from golden.othello import legal_moves
from golden.processor import GoldenProcessor
from tb.checks.search import evaluator_weights
from golden.root_split import CONTEXTS, KIND_CODES, root_split
from golden.signature import SignatureFold

FILES, RANKS, CODES = "ABCDEFGH", "12345678", "YRIX"
FRAME_ERROR = -1   # a token of a byte stream: a frame sent with a low stop bit


def assembled(tokens):
    """Pairs the processor's assembler would accept from ``tokens`` (bytes, FRAME_ERROR)."""
    pairs, pending = [], None
    for token in tokens:
        if token == FRAME_ERROR:
            pending = None
            continue
        char = chr(token)
        first_ok = char in FILES or char in CODES
        if pending is None:
            pending = char if first_ok else None
        elif (pending in FILES and char in RANKS) or (pending in CODES and pending == char):
            pairs.append(pending + char)
            pending = None
        else:
            pending = char if first_ok else None
    return pairs, pending


def harmful(pair, position):
    if pair[0] in CODES:
        return True
    square = RANKS.index(pair[1]) * 8 + FILES.index(pair[0])
    either = legal_moves(position.own, position.opp) | legal_moves(position.opp, position.own)
    return bool(either >> square & 1)


def noise_burst(rng, position):
    """A burst of rubbish for ``position`` that the processor must drop: random bytes, lower-case
    moves, ``Z9``, an illegal square, ``VV``; it ends with a framing error (clears any pending
    character). Bursts are drawn so that, under the assembler rules of rtl/processor.py
    (:func:`assembled`), they never form a referee code or a move legal for either side (those
    would be real messages, not noise). The bench sends one before every referee message and,
    right after a message that makes the processor search, ``XX`` or a move while it thinks."""
    empty_illegal = [s for s in range(64)
                     if not ((position.black | position.white) >> s & 1)
                     and not ((legal_moves(position.own, position.opp)
                               | legal_moves(position.opp, position.own)) >> s & 1)]
    while True:
        tokens = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.randrange(6)
            if kind == 0:
                tokens += [rng.randrange(256) for _ in range(rng.randint(1, 4))]
            elif kind == 1:
                tokens += [ord(rng.choice(FILES.lower())), ord(rng.choice(RANKS))]
            elif kind == 2:
                tokens += [ord("Z"), ord("9")]
            elif kind == 3 and empty_illegal:
                square = rng.choice(empty_illegal)
                tokens += [ord(FILES[square % 8]), ord(RANKS[square // 8])]
            elif kind == 4:
                tokens += [ord("V"), ord("V")]
            else:
                tokens.append(FRAME_ERROR)
        tokens.append(FRAME_ERROR)
        pairs, _ = assembled(tokens)
        if not any(harmful(p, position) for p in pairs):
            return tokens


def square_tokens(square):
    return [ord(FILES[square % 8]), ord(RANKS[square // 8])]


class RecordingGolden(GoldenProcessor):
    """GoldenProcessor that remembers the last position it was asked about, and the node
    signature of its last search (:class:`SignatureFold`; None after a book move). Its searches
    keep no node trace: constant memory at any budget. With two contexts the search is the root
    splitter's, the signature its fold of the job signatures, and ``last_jobs`` its job list
    (dicts of golden.root_split ``Job``; empty after a book move or a pass at the root); the same
    with K >= 2 ``engines`` (the K-engine splitter's)."""

    def __init__(self, budget, depth_limit, contexts=1, solve_empties=0, evaluator="seed", engines=1):
        super().__init__(budget, depth_limit, keep_trace=False, contexts=contexts, solve_empties=solve_empties,
                         engines=engines, pattern=evaluator_weights(evaluator))
        self.asked, self.last_position, self.last_signature, self.last_jobs = False, None, None, []

    def move(self, position):
        self.asked, self.last_position, self.last_search, self.last_signature = True, position, None, None
        self.last_jobs = []
        return super().move(position)

    def search_position(self, position):
        if self.contexts == CONTEXTS or self.engines > 1:
            self.searched.append(position)
            self.last_search = root_split(position, self.depth_limit, self.budget, engines=self.engines,
                                          contexts=self.contexts)
            self.last_signature = self.last_search.signature
            self.last_jobs = [job.to_dict() for job in self.last_search.jobs]
            return self.last_search
        # one fold over the nodes of all the move's runs (a solve's too), as trace_fold folds them
        fold = SignatureFold()
        self.on_node = fold.on_node
        result = super().search_position(position)
        self.last_signature = fold.signature
        return result


class TrustingEndpoint(PlayerEndpoint):
    """PlayerEndpoint that takes ``RR`` as it comes, without checking that the opponent really
    had no legal move: the processor does not check it either (rtl/processor.py: ``RR`` once
    the colour is known = the opponent passed; think; the book is off for the rest of the game).
    The golden processor infers the pass from the unchanged board (golden/processor.py)."""

    def __call__(self, message):
        if message == OPPONENT_PASSED and self.color is not None:
            self.received.append(message)
            self.position = self.position.swap_side()
            return self._answer()
        return super().__call__(message)


def formed_message(tokens, position):
    """The message the assembler (:func:`assembled`) forms from ``tokens`` that the processor
    acts on in ``position`` (the opponent to move), or None: moves illegal there are dropped.
    The directed steps form at most one."""
    pairs, _ = assembled(tokens)
    moves = legal_moves(position.own, position.opp)
    acted = [p for p in pairs
             if p[0] in CODES or moves >> (RANKS.index(p[1]) * 8 + FILES.index(p[0])) & 1]
    assert len(acted) <= 1, f"directed step {tokens} forms {acted}: more than one message"
    return acted[0] if acted else None


def extra_games(count, seed):
    """The games of the ``games`` test: (opponent, processor plays black, noise seed or None).
    Both colours in turn; the opponents alternate between the reference program at levels 2 to
    4 and random players (whose games reach positions the reference's do not); every third game
    noisy, with its own seed."""
    plan = []
    for k in range(count):
        if k % 2 == 0:
            opponent = ReferencePlayer(2 + k // 2 % 3)
        else:
            opponent = RandomPlayer(1000 * seed + k)
        plan.append((opponent, (k // 2) % 2 == k % 2, seed * 100 + k if k % 3 == 2 else None))
    return plan


# pass_game_seed(256, 16, solve_empties=14): the regression's budget, depth limit and endgame solve
# (rtl/designs.py, rtl/processor.py); written down because finding it plays most of a minute of golden games
PASS_GAME_SEED = 6
# the same for the processor with two contexts: pass_game_seed(1024, 16, contexts=2), its
# regression budget (rtl/designs.py PROCESSOR_C2_BUDGET)
PASS_GAME_SEED_C2 = 199


def pass_game_seed(budget, depth_limit, first=0, tries=400, contexts=1, solve_empties=0):
    """A RandomPlayer seed whose game against the golden processor (white) makes the
    processor pass before the end of the game (found with the golden model alone)."""
    for seed in range(first, first + tries):
        result = play_game(RandomPlayer(seed), GoldenProcessor(budget, depth_limit, keep_trace=False,
                                                               contexts=contexts, solve_empties=solve_empties))
        plies = result.plies
        for i, ply in enumerate(plies):
            if ply.color == "O" and ply.move is None and i + 1 < len(plies):
                return seed
    raise AssertionError("no game with a processor pass found")


# --- the golden processor's process ---------------------------------------------------------

def golden_answer(golden, endpoint, reply):
    """What the bench needs of one referee message's golden answer, as JSON: the reply, whether
    the golden processor was asked to move (then the position it was asked about, its status
    ``info`` and its node signature, None without a search) and the endpoint's board after."""
    answer = {"reply": reply, "asked": golden.asked, "position": endpoint.position.text(),
              "color": endpoint.color, "jobs": golden.last_jobs if golden.asked else []}
    if golden.asked:
        answer.update(asked_position=golden.last_position.text(), info=golden.info(),
                      signature=golden.last_signature)
    return answer


class LateBudgetGolden(RecordingGolden):
    """RecordingGolden whose searches of positions with ``late_empties`` empty squares or fewer
    use the budget ``late_budget`` (the bench sets the processor's budget port there too)."""

    def __init__(self, budget, depth_limit, contexts, late_empties, late_budget, solve_empties=0, evaluator="seed",
                 engines=1):
        super().__init__(budget, depth_limit, contexts, solve_empties, evaluator, engines)
        self.late_empties, self.late_budget = late_empties, late_budget

    def search_position(self, position):
        if empties(position) <= self.late_empties:
            self.budget = self.late_budget
        return super().search_position(position)


def empties(position):
    return 64 - popcount(position.black | position.white)


def worker_main():
    """The golden processor in a process of its own (``python -m tb.checks.processor``, PyPy when
    installed), so that its searches run beside the simulation instead of before it. One JSON
    request a line on stdin: ``{"game": {"budget": B, "depth_limit": D, "contexts": C, "late": L,
    "solve_empties": E, "evaluator": V, "engines": K}}``
    starts a game (a new RecordingGolden behind a PlayerEndpoint; with ``late``, [empties, budget],
    a LateBudgetGolden), ``{"message": M}`` hands it the referee's message
    M; each message is answered on stdout with one line of :func:`golden_answer` (or
    ``{"error": traceback}``). Exits when stdin closes."""
    import json
    import sys
    import traceback

    golden = endpoint = None
    for text in sys.stdin:
        request = json.loads(text)
        if "game" in request:
            game = request["game"]
            contexts, solve_empties = game.get("contexts", 1), game.get("solve_empties", 0)
            evaluator, engines = game.get("evaluator", "seed"), game.get("engines", 1)
            golden = (RecordingGolden(game["budget"], game["depth_limit"], contexts, solve_empties, evaluator, engines)
                      if game.get("late") is None else
                      LateBudgetGolden(game["budget"], game["depth_limit"], contexts, *game["late"], solve_empties,
                                       evaluator, engines))
            endpoint = PlayerEndpoint(golden)
            continue
        try:
            golden.asked = False
            answer = golden_answer(golden, endpoint, endpoint(request["message"]))
        except Exception:  # noqa: BLE001 - reported by the bench, which stops the game
            answer = {"error": traceback.format_exc()}
        print(json.dumps(answer), flush=True)


class GoldenProcessorProcess:
    """The bench's side of :func:`worker_main`: ``new_game``, then per referee message ``submit``
    (returns at once: the golden processor answers while the simulator runs) and ``answer``
    (waits for it). One process serves every game of a simulation."""

    def __init__(self, python=None):
        import subprocess

        from tb.checks.search import ROOT, golden_python

        self.python = python or golden_python()
        self.process = subprocess.Popen([self.python, "-m", "tb.checks.processor"], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=dict(os.environ, PYTHONPATH=ROOT))
        self.waiting = 0   # messages submitted, not yet answered

    def _send(self, request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()

    def new_game(self, budget, depth_limit, contexts=1, late=None, solve_empties=0, evaluator="seed", engines=1):
        """A new game for the golden processor; ``late`` (empties, budget): LateBudgetGolden's;
        ``solve_empties``: the processor design's endgame solve (rtl/processor_settings.py PROCESSOR_SOLVE_EMPTIES);
        ``evaluator``: the design's (tb.blocks.design_evaluator); ``engines``: K, the K-engine processor's."""
        while self.waiting:   # a game stopped by a failure between a message and its answer
            try:
                self.answer()
            except RuntimeError:
                pass
        self._send({"game": {"budget": budget, "depth_limit": depth_limit, "contexts": contexts,
                             "late": None if late is None else list(late), "solve_empties": solve_empties,
                             "evaluator": evaluator, "engines": engines}})

    def submit(self, message):
        self._send({"message": message})
        self.waiting += 1

    def answer(self):
        """The answer to the oldest message submitted (:func:`golden_answer`)."""
        line = self.process.stdout.readline()
        if not line:
            self.waiting = 0
            raise RuntimeError(f"the golden processor's process ({self.python}) ended (exit status "
                               f"{self.process.poll()}); its error output is in the simulator's log")
        self.waiting -= 1
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the golden processor ({self.python}) failed:\n{answer['error']}")
        return answer

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except Exception:  # noqa: BLE001 - it is ending anyway
            self.process.kill()


# --- the job port of the processor with two contexts (docs/root-split.md) --------------------

JOB_LOG = "job_log.txt"   # in the simulator's folder, from the HDL clock harness (tb.host.harness)
# A job's worker on the job port: the context of the two-context processor (rtl/processor.py
# JOB_PORTS), the engine of the K-engine splitter (rtl/designs.py k_job_ports).
JOB_WORKERS = ("context", "engine")


def job_log_fields(worker="context"):
    """The job port in its order, the fields of a JOB_LOG line after the clock; ``worker`` one of
    JOB_WORKERS."""
    return ("job_event", f"job_{worker}", "job_kind", "job_move", "job_depth", "job_alpha", "job_beta",
            "job_value", "job_nodes", "job_signature")


def job_worker(port_names):
    """The worker field (JOB_WORKERS) of a design with a job port, from its port names."""
    return "engine" if "job_engine" in port_names else "context"


JOB_LOG_FIELDS = job_log_fields()
JOB_SIGNED_BITS = {"job_alpha": 9, "job_beta": 9, "job_value": 9}   # two's complement on the port
EVENT_START, EVENT_RESULT = 1, 2
KIND_NAMES = {code: kind for kind, code in KIND_CODES.items()}


def event_fields(worker="context"):
    """A job event as the bench compares it: the clock relative to the search's k = 0, then the port's fields."""
    return ("clock", "event", worker, "kind", "move", "depth", "alpha", "beta", "value", "nodes", "signature")


EVENT_FIELDS = event_fields()


def parse_job_log(lines, worker="context"):
    """JOB_LOG lines (``<clock> <hex field>...``: the harness's rising edges so far, then
    the job_log_fields) as event dicts of event_fields, ``clock`` still the harness's."""
    fields = job_log_fields(worker)
    events = []
    for line in lines:
        words = line.split()
        if len(words) != 1 + len(fields):
            raise ValueError(f"job log line {line!r}: {len(words)} fields, expected {1 + len(fields)}")
        event = {"clock": int(words[0])}
        for name, word in zip(fields, words[1:]):
            value = int(word, 16)
            bits = JOB_SIGNED_BITS.get(name)
            if bits and value >> (bits - 1) & 1:
                value -= 1 << bits
            event[name[len("job_"):]] = value
        events.append(event)
    return events


def golden_job_events(jobs, worker="context"):
    """The job port the golden splitter's ``jobs`` (dicts of golden.root_split ``Job``) make, in
    clock order: a start event in each job's start clock (value, nodes and signature 0), a result
    event in the clock its result is taken. Each event keeps its job (``job``)."""
    events = []
    for job in jobs:
        common = {worker: job[worker], "kind": KIND_CODES[job["kind"]],
                  "move": 0 if job["move"] is None else job["move"], "depth": job["depth"],
                  "alpha": job["alpha"], "beta": job["beta"], "job": job}
        events.append(dict(common, clock=job["start"], event=EVENT_START, value=0, nodes=0, signature=0))
        events.append(dict(common, clock=job["done"], event=EVENT_RESULT, value=job["value"], nodes=job["nodes"],
                           signature=job["signature"]))
    return sorted(events, key=lambda event: event["clock"])


def field_text(name, value):
    """A job event's field as the failure shows it: a move as D3, a kind by name, a signature in hex."""
    if name == "move":
        return square_name(value)
    if name == "kind":
        return KIND_NAMES.get(value, str(value))
    if name == "signature":
        return f"{value:#018x}"
    return str(value)


def root_move_text(event):
    """The job of ``event`` by kind and root move: ``NULL job of root move D3``."""
    kind = KIND_NAMES.get(event["kind"], str(event["kind"]))
    return f"{kind} job of root move {'root' if kind == 'ROOT' else square_name(event['move'])}"


def describe_event(event, worker="context"):
    if event is None:
        return "no event"
    name = {EVENT_START: "start", EVENT_RESULT: "result"}.get(event["event"], f"event {event['event']}")
    what = (f"{name} in clock {event['clock']}, {worker} {event[worker]}, {root_move_text(event)}, "
            f"depth {event['depth']}, window ({event['alpha']}, {event['beta']})")
    if event["event"] == EVENT_RESULT:
        what += f", value {event['value']}, nodes {event['nodes']}, signature {event['signature']:#018x}"
    return what


def job_replay_command(job, sim):
    """The commands that replay ``job``: exactly, on the golden search in single-iteration mode
    (the engine's search design has no single-iteration inputs), and on the engine with every
    node checked, as an iterative-deepening search of the child with the job's window."""
    budget = f" --budget {job['budget']}" if job["budget"] is not None else ""
    beta = 256 if job["beta"] == -256 else job["beta"]
    window = f" --alpha {job['alpha']} --beta {beta}"
    pv = "" if job["root_pv"] is None else f" --root-pv {square_name(job['root_pv'])}"
    board = f"gamechip search --board '{job['board']}' --depth {job['depth']}{budget}{window}"
    return (f"{board} --single-iteration{pv}\n"
            f"  on the engine, iterations 1..{job['depth']} with that window: {board} --sim {sim}")


def job_port_difference(lines, jobs, sim="SIM", worker="context"):
    """None when the job log ``lines`` of one search are the golden ``jobs``' events (the clocks
    counted from the first line's, which is the first job's start: the golden one's clock
    ``DISPATCH_LATENCY``), else the first difference as text: its clock, ``worker`` (context or
    engine), kind, root move, child board and window, expected and actual, and the command that
    replays the job."""
    actual = parse_job_log(lines, worker)
    expected = golden_job_events(jobs, worker)
    if actual:
        shift = actual[0]["clock"] - (expected[0]["clock"] if expected else 0)
        for event in actual:
            event["clock"] -= shift
    for index in range(max(len(actual), len(expected))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        if want is not None and got is not None:
            fields = [f for f in event_fields(worker) if want[f] != got[f]]
            if not fields:
                continue
        else:
            fields = []
        job = (want or {}).get("job")
        where = want or got
        lines_out = [f"job event {index + 1} differs: clock {where['clock']}, {worker} {where[worker]}, "
                     f"{root_move_text(where)}"]
        if job is not None:
            lines_out.append(f"  child board {job['board']}, depth {job['depth']}, window ({job['alpha']}, "
                             f"{job['beta']}) (-256: infinite), iteration {job['iteration']}, root alpha "
                             f"{job['root_alpha']}, root_pv "
                             f"{'none' if job['root_pv'] is None else square_name(job['root_pv'])}")
        if fields:
            lines_out.append("  differing: " + ", ".join(f"{f} expected {field_text(f, want[f])}, actual "
                                                         f"{field_text(f, got[f])}" for f in fields))
        lines_out.append(f"  expected: {describe_event(want, worker)}")
        lines_out.append(f"  actual:   {describe_event(got, worker)}")
        if job is not None:
            lines_out.append("  replay the job: " + job_replay_command(job, sim))
        return "\n".join(lines_out)
    return None


class JobLog:
    """The HDL harness's JOB_LOG as it grows: ``new_lines`` returns the lines written since the
    last call (the harness flushes each line)."""

    def __init__(self, path=JOB_LOG):
        self.path, self.offset = path, 0

    def new_lines(self):
        try:
            with open(self.path) as log:
                log.seek(self.offset)
                text = log.read()
        except FileNotFoundError:
            raise AssertionError(f"no job log {self.path}: the harness around the processor with two contexts "
                                 f"writes it (tb.host.harness verilog_job_log)") from None
        complete = text[:text.rfind("\n") + 1]
        self.offset += len(complete)
        return complete.splitlines()


if __name__ == "__main__":
    worker_main()
