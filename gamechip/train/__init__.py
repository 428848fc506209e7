"""The pattern evaluator's training (docs/pattern-evaluator.md): self-play games labelled by exact
endgame solves (selfplay.py, pure Python, run on the golden interpreter), the least-squares fit
per game stage (fit.py, numpy and scipy: the ``train`` extra), the command ``python -m
gamechip.train`` behind ``make train-eval`` (main.py), and the first strength measurement of the
golden search with each evaluator (strength.py)."""
