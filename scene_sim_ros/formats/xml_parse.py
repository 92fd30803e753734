"""XML parsing with the element count bounded while reading.

libxml2 holds about 650 bytes per element, so a 63 MiB file of one-line elements (under
``max_file_mb``) took 1.1 GB before a loader saw its root, and the loaders minutes after that.
:func:`parse` feeds the parser a chunk at a time and stops at the line where the count of
elements passes ``max_xml_elements``, before the rest of the file is parsed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lxml import etree

from scene_sim_ros import limits

CHUNK_BYTES = 1 << 16
LIBXML_LAST_LINE = 65535  # libxml2 reports any line after it as 65535


def parse(data: bytes, file: str | Path | None, parser: etree.XMLPullParser | None = None,
          **options: Any) -> etree._Element:
    """``etree.fromstring(data, etree.XMLParser(**options))`` (same result, same
    XMLSyntaxError), or the max_xml_elements error at the element that goes over it. A ``parser``
    of the caller's (whose error log it reads) must report ``start`` events."""
    most = limits.current().max_xml_elements
    if parser is None:
        parser = etree.XMLPullParser(events=('start',), **options)
    count, lines = 0, 1
    for at in range(0, max(len(data), 1), CHUNK_BYTES):
        chunk = data[at:at + CHUNK_BYTES]
        parser.feed(chunk)
        lines += chunk.count(b'\n')
        for _, element in parser.read_events():
            count += 1
            if count > most:
                line = element.sourceline
                if line is None or line >= LIBXML_LAST_LINE:  # else the chunk's last line
                    line = lines
                raise limits.exceeded('max_xml_elements', f'the file has more than {most} XML '
                                      'elements', file, line)
    return parser.close()
