"""A server-sent events parser, as the HTML standard specifies it
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).

It is fed the body's bytes as they arrive, in chunks of any size, and returns the complete events.
Lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are
one line end); nothing else ends a line, so a U+2028 inside JSON data stays data, as it must.
A leading byte order mark is dropped; comment lines (":" keep-alives) are skipped; ``data`` lines
join with "\\n"; a field line without a colon is a field with an empty value; one space after the
colon is dropped; an event without data is not dispatched; an event cut off by the end of the
stream is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSentEvent:
    event: str
    data: str
    id: str
    retry: int | None = None


class SSEDecoder:
    def __init__(self) -> None:
        self._buffer = b""
        self._started = False
        self._pending_cr = False
        self._event = ""
        self._data: list[str] = []
        self._last_id = ""
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events completed by this chunk, in order."""
        if not chunk:
            return []
        if self._pending_cr:
            # The previous chunk ended in CR: that ended a line; an LF now is the same line end.
            self._pending_cr = False
            if chunk.startswith(b"\n"):
                chunk = chunk[1:]
        data = self._buffer + chunk
        if not self._started:
            if len(data) < 3 and b"\xef\xbb\xbf".startswith(data):
                self._buffer = data
                return []
            self._started = True
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
        events: list[ServerSentEvent] = []
        start = 0
        length = len(data)
        while start < length:
            lf = data.find(b"\n", start)
            cr = data.find(b"\r", start)
            if lf == -1 and cr == -1:
                break
            if cr == -1 or (lf != -1 and lf < cr):
                end, next_start = lf, lf + 1
            elif cr + 1 < length:
                end, next_start = cr, cr + 2 if data[cr + 1] == 0x0A else cr + 1
            else:
                # CR as the chunk's last byte: a line end, maybe the first half of CRLF.
                end, next_start = cr, cr + 1
                self._pending_cr = True
            event = self._line(data[start:end].decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
            start = next_start
        self._buffer = data[start:]
        return events

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        data, event, retry = self._data, self._event, self._retry
        self._data, self._event, self._retry = [], "", None
        if not data:
            return None
        return ServerSentEvent(event=event or "message", data="\n".join(data), id=self._last_id, retry=retry)
