"""Golden model of the chess chip's two verifiable blocks (docs/spec-chess.md): the move generator
(``movegen``) and the repetition detector (``repetition``). python-chess is the oracle for the
move set, legality, perft and repetition; ``encoding`` holds the chip's encodings (piece codes,
the 256-bit board word, the 16-bit move word, square names, FEN in and out) and ``positions``
the seeded random positions. Never imports ``rtl/``.
"""
