import sys

from casefile.cli.main import program

sys.exit(program())
