"""The processor bench's aimed stimulus for code coverage (tb/checks/book_games.py,
tb/checks/processor_stimulus.py) and the explanations' checks it leans on
(gamechip/coverage/unhit.py never_loaded, unreachable_book_item): the book games reach every book
node a game can reach and read every trie item the explanation leaves, checked against an
exhaustive walk of the games and a model of the openings block's trie walk; the byte sweep sends
every byte value and forms no message."""

from golden.board import popcount, start_position
from golden.openings import book_lines, book_move
from golden.othello import legal_moves, play
from golden.processor import GoldenProcessor
from gamechip.coverage import unhit
from gamechip.coverage.source_map import SourceMap, verilog_blocks
from gamechip.coverage.unhit import pattern_bounds
from rtl.openings import book_trie
from tb.checks.book_games import (COLOURS, BookLineOpponent, book_games, legality_problem, mover_is_processor,
                                  processor_replies, reachable_prefixes, unread_trie_items)
from tb.checks.processor import FRAME_ERROR, LateBudgetGolden, assembled
from tb.checks.processor_stimulus import GLITCH, ByteSweep, acted_pairs


def trie_walk(trie, moves):
    """The node and cursor values the openings block (rtl/openings.py, as its docstring states it)
    takes while ``moves`` are played one by one from the root: (nodes, cursors)."""
    node, nodes, cursors, out = 0, {0}, {0}, False
    for move in moves:
        if out or trie.first_child[node] == 0:
            out = True
            continue
        cursor = trie.first_child[node]
        while True:
            cursors.add(cursor)
            if trie.move_in[cursor] == move:
                node = cursor
                nodes.add(node)
                break
            if trie.next_sibling[cursor] == 0:
                out = True
                break
            cursor = trie.next_sibling[cursor]
    return nodes, cursors


def exhaustive_book_walk(colour):
    """Every game prefix the golden processor (playing ``colour``, its own book rule) can be led
    through by an opponent choosing any legal move, followed while the processor plays book: the
    sequences of moves, each as far as the book matters plus the move that leaves it."""
    games, stack = [], [()]
    while stack:
        moves = stack.pop()
        position = start_position()
        for move in moves:
            position = play(position, move)
        if mover_is_processor(len(moves), colour):
            player = GoldenProcessor(None)
            player.reset("X" if colour == "black" else "O")
            player.history = list(moves)
            move = player.book()
            if move is None:
                games.append(moves)
            else:
                stack.append(moves + (move,))
        else:
            legal = legal_moves(position.own, position.opp)
            for square in range(64):
                if legal >> square & 1:
                    extended = moves + (square,)
                    if any(tuple(line[:len(extended)]) == extended for line in book_lines()):
                        stack.append(extended)
                    else:
                        games.append(extended)   # out of book: the scan reads every child
    return games


def test_the_book_games_read_every_trie_item_a_game_can_and_the_explanation_covers_the_rest():
    trie = book_trie()
    every = set(range(len(trie)))
    unread = unread_trie_items()
    walked_nodes, walked_cursors, game_nodes, game_cursors = set(), set(), set(), set()
    for colour in COLOURS:
        for moves in exhaustive_book_walk(colour):
            nodes, cursors = trie_walk(trie, moves)
            walked_nodes |= nodes
            walked_cursors |= cursors
        for game in book_games(colour):
            nodes, cursors = trie_walk(trie, game)
            game_nodes |= nodes
            game_cursors |= cursors
    assert walked_nodes == every - unread["node"]
    assert walked_cursors == every - unread["cursor"]
    assert game_nodes == walked_nodes and game_cursors == walked_cursors
    assert 0 < len(unread["node"]) < len(trie) and 0 < len(unread["cursor"]) < len(trie)


def test_each_book_game_is_a_legal_line_whose_processor_moves_are_the_book_moves():
    lines = {tuple(line) for line in book_lines()}
    for colour in COLOURS:
        games = book_games(colour)
        assert games and len(set(games)) == len(games)
        reached = set(reachable_prefixes(colour))
        assert {game[:k] for game in games for k in range(len(game) + 1)} == reached
        for game in games:
            assert game in lines and legality_problem(game) is None
            for ply, move in enumerate(game):
                if mover_is_processor(ply, colour):
                    assert book_move(game[:ply]) == move
            own = sum(mover_is_processor(ply, colour) for ply in range(len(game)))
            assert processor_replies(game, colour) in (own, own + 1)


def test_the_book_line_opponent_plays_its_moves_of_the_line_then_the_first_legal_move():
    game = book_games("white")[0]
    opponent = BookLineOpponent(game)
    position = start_position()
    for move in game:
        assert opponent.move(position) == move
        position = play(position, move)
    legal = legal_moves(position.own, position.opp)
    assert opponent.move(position) == (legal & -legal).bit_length() - 1


