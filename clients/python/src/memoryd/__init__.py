"""memoryd from Python: a typed client for memoryd's REST API (docs/api.md, docs/clients.md).

    from memoryd import Memoryd

    with Memoryd("http://127.0.0.1:8787", api_key) as memoryd:
        memoryd.teach({"facts": [{"text": "The billing service runs on Postgres 16."}]})
        print(memoryd.search({"query": "what does billing run on?"})["facts"][0]["fact_text"])

``AsyncMemoryd`` has the same methods for asyncio. Request and response types are TypedDicts in
``memoryd.types``, generated from the server's OpenAPI document.
"""

from . import types
from ._async_client import AsyncAnswers, AsyncFacts, AsyncMemoryd
from ._client import Answers, Facts, Memoryd
from ._shared import (
    CLIENT_ROUTES,
    AnswerCompletedEvent,
    AnswerCreatedData,
    AnswerCreatedEvent,
    AnswerDeltaData,
    AnswerDeltaEvent,
    AnswerEvent,
    AnswerFailedData,
    AnswerFailedEvent,
    DoneData,
    DoneEvent,
    FactDeleteResult,
    MemorydError,
    __version__,
)
from ._sse import ServerSentEvent, SSEDecoder

__all__ = [
    "CLIENT_ROUTES",
    "AnswerCompletedEvent",
    "AnswerCreatedData",
    "AnswerCreatedEvent",
    "AnswerDeltaData",
    "AnswerDeltaEvent",
    "AnswerEvent",
    "AnswerFailedData",
    "AnswerFailedEvent",
    "Answers",
    "AsyncAnswers",
    "AsyncFacts",
    "AsyncMemoryd",
    "DoneData",
    "DoneEvent",
    "FactDeleteResult",
    "Facts",
    "Memoryd",
    "MemorydError",
    "SSEDecoder",
    "ServerSentEvent",
    "__version__",
    "types",
]
