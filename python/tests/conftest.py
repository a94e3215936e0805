import os

import pytest

import sessiondb

KEY = bytes(range(32))
OTHER_KEY = bytes([7] * 32)


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "state" / "sessions.db")


@pytest.fixture
def store(db_path):
    with sessiondb.SessionStore(db_path, key=KEY) as s:
        yield s


class MemoryKeyProvider:
    """A key provider holding the key in memory, counting its calls."""

    def __init__(self, key=None):
        self.key = key
        self.gets = 0
        self.sets = 0

    def get_key(self):
        self.gets += 1
        return self.key

    def set_key(self, key):
        self.sets += 1
        self.key = bytes(key)