def test_the_byte_sweep_sends_every_byte_value_and_forms_no_message_the_processor_acts_on():
    sweep, position, bursts = ByteSweep(), start_position(), []
    for _ in range(10):
        bursts.append(sweep(position))
        moves = legal_moves(position.own, position.opp)
        position = play(position, (moves & -moves).bit_length() - 1)
    assert sweep.sent == set(range(256))
    assert {27, 28, 35, 36} <= sweep.squares
    assert bursts[0][:1] == [GLITCH] and GLITCH not in sum(bursts[1:], [])
    assert not bursts[-1]
    # YY only once the colour is known (the first burst comes before the game's first message)
    assert "YY" not in assembled([t for t in bursts[0] if t != GLITCH])[0]
    assert all("YY" in assembled(b)[0] for b in bursts[1:8])
    # a pair that would be a message: a legal move, a code other than YY, YY before the colour
    assert acted_pairs([ord("R"), ord("R"), FRAME_ERROR], start_position(), True) == ["RR"]
    assert acted_pairs([ord("Y"), ord("Y")], start_position(), False) == ["YY"]
    assert acted_pairs([ord("D"), ord("3")], start_position(), True) == ["D3"]
    assert acted_pairs([ord("D"), ord("4")], start_position(), True) == []


def test_the_late_budget_starts_at_its_number_of_empty_squares():
    golden = LateBudgetGolden(256, 16, 1, late_empties=58, late_budget=5000)
    golden.reset("X")
    golden.passed = True   # out of book: every move a search
    position = start_position()
    golden.move(position)
    assert golden.budget == 256 and 200 < golden.info()["cycles"] <= 256
    for _ in range(2):
        moves = legal_moves(position.own, position.opp)
        position = play(position, (moves & -moves).bit_length() - 1)
    assert 64 - popcount(position.black | position.white) == 58
    golden.move(position)
    assert golden.budget == 5000 and golden.info()["cycles"] > 256


def context_of(verilog):
    text = f"module top;\n{verilog}endmodule\n"
    return unhit.DesignContext(text.splitlines(), SourceMap.of(text, {}), pattern_bounds(text, verilog_blocks(text)))


def items_where(context, check):
    return {context.lines[n - 1].strip() for n in range(1, len(context.lines) + 1) if check(context, n)}


LOADED_FROM_A_ROM = """\
always @(d) begin: rom0_read_rom
    case (d)
        0: g = 0;
        1: g = 1;
        2: g = 0;
        3: g = 1;
    endcase
end
always @(pc) begin: rom1_read_rom
    case (pc)
        0: y = 5;
        1: y = 6;
        2: y = 7;
        3: y = 8;
    endcase
end
always @(posedge clk) begin: control
    if (rst == 1) begin
        pc <= 0;
    end
    else begin
        if (v) begin
            if (g) begin
                pc <= d;
            end
        end
    end
end
"""


def test_never_loaded_explains_only_the_values_the_gate_keeps_out():
    assert items_where(context_of(LOADED_FROM_A_ROM), unhit.case_item_never_loaded) == {"2: y = 7;"}
    # MyHDL writes the last value as the default: explained when that value is never held
    last_default = LOADED_FROM_A_ROM.replace("3: y = 8;", "default: y = 8;")
    assert items_where(context_of(last_default), unhit.case_item_never_loaded) == {"2: y = 7;"}
    never_three = last_default.replace("3: g = 1;", "3: g = 0;")
    assert items_where(context_of(never_three), unhit.case_item_never_loaded) == {"2: y = 7;", "default: y = 8;"}
    # loaded from an expression, or without the gate, the register may hold anything
    for variant in ("pc <= (d + 1);", "pc <= e;"):
        text = LOADED_FROM_A_ROM.replace("pc <= d;", "pc <= d;\n            end\n            else begin\n"
                                         f"                {variant}")
        assert not items_where(context_of(text), unhit.case_item_never_loaded), variant
    ungated = LOADED_FROM_A_ROM.replace("if (g) begin", "if (h) begin")
    assert not items_where(context_of(ungated), unhit.case_item_never_loaded)


def test_unreachable_book_item_explains_the_unread_nodes_and_the_default_only():
    size = len(book_trie())
    unread = unread_trie_items()
    items = "".join(f"        {n}: openings0_node_has_book = 1;\n" for n in range(size - 1))   # MyHDL: the last is the default
    rom = (f"always @(openings0_node) begin: openings0_rom7_read_rom\n    case (openings0_node)\n{items}"
           f"        default: openings0_node_has_book = 0;\n    endcase\nend\n")
    explained = items_where(context_of(rom), unhit.unreachable_book_item)
    assert size - 1 in unread["node"] and size - 1 in unread["cursor"]
    assert explained == {f"{n}: openings0_node_has_book = 1;" for n in unread["node"] - {size - 1}} | {
        "default: openings0_node_has_book = 0;"}
    cursor = rom.replace("openings0_node", "openings0_cursor")
    assert {line.split(":")[0] for line in items_where(context_of(cursor), unhit.unreachable_book_item)} == {
        str(n) for n in unread["cursor"] - {size - 1}} | {"default"}
