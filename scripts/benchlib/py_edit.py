"""Single attribute edit with Python's sqlite3 and mod_spatialite: the peer of `annolink set`.

Run with Debian's /usr/bin/python3 (its sqlite3 module can load extensions):
    py_edit.py FILE.gpkg FID VALUE

Sets AD_ADDRESS of address_points FID and regenerates its annotation by the peers' simplified
rule (text, and the footprint's width scaled with the text's length), in one transaction.
"""
import sqlite3
import sys
from pathlib import Path

SQL = Path(__file__).resolve().parent / "sql"


def main():
    path, fid, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    db = sqlite3.connect(path, isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension("mod_spatialite")
    db.execute("BEGIN IMMEDIATE")
    db.execute((SQL / "edit_feature.sql").read_text(), {"fid": fid, "value": value})
    db.execute((SQL / "edit_anno.sql").read_text(), {"fid": fid})
    db.execute("COMMIT")
    db.close()


if __name__ == "__main__":
    main()
