"""The server-sent events parser, against the HTML standard's rules, fed in chunks of every size."""

from __future__ import annotations

from memoryd import ServerSentEvent, SSEDecoder


def parse(stream: bytes, size: int | None = None) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    step = size or max(len(stream), 1)
    for start in range(0, len(stream), step):
        events += decoder.feed(stream[start : start + step])
    return events


def every_split(stream: bytes) -> list[list[ServerSentEvent]]:
    """The events for every chunk size from 1 byte to the whole stream."""
    return [parse(stream, size) for size in range(1, len(stream) + 1)]


def test_line_ends_lf_crlf_and_cr_in_any_chunking() -> None:
    for ending in (b"\n", b"\r\n", b"\r"):
        stream = ending.join([b"event: answer.delta", b"data: one", b"", b"data: two", b"", b""])
        for events in every_split(stream):
            assert events == [ServerSentEvent("answer.delta", "one", ""), ServerSentEvent("message", "two", "")]


def test_multi_line_data_comments_and_fields() -> None:
    stream = b": keep-alive\n\nid: 7\nevent:done\ndata:first\ndata:  second\ndata\nretry: 3000\nunknown: x\n\n"
    for events in every_split(stream):
        assert events == [ServerSentEvent("done", "first\n second\n", "7", 3000)]


def test_an_event_without_data_is_not_dispatched_and_a_cut_event_is_dropped() -> None:
    assert parse(b"event: answer.created\n\n") == []
    assert parse(b"data: complete\n\ndata: cut off") == [ServerSentEvent("message", "complete", "")]


def test_byte_order_mark_and_utf8_split_across_chunks() -> None:
    stream = "\ufeffdata: Café \u2028 ☕\n\n".encode()
    for events in every_split(stream):
        assert events == [ServerSentEvent("message", "Café \u2028 ☕", "")]


def test_id_persists_and_nul_ids_are_ignored() -> None:
    events = parse(b"id: a\ndata: 1\n\ndata: 2\n\nid: b\0c\ndata: 3\n\n")
    assert [e.id for e in events] == ["a", "a", "a"]
