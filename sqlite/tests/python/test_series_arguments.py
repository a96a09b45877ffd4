"""scru128_series given an argument SQLite cannot read before the series (it refers to
the series itself, or to the left table of a RIGHT JOIN), found by a review: the error
claimed the argument was missing ("expected one argument"). It must say what is wrong
with it, in one line.

    SCRU128_SQLITE_EXT=path/to/scru128.so /usr/bin/python3 sqlite/tests/python/test_review.py
"""

import os
import sqlite3
import unittest

EXT = os.environ.get("SCRU128_SQLITE_EXT", "")


def connect():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    conn.enable_load_extension(False)
    conn.execute("CREATE TABLE b (size INTEGER)")
    conn.execute("INSERT INTO b VALUES (2), (3)")
    return conn


class ArgumentGivenButNotUsable(unittest.TestCase):
    def check(self, sql):
        conn = connect()
        try:
            with self.assertRaises(sqlite3.Error) as caught:
                conn.execute(sql).fetchall()
            message = str(caught.exception)
            self.assertIn("no number of IDs that can be read before the series", message)
            self.assertNotIn("\n", message)
            self.assertNotIn(
                "expected one argument",
                message,
                f"{sql}: an argument was given, but the error says it is missing: {message}",
            )
        finally:
            conn.close()

    def test_argument_from_the_left_table_of_a_right_join(self):
        # The argument comes from b, which a RIGHT JOIN cannot read first. (SQLite's
        # own json_each(b.size) there gives no rows and no error.)
        self.check("SELECT count(*) FROM b RIGHT JOIN scru128_series(b.size) AS s")

    def test_argument_from_the_series_itself(self):
        self.check("SELECT count(*) FROM scru128_series(s.rowid) AS s")

    def test_blob_form_argument_from_the_left_table_of_a_right_join(self):
        self.check("SELECT count(*) FROM b RIGHT JOIN scru128_series_blob(b.size) AS s")


if __name__ == "__main__":
    unittest.main(verbosity=2)
