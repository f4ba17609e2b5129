"""Teach a fact, find it again, and build the memory block for a prompt."""

import os

from memoryd import Memoryd

with Memoryd(os.environ.get("MEMORYD_URL", "http://127.0.0.1:8787"), os.environ["MEMORYD_KEY"]) as memoryd:
    memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})
    found = memoryd.search({"query": "what does billing run on?"})
    print(found["facts"][0]["fact_text"])

    packet = memoryd.context({"query": "what does billing run on?", "token_budget": 800})
    print(packet["rendered"])
