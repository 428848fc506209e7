"""Campaign commands: campaign (blocks x simulators in journaled shards) and report (its HTML
page, or the summary of a mutation run)."""

import sys
from pathlib import Path

from gamechip.cli.arguments import block_list, natural, positive, seconds, simulator_list
from gamechip.cli.common import UsageError, blocks_named, check_sim
from gamechip.installation import require


def campaign_arguments(parser):
    parser.add_argument("--blocks", nargs="+", metavar="BLOCK", default=["all"],
                        help=f"one or more of {block_list()}, or all (the default)")
    parser.add_argument("--sims", nargs="+", metavar="SIM", default=["icarus"],
                        help=f"one or more of {simulator_list()}, or all (default icarus)")
    parser.add_argument("--count", type=positive, default=10000, help="positions per block and simulator (default 10000)")
    parser.add_argument("--seed", type=natural, default=1, help="seed of the first shard; shard i uses seed+i (default 1)")
    parser.add_argument("--out", required=True, help="campaign folder: journal.jsonl, cases/, logs/")
    parser.add_argument("--jobs", type=positive, help="shards at once on this machine (default: one per core)")
    parser.add_argument("--shard-size", type=positive, default=2000, help="positions per shard (default 2000)")
    parser.add_argument("--resume", action="store_true",
                        help="finish the campaign in --out: skip shards journaled as pass or fail, run those "
                             "journaled as error or timeout again")
    parser.add_argument("--no-retry", action="store_true",
                        help="with --resume: skip shards journaled as error or timeout too")
    parser.add_argument("--no-shrink", action="store_true", help="keep failing cases as found, do not shrink them")
    parser.add_argument("--timeout", type=seconds, default=900.0,
                        help="seconds one shard may take, build included, before it is killed (default 900)")
    parser.add_argument("--cluster", metavar="tcp://HOST:PORT",
                        help="run the shards on this Dask distributed scheduler's workers instead")
    parser.add_argument("--until-covered", action="store_true",
                        help="the first shard of each block and simulator runs the block's directed and aimed "
                             "cases too; a block's shards stop starting once every bin of its test plan "
                             "(tb/testplans/) is hit or waived, merged over its shards (--count is the cap); "
                             "exit status 1 while a block has holes")


def run_campaign(args):
    if args.cluster:
        require("cluster", "--cluster")
    from gamechip.campaign.driver import run
    from gamechip.campaign.plan import CampaignInputError
    from gamechip.processes import ClusterError, check_cluster_address
    from tb.host.runner import SIMULATORS, resolve_rtl_root

    blocks = list({block.name: block for block in blocks_named(args.blocks)}.values())  # each once
    sims = list(SIMULATORS) if "all" in args.sims else list(dict.fromkeys(args.sims))
    for sim in sims:
        if args.cluster and sim not in SIMULATORS:  # the simulators must be on the workers, not here
            raise UsageError(f"unknown simulator '{sim}': choose one of {', '.join(SIMULATORS)}")
        if not args.cluster:
            check_sim(sim)
    if not args.cluster:
        resolve_rtl_root()  # a bad GAMECHIP_RTL_ROOT is one line before the campaign folder is made
    again = ["--blocks", *(b.name for b in blocks), "--sims", *sims, "--count", str(args.count), "--seed",
             str(args.seed), "--shard-size", str(args.shard_size), "--out", args.out, "--timeout", f"{args.timeout:g}"]
    again += ["--cluster", args.cluster] if args.cluster else ["--jobs", str(args.jobs)] if args.jobs else []
    again += (["--no-retry"] if args.no_retry else []) + (["--no-shrink"] if args.no_shrink else [])
    again += ["--until-covered"] if args.until_covered else []
    try:
        if args.cluster:
            check_cluster_address(args.cluster)
        return run(blocks, sims, args.count, args.seed, args.out, workers=args.jobs, shard_size=args.shard_size,
                   resume=args.resume, timeout=args.timeout, cluster=args.cluster, argv=again,
                   retry=not args.no_retry, shrink=not args.no_shrink, until_covered=args.until_covered)
    except (CampaignInputError, ClusterError) as error:
        raise UsageError(str(error))


def report_arguments(parser):
    parser.epilog = ("exit status: 0 the campaign's verdict is PASS; 1 FAIL, INCOMPLETE, NOT COVERED or UNKNOWN; 2 not "
                     "a campaign folder; on a mutation run's folder, as gamechip mutate exits (docs/exit-status.md)")
    parser.add_argument("dir", help="the campaign's --out folder (holds journal.jsonl)")


def run_report(args):
    from gamechip.views.report import VERDICT_STATUS, ReportError, write_report

    if (Path(args.dir) / "mutants.json").exists():
        from gamechip.cli.mutants import mutation_exit_status
        from gamechip.mutation.model import MutateError
        from gamechip.mutation.report import print_summary, summarise
        try:
            result = summarise(args.dir)
            print_summary(result, False, args.dir)
        except MutateError as error:
            raise UsageError(str(error))
        return mutation_exit_status(result)
    try:
        path, campaign = write_report(args.dir)
    except ReportError as error:
        raise UsageError(str(error))
    for warning in campaign.warnings:
        print(f"gamechip report: warning: {warning}", file=sys.stderr)
    word, line = campaign.verdict()
    print(f"{word}: {line}")
    for coverage_line in campaign.coverage.lines() if campaign.coverage is not None else ():
        print(coverage_line)
    print(f"report: {path}")
    return VERDICT_STATUS[word]


COMMANDS = {
    "campaign": (campaign_arguments, run_campaign),
    "report": (report_arguments, run_report),
}
