"""The standard zipfile fuzz harness: open the bytes as a zip archive and test every member.

`BadZipFile` and `LargeZipFile` are the expected complaints about a bad archive and end the run
cleanly (exit 0); any other exception is a crash, and Python prints its traceback and exits 1,
as a fuzz target's uncaught exception does. The input is the file named by the first argument,
or stdin without one (the two ways AFL++ and libFuzzer hand an input over).
"""

import contextlib
import io
import sys
import zipfile


def main() -> None:
    if len(sys.argv) > 1:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
    else:
        data = sys.stdin.buffer.read()
    with contextlib.suppress(zipfile.BadZipFile, zipfile.LargeZipFile):
        zipfile.ZipFile(io.BytesIO(data)).testzip()


if __name__ == "__main__":
    main()
