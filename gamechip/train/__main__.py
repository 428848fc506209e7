"""``python -m gamechip.train``: see gamechip/train/main.py."""

from gamechip.train.main import main

raise SystemExit(main())
