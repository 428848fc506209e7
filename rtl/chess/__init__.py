"""The chess chip's verifiable blocks (SPEC-chess.md): the move generator (``movegen``) and the
repetition detector (``repetition``)."""
