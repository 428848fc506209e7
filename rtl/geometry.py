"""Board geometry used at elaboration time to wire the cell networks.

Square ``s = row * size + col`` (col = file A.., row = rank 1..), the convention of
docs/spec.md §0. Neighbours are computed on (row, col), so a step never wraps from one row
into the next: a square on the board edge simply has no neighbour in that direction.
"""

# The 8 flow directions as (row step, col step).
DIRECTIONS = (
    (0, 1), (1, 1), (1, 0), (1, -1),
    (0, -1), (-1, -1), (-1, 0), (-1, 1),
)


def opposite(direction):
    """The direction pointing the other way."""
    return (-direction[0], -direction[1])


def neighbour(square, direction, size):
    """The square one step from ``square`` in ``direction``, or None when off the board."""
    row, col = divmod(square, size)
    row += direction[0]
    col += direction[1]
    if 0 <= row < size and 0 <= col < size:
        return row * size + col
    return None


def move_width(size):
    """Bits of a move input: ceil(log2(size*size)), e.g. 6 for 8x8 and for 6x6, 4 for 4x4."""
    return max(1, (size * size - 1).bit_length())
