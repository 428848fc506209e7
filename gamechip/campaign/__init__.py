"""``gamechip campaign``: fuzzing every block on every simulator at scale, in shards, with
nothing lost.

- plan.py: the campaign's parameters (``OUT/campaign.json``) and its shards.
- shards.py: one shard: run it in a killable subprocess, classify its outcome (the worker
  entry ``python -m gamechip.campaign.shards worker``).
- pools.py: where shards run: local threads or a Dask cluster.
- folder.py: the output folder, and the cases and logs kept in it.
- journal.py: ``OUT/journal.jsonl``, one line per finished shard.
- coverage.py: the functional coverage its shards sampled, merged per block; ``--until-covered``.
- progress.py: the live progress line and the summary.
- driver.py: ``run``, the campaign from start to summary (and ``--resume``).
"""
