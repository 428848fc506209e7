"""The chess chip's verifiable blocks (docs/spec-chess.md): the move generator (``movegen``) and the
repetition detector (``repetition``)."""
