"""A real HTTP server on localhost serving a folder, for tests of downloads without the internet.

``FileServer(root)`` serves ``root`` on 127.0.0.1 (a free port) from a thread; ``requests``
lists every path asked for. ``truncate[path] = n`` makes the server announce the file's full
length but send only its first ``n`` bytes and close the connection (an interrupted transfer);
``gzipped`` holds the paths sent with ``Content-Encoding: gzip`` (as GitHub's raw files are).
"""

from __future__ import annotations

import functools
import gzip
import socket
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _Handler(SimpleHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - the http.server naming
        self.server.requests.append(self.path)
        cut = self.server.truncate.get(self.path)
        zipped = self.path in self.server.gzipped
        if cut is None and not zipped:
            super().do_GET()
            return
        data = (Path(self.directory) / self.path.lstrip('/')).read_bytes()
        if zipped:
            data = gzip.compress(data)
        cut = len(data) if cut is None else cut
        self.send_response(200)
        self.send_header('Content-Length', str(len(data)))
        if zipped:
            self.send_header('Content-Encoding', 'gzip')
        self.end_headers()
        self.wfile.write(data[:cut])
        self.wfile.flush()
        if cut < len(data):
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[str]
    truncate: dict[str, int]
    gzipped: set[str]


class FileServer:
    def __init__(self, root: Path):
        handler = functools.partial(_Handler, directory=str(root))
        self._server = _Server(('127.0.0.1', 0), handler)
        self._server.requests = []
        self._server.truncate = {}
        self._server.gzipped = set()
        self.url = f'http://127.0.0.1:{self._server.server_address[1]}'
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.running = True

    @property
    def requests(self) -> list[str]:
        return self._server.requests

    @property
    def truncate(self) -> dict[str, int]:
        return self._server.truncate

    @property
    def gzipped(self) -> set[str]:
        return self._server.gzipped

    def stop(self) -> None:
        if self.running:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self.running = False
