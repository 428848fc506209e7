"""Pictures and pages of results, for a person: a failing case, a failing search, a campaign.

- replay.py: what ``gamechip replay CASE --waves`` writes beside the waveform.
- search.py: the same for a failing search-engine case.
- report.py: ``gamechip report``, one HTML page for a campaign folder.
- failure.py: a saved failing case read back (expected and actual, where they first differ);
  chess.py: the board pictures of a failing chess case.
- waves.py: the waveform of a replayed case (GTKWave save file, a picture of its window).
- boards.py: Othello board pictures.
- drawing.py: the shapes every picture is drawn with, written as SVG or PNG.

Imports run one way, from the top of this list to the bottom: report uses replay, replay uses
failure, chess, waves and boards, search uses waves and boards, chess uses failure, failure uses
boards, and boards and waves use drawing, which uses none of them.
"""
