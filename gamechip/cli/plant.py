"""``gamechip plant``: a copy of the RTL with one of the corpus's planted bugs, to practise the
failure workflow (fuzz, shrink, replay, corpus) on a real failure.

The bugs are those of tb/host/planted.py that a corpus case (tb/cases/) cites as the bug it was
found with; the copy is the folder to give GAMECHIP_RTL_ROOT.
"""

from pathlib import Path

from gamechip.cli.common import UsageError

# what plant leaves in its folder: the bug's name; a folder without it is never overwritten
MARKER = "planted-bug.txt"


def plantable():
    """{bug name: its corpus case} of every planted bug a corpus case cites, in the corpus's order."""
    from tb.host import corpus
    from tb.host.planted import corpus_cases_by_bug

    return {name: paths[0] for name, paths in corpus_cases_by_bug(corpus.corpus_files()).items()}


def shown_path(path):
    """``path`` relative to the working folder when it is inside it (shorter to copy), else absolute."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def plant_arguments(parser):
    parser.add_argument("bug", nargs="?", help="the bug's id (gamechip plant --list) or its name")
    parser.add_argument("--out", help="folder for the copy, the GAMECHIP_RTL_ROOT to test it with "
                                      "(default: build/planted/BUG)")
    parser.add_argument("--list", action="store_true", help="the bugs that can be planted, each with its corpus case")


def _list(bugs):
    from tb.host.planted import PLANTED_BUGS, bug_id

    width = max(len(bug_id(name)) for name in bugs)
    print("planted bugs of the corpus (gamechip plant BUG writes a copy of the RTL with one):")
    for name, case in bugs.items():
        print(f"  {bug_id(name):<{width}}  {PLANTED_BUGS[name][0]:<16}  {shown_path(case)}")
    return 0


def _checked_out(out):
    """``out`` as a folder plant may write: new, empty, or an earlier copy of plant's."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise UsageError(f"--out {out} holds files that plant did not write; give a new or empty folder")
    return out


def run_plant(args):
    from tb.host.planted import PLANTED_BUGS, PlantError, bug_id, bug_named, plant
    from tb.blocks import BLOCKS
    from tb.host.casefile import read_case_file
    from tb.host.runner import BUILD, ROOT

    bugs = plantable()
    if not bugs:
        from tb.host.corpus import CORPUS

        raise UsageError(f"no case of the corpus {CORPUS} names a planted bug of tb/host/planted.py "
                         f"(as planted bug 'NAME' in its why)")
    if args.list:
        if args.bug:
            raise UsageError("give a bug or --list, not both")
        return _list(bugs)
    if not args.bug:
        raise UsageError("name a bug (gamechip plant --list names them)")
    try:
        name = bug_named(args.bug)
    except PlantError as error:
        raise UsageError(str(error))
    if name not in bugs:
        raise UsageError(f"'{args.bug}' has no corpus case; plant writes the bugs of the corpus "
                         f"(gamechip plant --list); tests/test_mutants.py runs the others")
    out = _checked_out(args.out or BUILD / "planted" / bug_id(name))
    design, file, *_ = PLANTED_BUGS[name]
    try:
        plant(name, out)
    except (PlantError, OSError) as error:
        raise UsageError(str(error))
    (out / MARKER).write_text(name + "\n")
    case = bugs[name]
    record, _ = read_case_file(case)
    block, sim = record["block"], record["sim"]
    root = shown_path(out)
    print(f"planted '{name}' (rtl/{file} of {design}) in {root}")
    if block in BLOCKS:  # as many positions as make test fuzzes there (tests/test_plant.py: they find it)
        print(f"find it by fuzzing: GAMECHIP_RTL_ROOT={root} gamechip fuzz --blocks {block} --sim {sim} "
              f"--count {BLOCKS[block].default_counts[sim]}")
    print(f"or replay its corpus case on it: GAMECHIP_RTL_ROOT={root} gamechip replay {shown_path(case)} --waves")
    print(f"what was changed: diff -r {shown_path(ROOT / 'rtl')} {root}/rtl")
    return 0


COMMANDS = {"plant": (plant_arguments, run_plant)}
