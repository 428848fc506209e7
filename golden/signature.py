"""The processor's trace signature (rtl/processor.py ``trace_words`` / ``trace_fold``): a 64-bit
rotate-and-XOR fold of the search's node events, so that a bench compares a whole search with
one word. Shared by the processor bench's golden side (tb/checks/processor.py) and the golden
root splitter (golden/root_split.py), which folds each job's nodes and then the jobs."""

from golden.evaluator import (T_ADAPTIVE, T_CORNERS_OPP, T_CORNERS_OWN, T_DISCS_OPP, T_DISCS_OWN, T_FIXED,
                              T_MOBILITY_OPP, T_MOBILITY_OWN, T_STABLE_OPP, T_STABLE_OWN, T_STAGE, T_TERMINAL,
                              T_XSQ_OPP, T_XSQ_OWN)
from golden.search import LEAF

SIGNATURE_MASK = (1 << 64) - 1


def rotate_fold(signature: int, word: int) -> int:
    """One step of the fold: rotate the 64-bit ``signature`` left by one, XOR in ``word``."""
    return (((signature << 1) & SIGNATURE_MASK) | (signature >> 63)) ^ word


class SignatureFold:
    """The processor's ``trace_signature``, folded node by node as the golden search reports
    them (``on_node`` of golden.search.search_events, so that no trace is kept): per node event,
    rotate the 64-bit signature left by one, then XOR in the three words of rtl/processor.py
    ``trace_words`` / ``trace_fold``: the black, white and legal-move bitboards, and two words of
    fields packed MSB first at the widths of the ports (kind 2, ply 5, white to move 1, stable
    own/opp 7+7, value 9, terminal 1, stage 2, corners own/opp 3+3, X-squares own/opp 3+3; then
    mobility own/opp 7+7, discs own/opp 7+7, fixed 9, adaptive 9). Every field of an inner node
    but its kind, ply and side to move is 0. The leaf terms are the search's own (the evaluator's
    tuple, golden.evaluator ``evaluation_terms``), the value its floored leaf value."""

    __slots__ = ("signature",)

    def __init__(self):
        self.signature = 0

    def on_node(self, iteration, ply, path, own, opp, wtm, legal, kind, terms, value, generated, cycle):
        signature = self.signature
        signature = ((signature << 1) & SIGNATURE_MASK) | (signature >> 63)
        # black ^ white: own ^ opp whichever side is to move
        word = own ^ opp ^ legal ^ ((ply & 31) << 39) ^ ((1 if wtm else 0) << 38)
        if terms is not None:
            word ^= (((1 if kind == LEAF else 2) << 44)
                     | ((terms[T_STABLE_OWN] & 127) << 31) | ((terms[T_STABLE_OPP] & 127) << 24)
                     | ((value & 511) << 15) | ((terms[T_TERMINAL] & 1) << 14) | ((terms[T_STAGE] & 3) << 12)
                     | ((terms[T_CORNERS_OWN] & 7) << 9) | ((terms[T_CORNERS_OPP] & 7) << 6)
                     | ((terms[T_XSQ_OWN] & 7) << 3) | (terms[T_XSQ_OPP] & 7))
            word ^= (((terms[T_MOBILITY_OWN] & 127) << 39) | ((terms[T_MOBILITY_OPP] & 127) << 32)
                     | ((terms[T_DISCS_OWN] & 127) << 25) | ((terms[T_DISCS_OPP] & 127) << 18)
                     | ((terms[T_FIXED] & 511) << 9) | (terms[T_ADAPTIVE] & 511))
        self.signature = signature ^ word
