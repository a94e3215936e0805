"""Opening a store by PostgreSQL URL (DESIGN.md "Backends"): the Python
package is built with the core's `postgres` feature. Needs a server: run
under scripts/with-postgres.sh (SESSIONDB_TEST_PG_URL); skipped otherwise."""

import os
import uuid

import pytest

import sessiondb

URL = os.environ.get("SESSIONDB_TEST_PG_URL")
KEY = bytes([5]) * 32

pytestmark = pytest.mark.skipif(not URL, reason="SESSIONDB_TEST_PG_URL unset: run under scripts/with-postgres.sh")


def test_a_store_opened_by_url_round_trips_and_keeps_the_key_rules():
    # A session id of its own keeps this test apart from others on the same server.
    sid = "py-" + uuid.uuid4().hex
    with sessiondb.SessionStore(URL, key=KEY) as st:
        s = st.create_session("from python", id=sid)
        st.append_transcript(s.id, "user", "hello over the wire")
        assert st.path.startswith("postgres://")
    with sessiondb.SessionStore(URL, key=KEY) as st:
        assert [e.content for e in st.get_transcript(sid)] == ["hello over the wire"]
    with pytest.raises(sessiondb.KeyMismatchError):
        sessiondb.SessionStore(URL, key=bytes([6]) * 32)
