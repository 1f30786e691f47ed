"""The shared state sits below voting: importing it and making its Redis client load no `arena.voting` module
(voting's Redis rate limits import the shared state, never the other way round), and the arena namespace it
keys Redis by is the one of before."""

import json
import subprocess
import sys

PROBE = """
import json, sys
from arena.settings import Settings
from arena.runtime.shared_state import shared_redis
shared = shared_redis(Settings(_env_file=None, redis_url="redis://127.0.0.1:6379/15", secret_key="s3cret"))
print(json.dumps({"prefix": shared.prefix, "loaded": sorted(m for m in sys.modules if m.startswith("arena."))}))
"""


def test_the_shared_state_and_its_redis_client_load_nothing_from_voting():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    assert found["prefix"] == "arena:1ec1c26b50d5"  # sha256("s3cret")[:12], as the namespace always was
    assert "arena.runtime.shared_state" in found["loaded"]
    assert not [m for m in found["loaded"] if m.startswith("arena.voting")]
