"""Where a campaign's shards run: threads of this process each launching one shard subprocess
at a time (``LocalPool``, default one per core), or the tasks of a Dask distributed cluster
(``DaskPool``, ``--cluster``), which call the same ``run_shard`` on the workers' machines.

Both have the same face: ``submit(shard)`` gives a future of the shard's journal entry,
``stop()`` cancels the shards not started and kills the running ones with their simulators,
``close()`` waits for the rest; ``where`` and ``stopping`` say so on the terminal.
"""

import uuid
from concurrent.futures import ThreadPoolExecutor

from gamechip.campaign.shards import run_shard
from gamechip.processes import connect_cluster, stop_all, stop_cluster_tasks


class LocalPool:
    """The shards in ``workers`` threads of this process, each running one shard subprocess at a time."""

    def __init__(self, workers, timeout, scratch, shrink=True):
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="shard")
        self.timeout, self.scratch, self.shrink = timeout, scratch, shrink
        self.where = f"{workers} local worker{'s' if workers != 1 else ''}"
        self.stopping = "killing the running shards"

    def submit(self, shard):
        return self.executor.submit(run_shard, shard.to_dict(), self.timeout, str(self.scratch), None, self.shrink)

    def stop(self):
        self.executor.shutdown(wait=False, cancel_futures=True)
        stop_all()
        self.executor.shutdown(wait=True)  # the killed shards return at once

    def close(self):
        self.executor.shutdown(wait=True)


class DaskPool:
    """The same shards as tasks of a Dask distributed scheduler (``run_shard`` on the workers)."""

    def __init__(self, address, timeout, shrink=True):
        self.client, self.where = connect_cluster(address)
        self.timeout, self.shrink = timeout, shrink
        self.stopping = "cancelling the shards on the cluster, killing the running ones"
        self.futures = []
        self.campaign = uuid.uuid4().hex[:12]

    def submit(self, shard):
        key = f"gamechip-{shard.slug}-{self.campaign}"
        future = self.client.submit(run_shard, shard.to_dict(), self.timeout, None, key, self.shrink, pure=False,
                                    key=key)
        self.futures.append(future)  # a Dask future nobody holds is forgotten by the scheduler
        return future

    def stop(self):
        stop_cluster_tasks(self.client, self.futures, "campaign")

    def close(self):
        self.client.close()
