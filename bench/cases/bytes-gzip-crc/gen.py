"""Write a gzip of this machine's stdlib argparse.py with one bit flipped mid-stream to stdout."""

import subprocess
import sys
import sysconfig
from pathlib import Path

source = Path(sysconfig.get_paths()["stdlib"], "argparse.py").read_bytes()
data = bytearray(subprocess.run(["gzip", "-9", "-n", "-c"], input=source, check=True,
                                capture_output=True).stdout)  # fmt: skip
data[len(data) // 2] ^= 0x01  # inside the deflate stream: decodes, then fails its CRC
sys.stdout.buffer.write(bytes(data))
