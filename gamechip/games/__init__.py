"""Games and the engine protocols: refereed games and tournaments against the reference program
(play), a board on a serial port (port), the simulated processor behind a TCP port (serve), two
games a simulation of ``search_c2`` (paired_games)."""
