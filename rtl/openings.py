"""Openings table (docs/spec.md §6): book moves from a trie of the opening lines, in ROM.

ROM CONTENT ONLY comes from the golden model: ``golden.openings.book_lines()`` (the contest
lines of data/openings.tsv expanded by the symmetry group, duplicates dropped, in table
order). This is the only place rtl/ uses golden; no hardware structure is derived from it,
and the golden model answers book queries by a linear scan of the table, not by this trie.

At conversion time the lines become a trie: one node per distinct prefix (node 0 = root,
the empty game), numbered breadth first, children in order of first appearance in the
table. Per node, five ROMs (case statements):

* ``book_move``  - next move of the FIRST line in table order of which the node's prefix
  is a proper prefix (0 when there is none);
* ``has_book``   - the prefix is a proper prefix of some line;
* ``first_child``, ``next_sibling`` - trie links, 0 = none (the root is nobody's child);
* ``move_in``    - the move leading into the node.

Hardware: a state register ``node`` and a sticky ``out_of_book`` flag.

* ``start`` with ``restart``: node := root, out_of_book := 0; done in cycle 0.
* ``start`` without ``restart``: latch ``move``; if already out of book or the node has no
  children, out_of_book := 1 and done in cycle 0. Otherwise the children are scanned one per
  cycle (first_child, then next_sibling) for move_in == move: a match moves node to that
  child; the end of the list without a match sets out_of_book.

Cycle 0 is the first cycle after the start edge. ``done`` is a one-cycle pulse (a register):
in cycle k when the k-th child matches, in cycle C when none of C children matches, so done
always comes within ``max_children`` cycles (7 for the default book, see
:func:`book_trie`), at most 1 + number of children. ``in_book`` = not out_of_book and
has_book[node]; ``book_move`` = book move of the node when in_book, else 0. Both are
combinational from the registers: valid in the done cycle and held until the next start.
``rst``: root, in book, done = 0.
"""

from myhdl import Signal, always_comb, always_seq, block, intbv

from rtl.rom import rom


class Trie:
    """The ROM contents of the openings trie (elaboration-time Python).

    Attributes are tuples indexed by node: move_in, first_child, next_sibling, book_move,
    has_book; plus ``prefixes`` (node -> tuple of moves), ``max_children`` and ``node_bits``.
    """

    def __init__(self, lines):
        lines = [tuple(line) for line in lines]
        prefixes = [()]
        node_of = {(): 0}
        children = {0: []}
        # Breadth first: depth by depth, children in order of first appearance in the table.
        depth = 0
        while any(len(line) > depth for line in lines):
            for line in lines:
                if len(line) > depth and line[:depth + 1] not in node_of:
                    prefix = line[:depth + 1]
                    node_of[prefix] = len(prefixes)
                    children[len(prefixes)] = []
                    children[node_of[line[:depth]]].append(len(prefixes))
                    prefixes.append(prefix)
            depth += 1

        book = []
        for prefix in prefixes:
            longer = [line for line in lines if len(line) > len(prefix)
                      and line[:len(prefix)] == prefix]
            book.append(longer[0][len(prefix)] if longer else None)

        count = len(prefixes)
        self.prefixes = tuple(prefixes)
        self.move_in = tuple(prefix[-1] if prefix else 0 for prefix in prefixes)
        self.first_child = tuple(children[n][0] if children[n] else 0 for n in range(count))
        sibling = [0] * count
        for n in range(count):
            for here, after in zip(children[n], children[n][1:]):
                sibling[here] = after
        self.next_sibling = tuple(sibling)
        self.book_move = tuple(0 if move is None else move for move in book)
        self.has_book = tuple(int(move is not None) for move in book)
        self.max_children = max(len(c) for c in children.values())
        self.node_bits = max(1, (count - 1).bit_length())

    def __len__(self):
        return len(self.prefixes)


def book_trie(lines=None):
    """The trie of ``lines`` (default: ``golden.openings.book_lines()``, the stored table)."""
    if lines is None:
        from golden.openings import book_lines  # ROM content only; see the module docstring
        lines = book_lines()
    return Trie(lines)


@block
def openings(clk, rst, start, restart, move, done, in_book, book_move, lines=None):
    """Book move of the game so far.

    clk:       Signal(bool) clock (in).
    rst:       ResetSignal(0, active=1, isasync=False): root, in book, done = 0 (in).
    start:     Signal(bool), begin an update on this edge (in).
    restart:   Signal(bool), with start: a new game (back to the root) (in).
    move:      Signal(intbv[6]), with start and not restart: the move just played (in).
    done:      Signal(bool), one-cycle pulse: the update is finished (out).
    in_book:   Signal(bool), the game so far is a proper prefix of a book line (out).
    book_move: Signal(intbv[6]), the move to play when in_book, else 0 (out).
    lines:     elaboration-time list of lines (tuples of squares); default the golden table.
    """
    trie = book_trie(lines)
    bits = trie.node_bits

    node = Signal(intbv(0)[bits:])
    cursor = Signal(intbv(0)[bits:])
    played = Signal(intbv(0)[6:])
    scanning = Signal(bool(0))
    out_of_book = Signal(bool(0))
    pulse = Signal(bool(0))
    node_first_child = Signal(intbv(0)[bits:])
    node_has_book = Signal(bool(0))
    node_book_move = Signal(intbv(0)[6:])
    cursor_move_in = Signal(intbv(0)[6:])
    cursor_next_sibling = Signal(intbv(0)[bits:])

    roms = [
        rom(node, node_first_child, trie.first_child),
        rom(node, node_has_book, trie.has_book),
        rom(node, node_book_move, trie.book_move),
        rom(cursor, cursor_move_in, trie.move_in),
        rom(cursor, cursor_next_sibling, trie.next_sibling),
    ]

    @always_seq(clk.posedge, reset=rst)
    def walk():
        pulse.next = 0
        if start:
            if restart:
                node.next = 0
                out_of_book.next = 0
                scanning.next = 0
                pulse.next = 1
            elif out_of_book or node_first_child == 0:
                out_of_book.next = 1
                scanning.next = 0
                pulse.next = 1
            else:
                cursor.next = node_first_child
                played.next = move
                scanning.next = 1
        elif scanning:
            if cursor_move_in == played:
                node.next = cursor
                scanning.next = 0
                pulse.next = 1
            elif cursor_next_sibling == 0:
                out_of_book.next = 1
                scanning.next = 0
                pulse.next = 1
            else:
                cursor.next = cursor_next_sibling

    @always_comb
    def drive_outputs():
        done.next = pulse
        if node_has_book and not out_of_book:
            in_book.next = 1
            book_move.next = node_book_move
        else:
            in_book.next = 0
            book_move.next = 0

    return roms, walk, drive_outputs
