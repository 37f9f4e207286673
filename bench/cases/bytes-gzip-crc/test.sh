#!/usr/bin/env bash
# Interesting iff gzip still finds a CRC error in the archive.
f="$(realpath "${1:-argparse.py.gz}")"
timeout 10 gzip -t < "$f" 2>&1 | grep -q 'crc error'
